package events

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

const (
	tSender   = "4012345000009"
	tReceiver = "4000001000005"
	demoKey   = "demo-webhook-key" // the key the testdata captures are signed with
)

// newEvent is a valid envelope v2 event for sequence seq.
func newEvent(seq int, mods ...func(map[string]any)) map[string]any {
	e := map[string]any{
		"specversion": "2.0", "id": fmt.Sprintf("evt-%d", seq), "type": "nutrab2b.orders.confirmed.v2",
		"source": "https://partner.example.com/b2b", "subject": "PO-1", "time": "2025-03-12T10:30:00Z",
		"sender": tSender, "receiver": tReceiver, "correlationid": "corr-1",
		"idempotencykey": fmt.Sprintf("%s:PO-1:confirmed:%d", tSender, seq), "sequence": seq, "env": "prod",
		"data": map[string]any{"line": seq},
	}
	for _, m := range mods {
		m(e)
	}
	return e
}

func set(k string, v any) func(map[string]any) { return func(e map[string]any) { e[k] = v } }

func body(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func inspectBodies(t *testing.T, opts Options, bodies ...[]byte) Report {
	t.Helper()
	ds := make([]Delivery, len(bodies))
	for i, b := range bodies {
		ds[i] = Delivery{Name: fmt.Sprintf("d%d", i), Body: b}
	}
	return Inspect(ds, opts)
}

func inspectPath(t *testing.T, path string, opts Options) Report {
	t.Helper()
	ds, err := ReadPath(path)
	require.NoError(t, err)
	return Inspect(ds, opts)
}

// codes lists the codes of the findings about event ev (-1: delivery or
// set level) with severity sev ("" for all).
func codes(r Report, ev int, sev Severity) []Code {
	var out []Code
	for _, f := range r.Findings {
		if f.Event == ev && (sev == "" || f.Severity == sev) {
			out = append(out, f.Code)
		}
	}
	return out
}

func finding(t *testing.T, r Report, code Code) Finding {
	t.Helper()
	for _, f := range r.Findings {
		if f.Code == code {
			return f
		}
	}
	t.Fatalf("no %s finding in %+v", code, r.Findings)
	return Finding{}
}

func outcomes(r Report) []Outcome {
	out := make([]Outcome, len(r.Events))
	for i, e := range r.Events {
		out[i] = e.Outcome
	}
	return out
}

func TestInspectValidEvent(t *testing.T) {
	r := inspectPath(t, "testdata/valid_event.json", Options{})
	require.Zero(t, r.Errors, "%+v", r.Findings)
	require.Zero(t, r.Warnings, "%+v", r.Findings)
	require.Len(t, r.Events, 1)
	ev := r.Events[0]
	require.Equal(t, "evt-0001", ev.ID)
	require.Equal(t, int64(1), ev.Sequence)
	require.Equal(t, -1, ev.Position)
	require.Equal(t, OutcomeProcessed, ev.Outcome)
	require.Equal(t, []Stream{{Sender: tSender, Subject: "PO-4711", First: 1, LastProcessed: 1, Parked: []int64{}, Missing: []string{}}}, r.Streams)
}

func TestInspectBatchIssues(t *testing.T) {
	r := inspectPath(t, "testdata/batch_issues.json", Options{})
	require.True(t, r.Deliveries[0].Batch)
	require.Equal(t, []Outcome{OutcomeProcessed, OutcomeReleased, OutcomeProcessed, OutcomeDuplicate, OutcomeDuplicate, OutcomeRejected, OutcomeParked}, outcomes(r))
	require.Equal(t, []Code{CodeOutOfOrder}, codes(r, 1, ""))
	require.Equal(t, []Code{CodeDuplicate}, codes(r, 3, ""))
	require.Equal(t, []Code{CodeDuplicateConflict}, codes(r, 4, ""))
	require.Equal(t, []Code{CodeRegression}, codes(r, 5, ""))
	require.ElementsMatch(t, []Code{CodeCausation, CodeSequenceGap}, codes(r, 6, ""))
	require.Equal(t, 3, r.Errors)

	dup := finding(t, r, CodeDuplicate)
	require.Equal(t, NBDuplicate, dup.Platform)
	require.Contains(t, dup.Message, "DUPLICATE with the original result (processed")
	conflict := finding(t, r, CodeDuplicateConflict)
	require.Equal(t, SevError, conflict.Severity)
	require.Contains(t, conflict.Message, "(data differ)")
	require.Contains(t, conflict.Message, "new idempotency key")
	gap := finding(t, r, CodeSequenceGap)
	require.Equal(t, NBParked, gap.Platform)
	require.Contains(t, gap.Message, "processed up to sequence 3")
	require.Contains(t, gap.Message, "6 (event #6)")
	require.Contains(t, gap.Message, "replay sequence 4-5 unchanged")
	require.Equal(t, []Stream{{Sender: tSender, Subject: "PO-4711", First: 1, LastProcessed: 3, Parked: []int64{6}, Missing: []string{"4-5"}}}, r.Streams)
	require.Contains(t, finding(t, r, CodeRegression).Message, "not above the last processed sequence 3")
}

func TestInspectBadEnvelope(t *testing.T) {
	r := inspectPath(t, "testdata/bad_envelope.json", Options{})
	require.ElementsMatch(t, []Code{CodeSpecVersion, CodeFieldMissing, CodeFieldMissing, CodeFieldInvalid, CodeType, CodeTime, CodeSequence}, codes(r, 0, SevError))
	require.Equal(t, OutcomeRejected, r.Events[0].Outcome)
	require.Contains(t, finding(t, r, CodeType).Message, ".v2")
}

func TestInspectEnvelopeFieldRules(t *testing.T) {
	tests := []struct {
		name string
		mod  func(map[string]any)
		want []Code
	}{
		{"every field missing", func(e map[string]any) { clear(e) }, slices.Repeat([]Code{CodeFieldMissing}, len(requiredFields))},
		{"specversion number", set("specversion", 2.0), []Code{CodeFieldInvalid, CodeSpecVersion}},
		{"id number", set("id", 7), []Code{CodeFieldInvalid}},
		{"subject blank", set("subject", "  "), []Code{CodeFieldInvalid}},
		{"data null", set("data", nil), []Code{CodeFieldMissing}},
		{"type three parts", set("type", "nutrab2b.orders.v2"), []Code{CodeType}},
		{"type other vendor", set("type", "acme.orders.confirmed.v2"), []Code{CodeType}},
		{"type with space", set("type", "nutrab2b.orders.con firmed.v2"), []Code{CodeType}},
		{"time without zone", set("time", "2025-03-12T10:30:00"), []Code{CodeTime}},
		{"time date only", set("time", "2025-03-12"), []Code{CodeTime}},
		{"sequence 0", set("sequence", 0), []Code{CodeSequence}},
		{"sequence negative", set("sequence", -3), []Code{CodeSequence}},
		{"sequence fraction", set("sequence", 1.5), []Code{CodeSequence}},
		{"sequence exponent", set("sequence", json.Number("1e2")), []Code{CodeSequence}},
		{"sequence huge", set("sequence", json.Number("99999999999999999999")), []Code{CodeSequence}},
		{"causationid empty", set("causationid", ""), []Code{CodeFieldInvalid}},
		{"causationid number", set("causationid", 3), []Code{CodeFieldInvalid}},
		{"attachments not array", set("attachments", "x"), []Code{CodeAttachment}},
		{"data attachments checked", set("data", map[string]any{"attachments": []any{map[string]any{"doc_type": "CoA"}}}), []Code{CodeAttachment}},
		{"attachment ftp", set("attachments", []any{map[string]any{"doc_type": "CoA", "uri": "ftp://x/y", "sha256": strings.Repeat("a", 64)}}), []Code{CodeAttachment}},
		{"attachment relative", set("attachments", []any{map[string]any{"doc_type": "CoA", "uri": "/files/a.pdf", "sha256": strings.Repeat("a", 64)}}), []Code{CodeAttachment}},
		{"attachment data uri", set("attachments", []any{map[string]any{"doc_type": "CoA", "uri": "data:application/pdf;base64,AAAA", "sha256": strings.Repeat("a", 64)}}), []Code{CodeAttachment, CodeInlinePDF}},
		{"attachment sha256 short", set("attachments", []any{map[string]any{"doc_type": "CoA", "url": "https://f.example/a", "sha256": strings.Repeat("a", 62)}}), []Code{CodeAttachment}},
		{"raw pdf text", set("data", map[string]any{"doc": "%PDF-1.7\n..."}), []Code{CodeInlinePDF}},
		{"hex pdf", set("data", map[string]any{"doc": "255044462D312E37"}), []Code{CodeInlinePDF}},
		{"pdf in a member name", set("data", map[string]any{"JVBERi0xLjc": 1}), []Code{CodeInlinePDF}},
		{"pdf in array", set("data", map[string]any{"docs": []any{"ok", "x JVBERi0xLjcK"}}), []Code{CodeInlinePDF}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := inspectBodies(t, Options{}, body(t, newEvent(1, tc.mod)))
			require.ElementsMatch(t, tc.want, codes(r, 0, SevError), "%+v", r.Findings)
			require.Equal(t, OutcomeRejected, r.Events[0].Outcome)
		})
	}
}

func TestInspectWarningsOnly(t *testing.T) {
	tests := []struct {
		name string
		mod  func(map[string]any)
		want Code
	}{
		{"data array", set("data", []any{1}), CodeDataNotObject},
		{"sender check digit", func(e map[string]any) {
			e["sender"] = "4012345000008"
			e["idempotencykey"] = "4012345000008:PO-1:confirmed:1"
		}, CodeNotGLN},
		{"receiver check digit", set("receiver", "4000001000004"), CodeNotGLN},
		{"causation unknown", set("causationid", "evt-404"), CodeCausation},
		{"causation self", set("causationid", "evt-1"), CodeCausationSelf},
		{"key without GLN", set("idempotencykey", "PO-1:confirmed:1:x"), CodeKeyForm},
		{"key other sender", set("idempotencykey", "4000001000005:PO-1:confirmed:1"), CodeKeyForm},
		{"key n zero", set("idempotencykey", tSender+":PO-1:confirmed:0"), CodeKeyForm},
		{"key empty business id", set("idempotencykey", tSender+"::confirmed:1"), CodeKeyForm},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := inspectBodies(t, Options{}, body(t, newEvent(1, tc.mod)))
			require.Zero(t, r.Errors, "%+v", r.Findings)
			require.Equal(t, tc.want, codes(r, 0, SevWarning)[0])
			if tc.want != CodeNotGLN {
				require.Len(t, codes(r, 0, SevWarning), 1)
			}
			require.Equal(t, OutcomeProcessed, r.Events[0].Outcome)
		})
	}
	// A business id with ':' inside keeps the recommended form.
	r := inspectBodies(t, Options{}, body(t, newEvent(1, set("idempotencykey", tSender+":ICR:0001:confirmed:1"))))
	require.Empty(t, r.Findings)
	r = inspectPath(t, "testdata/key_form.json", Options{})
	require.Zero(t, r.Errors)
	require.Equal(t, 2, r.Warnings)
	msg := finding(t, r, CodeKeyForm).Message
	require.Contains(t, msg, "it still works while it is unique")
}

func TestInspectInlinePDFFixture(t *testing.T) {
	r := inspectPath(t, "testdata/inline_pdf.json", Options{})
	var fields []string
	for _, f := range r.Findings {
		if f.Code == CodeInlinePDF {
			fields = append(fields, f.Field)
			require.Contains(t, f.Message, "attachments[]")
		}
	}
	require.Equal(t, []string{"data.coa", "data.docs[0].cert"}, fields)
}

func TestInspectInlinePDFBehindEscapes(t *testing.T) {
	// \u004A is 'J': a JSON escape must not hide the base64 PDF.
	raw := strings.Replace(string(body(t, newEvent(1, set("data", map[string]any{"x": "JVBERi0xLjcK"})))), "JVBERi0", `\u004AVBERi0`, 1)
	r := inspectBodies(t, Options{}, []byte(raw))
	require.Equal(t, []Code{CodeInlinePDF}, codes(r, 0, SevError))
}

func TestInspectBadAttachmentsFixture(t *testing.T) {
	r := inspectPath(t, "testdata/bad_attachments.json", Options{})
	var fields []string
	for _, f := range r.Findings {
		if f.Code == CodeAttachment {
			fields = append(fields, f.Field)
		}
	}
	require.Equal(t, []string{"attachments[0]", "attachments[1]", "attachments[2]"}, fields)
	require.Contains(t, r.Findings[len(r.Findings)-3].Message, "HTTPS")
	require.Contains(t, r.Findings[len(r.Findings)-2].Message, "no credentials")
}

func TestInspectSizeLimits(t *testing.T) {
	pad := func(n int) []byte {
		e := newEvent(1)
		b := body(t, e)
		e["data"] = map[string]any{"pad": strings.Repeat("x", n-len(b)-len(`{"pad":""}`)+len(`{"line":1}`))}
		b = body(t, e)
		require.Len(t, b, n)
		return b
	}
	r := inspectBodies(t, Options{}, pad(MaxEventBytes))
	require.Equal(t, []Code{CodeEventTooLarge}, codes(r, 0, SevWarning), "over 1,000,000 bytes: a warning")
	require.Zero(t, r.Errors)
	r = inspectBodies(t, Options{}, pad(maxEventBytesDecimal))
	require.Empty(t, r.Findings, "exactly 1,000,000 bytes passes")
	r = inspectBodies(t, Options{}, pad(MaxEventBytes+1))
	require.Equal(t, []Code{CodeEventTooLarge}, codes(r, 0, SevError))
	require.Contains(t, r.Findings[0].Message, "attachments[]")

	// A batch over 10 MiB is rejected as a whole, though every event fits.
	batch := []byte("[")
	for i := 0; len(batch) <= MaxBatchBytes; i++ {
		e := newEvent(i + 1)
		e["data"] = map[string]any{"pad": strings.Repeat("y", 900_000)}
		if i > 0 {
			batch = append(batch, ',')
		}
		batch = append(batch, body(t, e)...)
	}
	batch = append(batch, ']')
	r = inspectBodies(t, Options{}, batch)
	require.True(t, r.Deliveries[0].Rejected)
	require.Equal(t, []Code{CodeBatchTooLarge}, codes(r, -1, SevError))
	for _, e := range r.Events {
		require.Equal(t, OutcomeRejected, e.Outcome)
	}
}

func TestInspectBodyShapes(t *testing.T) {
	ok := body(t, newEvent(1))
	tests := []struct {
		name     string
		raw      string
		delivery []Code
		event    []Code
	}{
		{"not json", "hello", []Code{CodeUnreadable}, nil},
		{"a string", `"x"`, []Code{CodeUnreadable}, nil},
		{"broken array", `[{"a":1},`, []Code{CodeUnreadable}, nil},
		{"array then junk", `[] x`, []Code{CodeUnreadable}, nil},
		{"object then junk", string(ok) + ` {}`, nil, []Code{CodeNotObject}},
		{"truncated object", string(ok[:len(ok)-1]), nil, []Code{CodeNotObject}},
		{"array of numbers", `[1]`, nil, []Code{CodeNotObject}},
		{"duplicate member", strings.Replace(string(ok), `"sequence":1`, `"sequence":1,"sequence":9`, 1), nil, []Code{CodeDuplicateMember}},
		{"invalid utf-8", strings.Replace(string(ok), "PO-1", "PO-\xff", 2), nil, []Code{CodeInvalidUTF8}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := inspectBodies(t, Options{}, []byte(tc.raw))
			require.Equal(t, tc.delivery, codes(r, -1, SevError), "%+v", r.Findings)
			if tc.event != nil {
				require.Equal(t, tc.event, codes(r, 0, SevError), "%+v", r.Findings)
			}
			require.True(t, r.HasErrors())
		})
	}
	r := inspectBodies(t, Options{}, []byte(" [ ] "))
	require.Equal(t, []Code{CodeBatchEmpty}, codes(r, -1, SevWarning))
}

func TestInspectRejectedThenResent(t *testing.T) {
	bad := newEvent(2, set("time", "yesterday"))
	fixedSameKey := newEvent(2)
	fixedNewKey := newEvent(2, set("idempotencykey", tSender+":PO-1:confirmed:3"))

	r := inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, bad), body(t, newEvent(3, set("idempotencykey", tSender+":PO-1:confirmed:4"))), body(t, fixedSameKey))
	require.Equal(t, []Outcome{OutcomeProcessed, OutcomeRejected, OutcomeParked, OutcomeDuplicate}, outcomes(r))
	c := finding(t, r, CodeDuplicateConflict)
	require.Contains(t, c.Message, "original rejection")
	require.Contains(t, c.Message, "new idempotency key and the same sequence")
	gap := finding(t, r, CodeSequenceGap)
	require.Contains(t, gap.Message, "Rejected, so still missing: 2 (event #1)")

	r = inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, bad), body(t, newEvent(3, set("idempotencykey", tSender+":PO-1:confirmed:4"))), body(t, fixedNewKey))
	require.Equal(t, []Outcome{OutcomeProcessed, OutcomeRejected, OutcomeReleased, OutcomeProcessed}, outcomes(r))
	require.Equal(t, 1, r.Errors, "only the bad event's own error: %+v", r.Findings)

	r = inspectBodies(t, Options{}, body(t, bad), body(t, bad))
	require.Equal(t, []Outcome{OutcomeRejected, OutcomeDuplicate}, outcomes(r))
	require.Contains(t, finding(t, r, CodeDuplicate).Message, "never retry a rejection unchanged")
}

func TestInspectDuplicateComparesValues(t *testing.T) {
	// The same event re-serialised (member order, spacing) is a plain
	// duplicate.
	a := []byte(`{"specversion":"2.0","id":"evt-1","type":"nutrab2b.orders.confirmed.v2","source":"s","subject":"PO-1","time":"2025-03-12T10:30:00Z","sender":"4012345000009","receiver":"4000001000005","correlationid":"c","idempotencykey":"4012345000009:PO-1:confirmed:1","sequence":1,"env":"prod","data":{"a":1,"b":[1,2]}}`)
	b := []byte("{\n \"data\": {\"b\": [1, 2], \"a\": 1.0},\"env\":\"prod\",\"sequence\":1,\"idempotencykey\":\"4012345000009:PO-1:confirmed:1\",\"correlationid\":\"c\",\"receiver\":\"4000001000005\",\"sender\":\"4012345000009\",\"time\":\"2025-03-12T10:30:00Z\",\"subject\":\"PO-1\",\"source\":\"s\",\"type\":\"nutrab2b.orders.confirmed.v2\",\"id\":\"evt-1\",\"specversion\":\"2.0\"}")
	r := inspectBodies(t, Options{}, a, b)
	// 1 and 1.0 are different JSON texts; a sender that re-serialises
	// numbers differently has changed the bytes.
	require.Equal(t, []Code{CodeDuplicateConflict}, codes(r, 1, ""))
	r = inspectBodies(t, Options{}, a, []byte(strings.Replace(string(b), "1.0", "1", 1)))
	require.Equal(t, []Code{CodeDuplicate}, codes(r, 1, ""))
	// Keys are per receiver: TestInspectDuplicatePerReceiver.
}

func TestInspectDuplicateIDUnderNewKey(t *testing.T) {
	r := inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, newEvent(2, set("id", "evt-1"))))
	require.Equal(t, []Code{CodeDuplicateID}, codes(r, 1, ""))
}

func TestInspectOrdering(t *testing.T) {
	seqs := func(opts Options, ss ...int) Report {
		var bs [][]byte
		for _, s := range ss {
			bs = append(bs, body(t, newEvent(s)))
		}
		return inspectBodies(t, opts, bs...)
	}
	r := seqs(Options{}, 40, 41, 43, 42, 47, 45)
	require.Equal(t, []Outcome{OutcomeProcessed, OutcomeProcessed, OutcomeReleased, OutcomeProcessed, OutcomeParked, OutcomeParked}, outcomes(r))
	require.Equal(t, int64(40), r.Streams[0].First)
	require.Equal(t, []string{"44", "46"}, r.Streams[0].Missing)
	require.Equal(t, []int64{45, 47}, r.Streams[0].Parked)
	require.Contains(t, finding(t, r, CodeSequenceStart).Message, "sequences 1-39 are assumed processed before")
	require.Equal(t, 5, finding(t, r, CodeSequenceGap).Event, "the gap finding points at the lowest parked sequence")

	r = seqs(Options{StartAtOne: true}, 3, 4)
	require.Equal(t, []Outcome{OutcomeParked, OutcomeParked}, outcomes(r))
	require.Equal(t, []string{"1-2"}, r.Streams[0].Missing)

	r = seqs(Options{}, 2, 1)
	require.Equal(t, []Outcome{OutcomeReleased, OutcomeProcessed}, outcomes(r), "the stream starts at the lowest sequence in the set")

	// Streams are per sender+subject.
	r = inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, newEvent(2, set("subject", "PO-2"), set("sequence", 5))), body(t, newEvent(3, set("sequence", 2))))
	require.Zero(t, r.Errors, "%+v", r.Findings)
	require.Len(t, r.Streams, 2)
}

func TestInspectCausationAndEnv(t *testing.T) {
	r := inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, newEvent(2, set("causationid", "evt-1"), set("correlationid", "corr-other"), set("env", "test"))))
	require.Equal(t, []Code{CodeCausationCorr}, codes(r, 1, SevWarning))
	require.Equal(t, []Code{CodeEnvMixed}, codes(r, -1, SevWarning))
	require.Equal(t, -1, finding(t, r, CodeEnvMixed).Delivery)
	require.Equal(t, CodeEnvMixed, r.Findings[len(r.Findings)-1].Code, "set-level findings come last")
}

func TestInspectSignedCaptures(t *testing.T) {
	key := []Secret{secret.New(demoKey)}
	r := inspectPath(t, "testdata/captures", Options{Secrets: key})
	require.Len(t, r.Deliveries, 3, "notes.txt is not a capture")
	d0, d1, d2 := r.Deliveries[0], r.Deliveries[1], r.Deliveries[2]
	require.True(t, d0.Signature.Valid)
	require.Equal(t, "date-header", d0.Clock)
	require.Equal(t, int64(5), d0.Signature.SkewSeconds)
	require.True(t, d1.Batch)
	require.Equal(t, []int{1, 2}, d1.Events)
	require.True(t, d1.Signature.Valid)
	require.Equal(t, []Code{CodeTrailingBytes}, codes(r, -1, SevWarning))
	require.False(t, d2.Signature.Valid)
	require.True(t, d2.Rejected)
	f := finding(t, r, CodeSignatureInvalid)
	require.Equal(t, 2, f.Delivery)
	require.Equal(t, NBSignature, f.Platform)
	require.Equal(t, []Outcome{OutcomeProcessed, OutcomeProcessed, OutcomeProcessed, OutcomeRejected}, outcomes(r))

	// A clock an hour later rejects every delivery.
	r = inspectPath(t, "testdata/captures", Options{Secrets: key, Now: time.Unix(1741775460+3600, 0)})
	for _, d := range r.Deliveries {
		require.True(t, d.Rejected)
		require.Equal(t, "now", d.Clock)
		require.Contains(t, d.Signature.Reasons, ReasonSkew)
	}
	// Without a secret: parsed, not verified.
	r = inspectPath(t, "testdata/captures", Options{})
	require.Equal(t, 3, len(codes(r, -1, SevInfo)))
	require.Zero(t, r.Errors)
	// With the wrong secret every signature fails, and the message keeps
	// the secret out.
	r = inspectPath(t, "testdata/captures", Options{Secrets: []Secret{secret.New(canarySecret)}})
	require.Equal(t, 3, r.Errors)
	assertNoCanary(t, r)
}

func TestInspectSignatureHeaders(t *testing.T) {
	key := secret.New(demoKey)
	b := body(t, newEvent(1))
	mk := func(h http.Header) Report {
		return Inspect([]Delivery{{Name: "x", Header: h, Body: b}}, Options{Secrets: []Secret{key}})
	}
	r := mk(http.Header{"Content-Type": {"application/json"}})
	require.Equal(t, []Code{CodeSignatureMissing}, codes(r, -1, SevError))
	require.Equal(t, OutcomeRejected, r.Events[0].Outcome)
	sig := Sign(key, 100, b)
	r = mk(http.Header{"X-Nb2b-Signature": {sig, sig}})
	require.Equal(t, []Code{CodeSignatureInvalid}, codes(r, -1, SevError))
	r = mk(http.Header{"X-Nb2b-Signature": {sig}})
	require.Zero(t, r.Errors)
	require.Equal(t, []Code{CodeSignatureTime}, codes(r, -1, SevInfo))
	// Malformed is caught even without a secret.
	r = Inspect([]Delivery{{Name: "x", Header: http.Header{"X-Nb2b-Signature": {"t=1"}}, Body: b}}, Options{})
	require.Equal(t, []Code{CodeSignatureInvalid}, codes(r, -1, SevError))
	// Headers not captured, a secret given: said so.
	r = Inspect([]Delivery{{Name: "x", Body: b}}, Options{Secrets: []Secret{key}})
	require.Equal(t, []Code{CodeSignatureSkipped}, codes(r, -1, SevInfo))
}

func TestValidGLN(t *testing.T) {
	// Check digits from the GS1 calculator rule, computed by hand.
	for _, g := range []string{"4012345000009", "4000001000005", "4006381333931", "0000000000000", "5901234123457"} {
		require.True(t, ValidGLN(g), g)
	}
	for _, g := range []string{"4012345000008", "401234500000", "40123450000090", "401234500000X", "", "4098765000007"} {
		require.False(t, ValidGLN(g), g)
	}
}

// FuzzInspect feeds arbitrary bodies (and a signature header) through
// Inspect: it must not panic, and every finding must point at a real
// delivery and event.
func FuzzInspect(f *testing.F) {
	for _, p := range []string{"testdata/valid_event.json", "testdata/batch_issues.json", "testdata/inline_pdf.json", "testdata/bad_envelope.json", "testdata/bad_attachments.json", "testdata/heartbeat_gap.json"} {
		raw, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(raw, "t=1,v1="+strings.Repeat("0", 64))
	}
	f.Add([]byte(`[{"sequence":2,"sender":"a","subject":"b"},{"sequence":1,"sender":"a","subject":"b"}]`), "")
	f.Fuzz(func(t *testing.T, raw []byte, sig string) {
		d := Delivery{Name: "f", Body: raw, Header: http.Header{}}
		if sig != "" {
			d.Header.Set(SignatureHeader, sig)
		}
		r := Inspect([]Delivery{d, d}, Options{Secrets: []Secret{secret.New("k")}, Now: time.Unix(1, 0)})
		errs := 0
		for _, fd := range r.Findings {
			require.Less(t, fd.Delivery, len(r.Deliveries))
			require.Less(t, fd.Event, len(r.Events))
			require.NotEmpty(t, fd.Message)
			if fd.Severity == SevError {
				errs++
			}
		}
		require.Equal(t, errs, r.Errors)
		for _, e := range r.Events {
			require.NotEmpty(t, e.Outcome)
		}
	})
}
