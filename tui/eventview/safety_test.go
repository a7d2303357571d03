package eventview

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// hostile are strings a terminal would act on: a clipboard write (OSC
// 52), a screen clear, an 8-bit CSI (C1), a bidi override and an
// isolate, a bell. They sit in fields a receiver accepts any text in, so
// the events still make a duplicate and a gap.
var hostile = map[string]string{
	"id":             `evt-\u001b]52;c;SGVsbG8=\u0007`,
	"subject":        `PO\u001b[2J\u009b31m\u202e`,
	"idempotencykey": `k\u2066ey`,
	"correlationid":  `c\u009d0;title\u0007`,
}

// inert lists what must never reach the screen raw.
var inert = []string{"\x1b", "\x07", "\u009b", "\u009d", "\u0085", "\u202e", "\u2066"}

// hostileEvent is an event whose free-text strings are hostile, with
// sequence n.
func hostileEvent(n int) string {
	var b strings.Builder
	b.WriteString(`{"specversion":"2.0","type":"nutrab2b.orders.confirmed.v2","source":"https://partner.example.com/b2b",` +
		`"time":"2025-03-12T10:31:00Z","sender":"4012345000009","receiver":"4000001000005","env":"prod","data":{}`)
	for k, v := range hostile {
		fmt.Fprintf(&b, `,%q:"%s"`, k, v)
	}
	fmt.Fprintf(&b, `,"sequence":%d}`, n)
	return b.String()
}

// rejectedEvent has hostile text where it makes errors: in type, sender
// and a field name.
const rejectedEvent = `{"specversion":"2.0\u001b[8m","type":"x\u0085y","sender":"\u202e9000004012345","\u001b]0;t\u0007":1}`

func requireInert(t *testing.T, what, view string) {
	t.Helper()
	for _, bad := range inert {
		require.NotContains(t, view, bad, "%s: %q reaches the screen:\n%q", what, bad, view)
	}
}

// TestHostileBytesInert: escape sequences, C1 controls and bidi
// overrides in an event's strings and in a file name are shown as
// visible escapes in every view, the detail pane and the picker.
func TestHostileBytesInert(t *testing.T) {
	dir := t.TempDir()
	name := "\x1b]52;c;QUJD\x07cap\u202e.json"
	// The same key twice (a duplicate), then sequences 1 and 5 (a gap).
	body := "[" + hostileEvent(1) + "," + hostileEvent(1) + "," + strings.Replace(hostileEvent(5), `k\u2066ey`, `k2`, 1) + "," + rejectedEvent + "]"
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600))

	m := opened(t, dir, 120, 40)
	require.NotEmpty(t, m.rep.dups, "the fixture must produce a duplicate")
	require.NotEmpty(t, m.rep.raw.Streams[0].Missing, "the fixture must produce a gap")
	require.Contains(t, m.View(), "^[", "escapes are shown, not dropped")
	for s := 0; s < int(numSections); s++ {
		for i := 0; i < len(m.visible) || i == 0; i++ {
			requireInert(t, fmt.Sprintf("section %d finding %d", m.section, m.cursor), m.View())
			m = press(t, m, "j")
		}
		m = press(t, m, "tab")
	}
	m = press(t, m, "/", "^", "[", "enter")
	require.NotEmpty(t, m.visible, "the filter matches what is shown")
	requireInert(t, "filtered", m.View())

	// The picker writes file names raw: each line is sanitised.
	m = press(t, m, "o")
	m = pickerReady(t, m)
	m = press(t, m, "a")
	v := m.View()
	require.Contains(t, v, "^[]52;c;QUJD^Gcap<U+202E>.json")
	requireInert(t, "picker", v)
}

// TestSignatureSkew: a signature whose t is 400 s before the captured
// Date header is NB-E008 with the skew; the secret is never drawn.
func TestSignatureSkew(t *testing.T) {
	const canary = "CANARY-skew-91c2"
	dir := t.TempDir()
	body, err := os.ReadFile(testdata("valid_event.json"))
	require.NoError(t, err)
	const ts = 1741775460
	hdr := fmt.Sprintf("X-NB2B-Signature: %s\nDate: %s\n", events.Sign(secret.New(canary), ts, body),
		time.Unix(ts+400, 0).UTC().Format(http.TimeFormat))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.json"), body, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.headers"), []byte(hdr), 0o600))

	m := opened(t, dir, 120, 40)
	m = press(t, m, "s")
	for _, r := range canary {
		m = press(t, m, string(r))
	}
	m = press(t, m, "enter", "tab", "tab", "tab")
	v := m.View()
	require.NotContains(t, v, canary)
	requireContains(t, v, "signatures: 1 invalid (NB-E008)",
		"✗ D0 a.json: invalid (NB-E008): the timestamp t=1741775460 is 400s behind the clock, more than the ±300s allowed")
	require.NotContains(t, fmt.Sprintf("%v %+v", m.secrets, m.secrets), canary)
}
