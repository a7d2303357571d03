package events

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// TestInspectRequiredFieldsByName names the envelope v2 members of the
// rules literally (not through requiredFields): each one missing is its
// own FIELD_MISSING error, and the event is rejected.
func TestInspectRequiredFieldsByName(t *testing.T) {
	for _, name := range []string{"specversion", "id", "type", "source", "subject", "time", "sender", "receiver",
		"correlationid", "idempotencykey", "sequence", "env", "data"} {
		t.Run(name, func(t *testing.T) {
			r := inspectBodies(t, Options{}, body(t, newEvent(1, func(e map[string]any) { delete(e, name) })))
			var missing []string
			for _, f := range r.Findings {
				if f.Code == CodeFieldMissing {
					missing = append(missing, f.Field)
				}
			}
			require.Equal(t, []string{name}, missing, "%+v", r.Findings)
			require.Equal(t, OutcomeRejected, r.Events[0].Outcome)
		})
	}
	// causationid is optional.
	r := inspectBodies(t, Options{}, body(t, newEvent(1)))
	require.Empty(t, r.Findings)
}

// TestInspectSizeLimitsLiteral pins the limits to the rules' numbers (1 MB
// and 10 MB read as MiB, the decimal reading a warning) at each boundary.
func TestInspectSizeLimitsLiteral(t *testing.T) {
	require.Equal(t, 1_048_576, MaxEventBytes)
	require.Equal(t, 10_485_760, MaxBatchBytes)
	for _, tc := range []struct {
		size     int
		sev      Severity // "" = no batch finding
		rejected bool
	}{
		{10_000_000, "", false},
		{10_000_001, SevWarning, false},
		{10_485_760, SevWarning, false},
		{10_485_761, SevError, true},
	} {
		b := batchOfSize(t, tc.size)
		r := inspectBodies(t, Options{}, b)
		var got []Finding
		for _, f := range r.Findings {
			if f.Code == CodeBatchTooLarge {
				got = append(got, f)
			}
		}
		if tc.sev == "" {
			require.Empty(t, got, "%d bytes", tc.size)
		} else {
			require.Len(t, got, 1, "%d bytes", tc.size)
			require.Equal(t, tc.sev, got[0].Severity, "%d bytes", tc.size)
		}
		require.Equal(t, tc.rejected, r.Deliveries[0].Rejected, "%d bytes", tc.size)
		require.Empty(t, codes(r, 0, ""), "the events are small")
	}
}

// batchOfSize is a batch of 11 valid events, exactly size bytes long:
// JSON whitespace between them makes up the size (it counts for the
// batch, not for any event, and costs the checks little).
func batchOfSize(t *testing.T, size int) []byte {
	t.Helper()
	const k = 11
	out := make([]byte, 0, size)
	out = append(out, '[')
	for i := range k {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, body(t, newEvent(i+1))...)
	}
	pad := size - len(out) - 1
	require.Positive(t, pad)
	out = append(out, bytes.Repeat([]byte{'\n'}, pad)...)
	out = append(out, ']')
	require.Equal(t, size, len(out))
	return out
}

// TestInspectSameSequenceTwice: a second event with an already processed
// sequence under a new key is a regression, rejected.
func TestInspectSameSequenceTwice(t *testing.T) {
	r := inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, newEvent(1, set("id", "evt-1b"), set("idempotencykey", tSender+":PO-1:confirmed:9"))))
	require.Equal(t, []Outcome{OutcomeProcessed, OutcomeRejected}, outcomes(r))
	require.Equal(t, []Code{CodeRegression}, codes(r, 1, SevError))
	require.Contains(t, finding(t, r, CodeRegression).Message, "sequence 1 for sender 4012345000009, subject PO-1 is not above the last processed sequence 1")
}

// TestInspectDuplicatePerReceiver: the same key at another receiver is a
// new event there, not a duplicate of any kind.
func TestInspectDuplicatePerReceiver(t *testing.T) {
	other := newEvent(2, set("receiver", "4000002000004"), set("idempotencykey", tSender+":PO-1:confirmed:1"))
	r := inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, other))
	require.Equal(t, []Outcome{OutcomeProcessed, OutcomeProcessed}, outcomes(r))
	for _, f := range r.Findings {
		require.Empty(t, f.Platform, "%+v", f)
	}
}

// TestInspectKeyFormGLN: the first part of the key must be a GLN; a
// wrong check digit or a name is said as such.
func TestInspectKeyFormGLN(t *testing.T) {
	for _, first := range []string{"4012345000008", "ACME"} {
		r := inspectBodies(t, Options{}, body(t, newEvent(1, set("idempotencykey", first+":PO-1:confirmed:1"))))
		require.Equal(t, []Code{CodeKeyForm}, codes(r, 0, SevWarning))
		msg := finding(t, r, CodeKeyForm).Message
		require.Contains(t, msg, "the first part \""+first+"\" is not a GLN (13 digits with a valid GS1 check digit)")
		require.NotContains(t, msg, "is not the sender")
	}
}

// TestInspectAttachmentDocType: an attachment that only lacks doc_type is
// an error naming it.
func TestInspectAttachmentDocType(t *testing.T) {
	for _, dt := range []any{nil, "", " ", 3} {
		a := map[string]any{"uri": "https://files.example.com/coa.pdf", "sha256": strings.Repeat("ab", 32)}
		if dt != nil {
			a["doc_type"] = dt
		}
		r := inspectBodies(t, Options{}, body(t, newEvent(1, set("attachments", []any{a}))))
		require.Equal(t, []Code{CodeAttachment}, codes(r, 0, SevError), "doc_type %v", dt)
		require.Equal(t, "attachment: doc_type is missing or empty (e.g. CoA, certificate, bill_of_lading)", finding(t, r, CodeAttachment).Message)
	}
	a := map[string]any{"doc_type": "CoA", "uri": "https://files.example.com/coa.pdf", "sha256": strings.Repeat("AB", 32)}
	r := inspectBodies(t, Options{}, body(t, newEvent(1, set("attachments", []any{a}))))
	require.Empty(t, r.Findings, "a complete attachment passes (upper-case hex too)")
}

// TestInspectInlinePDFJSONEscapes: no JSON escape hides an inline PDF.
func TestInspectInlinePDFJSONEscapes(t *testing.T) {
	for name, tc := range map[string]struct{ value, from, to string }{
		`data URI with \/`: {"data:application/pdf;base64,AAAA", "application/pdf", `application\/pdf`},
		`%PDF- as \u0025`:  {"%PDF-1.7 ...", "%PDF-", `\u0025PDF-`},
		`base64 with \u`:   {"JVBERi0xLjcK", "JVBERi0", `\u004aVBERi0`},
	} {
		t.Run(name, func(t *testing.T) {
			raw := strings.Replace(string(body(t, newEvent(1, set("data", map[string]any{"doc": tc.value})))), tc.from, tc.to, 1)
			require.Contains(t, raw, tc.to)
			r := inspectBodies(t, Options{}, []byte(raw))
			require.Equal(t, []Code{CodeInlinePDF}, codes(r, 0, SevError))
			require.Equal(t, "data.doc", finding(t, r, CodeInlinePDF).Field)
		})
	}
}

// TestInspectRejectedDeliveryIsNotRemembered: a delivery the receiver
// rejects before reading it (signature, size, body) records neither keys
// nor sequences; the sender's retry of the same event, which it sends for
// want of an ACK, is processed, not answered DUPLICATE.
func TestInspectRejectedDeliveryIsNotRemembered(t *testing.T) {
	key := secret.New(demoKey)
	signed := func(ts int64, b []byte) Delivery {
		return Delivery{Name: "d", Header: http.Header{"X-Nb2b-Signature": {Sign(key, ts, b)}}, Body: b}
	}
	opts := Options{Secrets: []Secret{key}, Now: time.Unix(5000, 0)}
	b1, b2, b3 := body(t, newEvent(1)), body(t, newEvent(2)), body(t, newEvent(3))

	// A stale signature (NB-E008, skew), then the retry signed afresh.
	r := Inspect([]Delivery{signed(1000, b1), signed(5000, b1)}, opts)
	require.Equal(t, []Outcome{OutcomeRejected, OutcomeProcessed}, outcomes(r))
	require.Equal(t, []Code{CodeSignatureInvalid}, codes(r, -1, SevError))
	require.Equal(t, 1, r.Errors)
	require.Equal(t, int64(1), r.Streams[0].LastProcessed)

	// A forgery with a wrong secret cannot claim a key or a sequence.
	forged := Delivery{Name: "f", Header: http.Header{"X-Nb2b-Signature": {Sign(secret.New(canarySecret), 5000, b1)}}, Body: b1}
	r = Inspect([]Delivery{forged, signed(5000, b1)}, opts)
	require.Equal(t, []Outcome{OutcomeRejected, OutcomeProcessed}, outcomes(r))
	assertNoCanary(t, r)

	// Sequence 2 rejected with its delivery leaves a gap; the message says
	// it was never read, and resending it is enough.
	r = Inspect([]Delivery{signed(5000, b1), signed(1000, b2), signed(5000, b3)}, opts)
	require.Equal(t, []Outcome{OutcomeProcessed, OutcomeRejected, OutcomeParked}, outcomes(r))
	gap := finding(t, r, CodeSequenceGap)
	require.Contains(t, gap.Message, "Rejected with their delivery before it was read (signature, size or body; NB-E008 for a signature), so still missing: 2 (event #1)")
	require.NotContains(t, gap.Message, "Rejected, so still missing")

	// An oversized batch is not read either: its events, sent again in
	// smaller deliveries, are new.
	big := batchOfSize(t, MaxBatchBytes+1)
	r = inspectBodies(t, Options{}, big, body(t, newEvent(1)))
	require.True(t, r.Deliveries[0].Rejected)
	require.Equal(t, OutcomeProcessed, r.Events[len(r.Events)-1].Outcome)
	require.NotContains(t, codes(r, len(r.Events)-1, ""), CodeDuplicate)
}

// TestInspectGapListsRejectedInOrder: the rejected sequences still missing
// are listed in numeric order, and a rejected sequence that a fixed event
// now fills (parked) is not listed.
func TestInspectGapListsRejectedInOrder(t *testing.T) {
	bad := func(seq int) []byte { return body(t, newEvent(seq, set("time", "yesterday"))) }
	fixed9 := body(t, newEvent(9, set("idempotencykey", tSender+":PO-1:confirmed:99")))
	r := inspectBodies(t, Options{}, body(t, newEvent(1)), bad(10), bad(9), fixed9, body(t, newEvent(12)))
	gap := finding(t, r, CodeSequenceGap)
	require.Contains(t, gap.Message, "Rejected, so still missing: 10 (event #1): fix")
	require.Equal(t, []string{"2-8", "10-11"}, r.Streams[0].Missing)

	r = inspectBodies(t, Options{}, body(t, newEvent(1)), bad(10), bad(9), body(t, newEvent(12)))
	require.Contains(t, finding(t, r, CodeSequenceGap).Message, "Rejected, so still missing: 9 (event #2), 10 (event #1): fix")
}
