package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

const (
	eventCanary = "CANARY-WEBHOOK-CLI-9d8e"
	evTestdata  = "../../apiclient/events/testdata/"
	// A vector computed with openssl (see events/signature_test.go).
	vecBody = `{"id":"evt-1"}`
	vecKey  = "demo-webhook-key"
	vecSig  = "t=1700000000,v1=175df9c91ab358c8457f4b8210994a1a896ad79fc452ae7d66ee405345d32ee2"
)

// eventEnv has a profile file with profile "acme" and an in-memory secret
// store; it replaces secretStoreFor, so its tests do not run in parallel.
type eventEnv struct {
	store *credentials.MemoryStore
	env   map[string]string
	hay   []string
}

func newEventEnv(t *testing.T) *eventEnv {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "cfg", "b2bx", "profiles.toml")
	f, err := credentials.Load(path)
	require.NoError(t, err)
	require.NoError(t, f.Put(credentials.Profile{Name: "acme", URL: "https://api.example.com", ConnectionID: "conn-1", InboxKeyID: "key-in", MailboxKeyID: "key-in"}))
	require.NoError(t, f.Save())
	ev := &eventEnv{store: credentials.NewMemoryStore(), env: map[string]string{credentials.EnvConfig: path, "HOME": dir}}
	old := secretStoreFor
	secretStoreFor = func(*env) (credentials.SecretStore, error) { return ev.store, nil }
	t.Cleanup(func() {
		secretStoreFor = old
		for _, h := range ev.hay {
			require.NotContains(t, h, eventCanary, "a webhook secret reached the output")
		}
	})
	return ev
}

func (ev *eventEnv) run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	code, out, errOut := runCmd(t, stdin, ev.env, args...)
	ev.hay = append(ev.hay, out, errOut)
	return code, out, errOut
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestEventVerify(t *testing.T) {
	ev := newEventEnv(t)
	b := writeTemp(t, "body.json", vecBody)
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string
	}{
		{"valid value", vecKey, []string{"--header", vecSig, "--now", "1700000010"}, exitOK, "valid: v1 number 1 matches secret 1; t=1700000000, 10s behind the clock"},
		{"valid header line", vecKey, []string{"--header", "X-NB2B-Signature: " + vecSig, "--now", "1700000000"}, exitOK, "2023-11-14T22:13:20Z"},
		{"rotation: second secret line", "old-key\n" + vecKey + "\n", []string{"--header", vecSig, "--now", "1700000000"}, exitOK, "matches secret 2"},
		{"wrong secret", eventCanary, []string{"--header", vecSig, "--now", "1700000000"}, exitFileError, "invalid (NB-E008): no v1 (1 given) matches"},
		{"skew", vecKey, []string{"--header", vecSig, "--now", "1700000412"}, exitFileError, "412s behind the clock, more than the ±300s allowed"},
		{"future", vecKey, []string{"--header", vecSig, "--now", "1699999000"}, exitFileError, "1000s ahead of the clock"},
		{"default clock is now: an old signature fails", vecKey, []string{"--header", vecSig}, exitFileError, "behind the clock, more than"},
		{"malformed", vecKey, []string{"--header", "t=1700000000,t=1,v1=00"}, exitFileError, "t appears twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"event", "verify", "--body", b, "--secret-stdin"}, tc.args...)
			code, out, errOut := ev.run(t, tc.stdin, args...)
			require.Equal(t, tc.code, code, errOut)
			require.Contains(t, out, tc.stdout)
		})
	}

	code, out, _ := ev.run(t, vecKey, "event", "verify", "--body", b, "--secret-stdin", "--header", vecSig, "--now", "1700000400", "--json")
	require.Equal(t, exitFileError, code)
	var r map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.Equal(t, false, r["valid"])
	require.Equal(t, "NB-E008", r["code"])
	require.Equal(t, []any{"timestamp_skew"}, r["reasons"])
	require.Equal(t, 400.0, r["skewSeconds"])
	require.Equal(t, true, r["signatureOk"])
}

func TestEventVerifyUsage(t *testing.T) {
	ev := newEventEnv(t)
	b := writeTemp(t, "body.json", vecBody)
	tests := []struct {
		name, stdin string
		args        []string
		stderr      string
	}{
		{"no header", vecKey, []string{"--body", b, "--secret-stdin"}, "--header is required"},
		{"no body", vecKey, []string{"--header", vecSig, "--secret-stdin"}, "--body FILE is required"},
		{"no secret", "", []string{"--header", vecSig, "--body", b}, "give the webhook secret"},
		{"both secrets", vecKey, []string{"--header", vecSig, "--body", b, "--secret-stdin", "-c", "acme"}, "not both"},
		{"stdin twice", vecKey, []string{"--header", vecSig, "--body", "-", "--secret-stdin"}, "both want stdin"},
		{"empty secret", "\n\n", []string{"--header", vecSig, "--body", b, "--secret-stdin"}, "holds no secret"},
		{"secret with a space", "a b", []string{"--header", vecSig, "--body", b, "--secret-stdin"}, "spaces or control characters"},
		{"bad now", vecKey, []string{"--header", vecSig, "--body", b, "--secret-stdin", "--now", "yesterday"}, "is not Unix seconds"},
		{"missing body", vecKey, []string{"--header", vecSig, "--body", b + ".nope", "--secret-stdin"}, "no such file"},
		{"stray argument", vecKey, []string{"--header", vecSig, "--body", b, "--secret-stdin", "x.json"}, "unexpected argument"},
		{"unknown profile", "", []string{"--header", vecSig, "--body", b, "-c", "nope"}, `no profile "nope"`},
		{"no stored secret", "", []string{"--header", vecSig, "--body", b, "-c", "acme"}, "store it with 'b2bx event set-secret -c acme'"},
		{"bad key id", "", []string{"--header", vecSig, "--body", b, "-c", "acme", "--key-id", "a b"}, "--key-id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := ev.run(t, tc.stdin, append([]string{"event", "verify"}, tc.args...)...)
			require.Equal(t, exitUsage, code, errOut)
			require.Contains(t, errOut, tc.stderr)
		})
	}
}

func TestEventSecretFromProfile(t *testing.T) {
	ev := newEventEnv(t)
	b := writeTemp(t, "body.json", vecBody)
	code, out, errOut := ev.run(t, vecKey+"\n", "event", "set-secret", "-c", "acme", "--secret-stdin")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "(b2bx / acme/webhook)")
	v, err := ev.store.Get(context.Background(), "acme", "webhook")
	require.NoError(t, err)
	require.Equal(t, vecKey, v.Reveal())

	code, out, errOut = ev.run(t, "", "event", "verify", "--body", b, "--header", vecSig, "--now", "1700000000", "-c", "acme")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "valid")

	// A rotation: the receiver tries both stored secrets.
	require.NoError(t, ev.store.Set(context.Background(), "acme", "webhook", secret.New(eventCanary)))
	require.NoError(t, ev.store.Set(context.Background(), "acme", "webhook-old", secret.New(vecKey)))
	code, out, _ = ev.run(t, "", "event", "verify", "--body", b, "--header", vecSig, "--now", "1700000000", "-c", "acme")
	require.Equal(t, exitFileError, code)
	require.Contains(t, out, "under the 1 secret")
	code, out, _ = ev.run(t, "", "event", "verify", "--body", b, "--header", vecSig, "--now", "1700000000", "-c", "acme", "--key-id", "webhook,webhook-old")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "matches secret 2")

	// An unreachable keyring is a local storage failure (exit 5).
	ev.store.FailWith(credentials.ErrNoService)
	code, _, errOut = ev.run(t, "", "event", "verify", "--body", b, "--header", vecSig, "-c", "acme")
	require.Equal(t, exitStorage, code)
	require.Contains(t, errOut, "keyring")

	code, _, errOut = ev.run(t, "x\n", "event", "set-secret", "-c", "nope", "--secret-stdin")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `no profile "nope"`)
	code, _, errOut = ev.run(t, "a\nb\n", "event", "set-secret", "-c", "acme", "--secret-stdin")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "exactly one secret")
	code, _, errOut = ev.run(t, "", "event", "set-secret", "-c", "acme")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "pass --secret-stdin")
}

func TestEventSign(t *testing.T) {
	ev := newEventEnv(t)
	b := writeTemp(t, "body.json", vecBody)
	code, out, errOut := ev.run(t, vecKey+"\n", "event", "sign", "--body", b, "--secret-stdin", "--t", "1700000000")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "X-NB2B-Signature: "+vecSig+"\n", out)
	code, out, _ = ev.run(t, vecKey, "event", "sign", "--body", b, "--secret-stdin", "--t", "1700000000", "--value")
	require.Equal(t, exitOK, code)
	require.Equal(t, vecSig+"\n", out)

	// Without --t it signs with the current time, which verify accepts.
	code, out, _ = ev.run(t, eventCanary, "event", "sign", "--body", b, "--secret-stdin")
	require.Equal(t, exitOK, code)
	code, vout, errOut := ev.run(t, eventCanary, "event", "verify", "--body", b, "--secret-stdin", "--header", strings.TrimSpace(out))
	require.Equal(t, exitOK, code, vout+errOut)

	for _, args := range [][]string{{"--body", b}, {"--secret-stdin"}, {"--body", "-", "--secret-stdin"}, {"--body", b, "--secret-stdin", "--t", "-5"}} {
		code, _, errOut = ev.run(t, vecKey, append([]string{"event", "sign"}, args...)...)
		require.Equal(t, exitUsage, code, "%v: %s", args, errOut)
	}
	code, _, errOut = ev.run(t, "a\nb", "event", "sign", "--body", b, "--secret-stdin")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "exactly one secret")
}

func TestEventInspectExitCodes(t *testing.T) {
	ev := newEventEnv(t)
	tests := []struct {
		path  string
		stdin string
		extra []string
		code  int
		out   []string
	}{
		{"valid_event.json", "", nil, exitOK, []string{"1 delivery, 1 event, 0 error(s), 0 warning(s)", "No findings."}},
		{"key_form.json", "", nil, exitOK, []string{"0 error(s), 2 warning(s)", "warning KEY_FORM"}},
		{"batch_issues.json", "", nil, exitFileError, []string{
			"#6   parked    seq 6",
			"processed up to 3; parked 6 (NB-E006); the sender must replay 4-5",
			"error   DUPLICATE_CONFLICT NB-E005  #4 evt-0002 idempotencykey:",
			"warning DUPLICATE NB-E005  #3 evt-0001",
			"error   SEQUENCE_REGRESSION  #5",
		}},
		{"inline_pdf.json", "", nil, exitFileError, []string{"error   INLINE_PDF  #0 evt-0001 data.coa"}},
		{"bad_envelope.json", "", nil, exitFileError, []string{"SPECVERSION", "TYPE_FORMAT"}},
		{"captures", vecKey, []string{"--secret-stdin"}, exitFileError, []string{
			"valid (v1 1, secret 1, t=1741775460, skew 5s against the Date header)",
			"INVALID (NB-E008)", "error   SIGNATURE_INVALID NB-E008  D2:",
		}},
		{"captures", vecKey, []string{"--secret-stdin", "--now", "1741775470"}, exitFileError, []string{"skew 10s against --now"}},
		{"captures", "", nil, exitOK, []string{"not verified (see findings)", "SIGNATURE_NOT_CHECKED"}},
	}
	for _, tc := range tests {
		t.Run(tc.path+strings.Join(tc.extra, ""), func(t *testing.T) {
			code, out, errOut := ev.run(t, tc.stdin, append([]string{"event", "inspect", evTestdata + tc.path}, tc.extra...)...)
			require.Equal(t, tc.code, code, errOut)
			for _, s := range tc.out {
				require.Contains(t, out, s)
			}
		})
	}
	code, _, errOut := ev.run(t, "", "event", "inspect", evTestdata+"nope.json")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "capture cannot be read")
	code, _, _ = ev.run(t, "", "event", "inspect")
	require.Equal(t, exitUsage, code)
	// Several inputs are one set, in the order given.
	code, out, _ := ev.run(t, "", "event", "inspect", evTestdata+"valid_event.json", evTestdata+"valid_event.json")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "DUPLICATE NB-E005  #1")
}

func TestEventInspectJSON(t *testing.T) {
	ev := newEventEnv(t)
	code, out, errOut := ev.run(t, eventCanary, "event", "inspect", evTestdata+"captures", "--json", "--secret-stdin")
	require.Equal(t, exitFileError, code, errOut)
	var doc struct {
		Inputs     []string `json:"inputs"`
		Deliveries []struct {
			Name      string         `json:"name"`
			Batch     bool           `json:"batch"`
			Events    []int          `json:"events"`
			Signature *events.Result `json:"signature"`
			Rejected  bool           `json:"rejected"`
		} `json:"deliveries"`
		Events   []events.Event   `json:"events"`
		Streams  []events.Stream  `json:"streams"`
		Findings []events.Finding `json:"findings"`
		Errors   int              `json:"errors"`
		Warnings int              `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Equal(t, []string{evTestdata + "captures"}, doc.Inputs)
	require.Len(t, doc.Deliveries, 3)
	require.True(t, doc.Deliveries[1].Batch)
	require.Equal(t, 3, doc.Errors, "the wrong secret fails all three signatures")
	require.Equal(t, events.CodeSignatureInvalid, doc.Findings[0].Code)
	require.Equal(t, "NB-E008", doc.Findings[0].Platform)
	require.Len(t, doc.Events, 4)
	require.Equal(t, events.OutcomeRejected, doc.Events[0].Outcome)

	code, out, _ = ev.run(t, "", "event", "inspect", evTestdata+"nope", "--json")
	require.Equal(t, exitUsage, code)
	require.Contains(t, out, `"error"`)
}

// TestEventInspectSanitises plants terminal escapes and bidi overrides in
// event fields and a file name: the human output shows them escaped, the
// JSON escapes the dangerous runes.
func TestEventInspectSanitises(t *testing.T) {
	ev := newEventEnv(t)
	evil := map[string]any{
		"specversion": "2.0", "id": "evt\x1b]0;pwned\x07-\u202e1", "type": "nutrab2b.x.y.v1\x1b[2J",
		"source": "s", "subject": "PO\r1", "time": "2025-03-12T10:30:00Z", "sender": "4012345000009",
		"receiver": "4000001000005", "correlationid": "c", "idempotencykey": "k\u009b31m", "sequence": 1, "env": "prod", "data": map[string]any{},
	}
	raw, err := json.Marshal(evil)
	require.NoError(t, err)
	p := writeTemp(t, "evil\x1b[31m.json", string(raw))
	code, out, errOut := ev.run(t, "", "event", "inspect", p)
	require.Equal(t, exitFileError, code, errOut)
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u009b", "\r"} {
		require.NotContains(t, out, bad)
	}
	require.Contains(t, out, "evt^[]0;pwned^G-<U+202E>1")
	code, out, _ = ev.run(t, "", "event", "inspect", p, "--json")
	require.Equal(t, exitFileError, code)
	for _, bad := range []string{"\x1b", "\u202e", "\u009b"} {
		require.NotContains(t, out, bad)
	}
	require.Contains(t, out, `\u202e`)
}

func TestEventInspectJWKS(t *testing.T) {
	ev := newEventEnv(t)
	code, out, errOut := ev.run(t, "", "event", "inspect", evTestdata+"jws/signed_batch.json", "--jwks", evTestdata+"jws/jwks.json")
	require.Equal(t, exitFileError, code, errOut)
	require.Contains(t, out, `info    JWS_VALID  #0 evt-j1 signature: envelope.signature verifies: EdDSA by kid "ed-1"`)
	require.Contains(t, out, `info    JWS_VALID  #1 evt-j2 signature: envelope.signature verifies: ES256 by kid "es-1"`)
	require.Contains(t, out, "error   JWS_INVALID  #2")
	require.Contains(t, out, `kid "ed-old" is not in the JWKS`)

	bad := writeTemp(t, "jwks.json", `{"keys":[]}`)
	code, _, errOut = ev.run(t, "", "event", "inspect", evTestdata+"jws/signed_batch.json", "--jwks", bad)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "none of its 0 keys")
	code, _, _ = ev.run(t, "", "event", "inspect", evTestdata+"jws/signed_batch.json", "--jwks", bad+".missing")
	require.Equal(t, exitUsage, code)
}
