package eventview

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// demoKey is the webhook secret apiclient/events/testdata/captures are signed with.
const demoKey = "demo-webhook-key"

// selected is the code of the selected finding.
func selected(m Model) events.Code {
	return m.rep.raw.Findings[m.visible[m.cursor]].Code
}

func requireContains(t *testing.T, view string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		require.Contains(t, view, w, "view:\n%s", view)
	}
}

// TestReportBatch: a batch with a redelivery, a changed body under the
// same key, a regression and a gap shows the counts, the stream's
// missing sequences, NB-E005 and NB-E006, and each view.
func TestReportBatch(t *testing.T) {
	m := opened(t, testdata("batch_issues.json"), 120, 40)
	v := m.View()
	requireContains(t, v,
		"1 delivery, 7 events", "✗ 3 error(s)", "2 warning(s)", "2 processed, 1 released, 1 parked, 2 duplicate, 1 rejected",
		"✗ 4012345000009 / PO-4711: the sender must replay 4-5 · parked 6 (NB-E006) · 1 regression rejected: 2",
		"[Findings 6]", "Duplicates 2",
		"! warning DUPLICATE NB-E005  #3 evt-0001 idempotencykey",
		"✗ error   DUPLICATE_CONFLICT NB-E005  #4 evt-0002 idempotencykey",
		"✗ error   SEQUENCE_GAP NB-E006  #6 evt-0006 sequence",
		"signatures: 1 without headers")

	m = press(t, m, "tab")
	requireContains(t, m.View(), "[Streams 1]", "✗ sender 4012345000009 · subject PO-4711",
		"processed 1-3 · parked 6 (NB-E006) · the sender must replay 4-5 · 1 regression rejected: 2")
	m = press(t, m, "tab")
	requireContains(t, m.View(), "[Duplicates 2]",
		"! #3 evt-0001 key 4012345000009:PO-4711:confirmed:1 → DUPLICATE + the original result of #0: processed (NB-E005)",
		"✗ #4 evt-0002 key 4012345000009:PO-4711:confirmed:2 → DUPLICATE + the original result of #2: processed (NB-E005)",
		"silently drops this version")
	m = press(t, m, "tab")
	requireContains(t, m.View(), "[Signatures 1]", "· D0 batch_issues.json: headers not captured")
	m = press(t, m, "shift+tab", "shift+tab", "shift+tab")
	require.Equal(t, secFindings, m.section)
}

// TestSelectionShowsEnvelope: moving the cursor selects a finding; the
// detail pane shows its whole message and its event's envelope.
func TestSelectionShowsEnvelope(t *testing.T) {
	m := opened(t, testdata("batch_issues.json"), 120, 40)
	require.Equal(t, events.CodeOutOfOrder, selected(m))
	m = press(t, m, "j", "j")
	require.Equal(t, events.CodeDuplicateConflict, selected(m))
	v := m.View()
	requireContains(t, v, "> ✗ error   DUPLICATE_CONFLICT NB-E005",
		"Finding DUPLICATE_CONFLICT NB-E005 · #4 evt-0002 idempotencykey",
		"silently drops this version",
		"outcome duplicate (answered DUPLICATE, NB-E005) · event #4 · 434 bytes · delivery D0 batch_issues.json, batch position 4",
		"id evt-0002 · type nutrab2b.orders.confirmed.v2",
		"sender 4012345000009 → receiver 4000001000005 · subject PO-4711 · sequence 2",
		"idempotencykey 4012345000009:PO-4711:confirmed:2",
		"correlationid corr-PO-4711 · causationid -")
	require.NotContains(t, v, "Finding SEQUENCE_OUT_OF_ORDER")

	m = press(t, m, "G")
	require.Equal(t, events.CodeSequenceGap, selected(m))
	requireContains(t, m.View(), "Finding SEQUENCE_GAP NB-E006", "outcome parked (NB-E006, waits for the gap)", "causationid evt-9999")
	m = press(t, m, "g")
	require.Equal(t, 0, m.cursor)
	m = press(t, m, "k") // stays on the first
	require.Equal(t, 0, m.cursor)

	// A delivery-level finding shows the delivery and its signature.
	m = opened(t, testdata("captures"), 120, 40)
	m = press(t, m, "j") // TRAILING_BYTES of D1
	requireContains(t, m.View(), "Finding TRAILING_BYTES · D1 002.http",
		"delivery D1 002.http · 735 bytes · batch of 2 events", "D1 002.http: not verified: give the webhook secret")
}

// TestFilter: / filters while typing (every key goes to the input, so q
// or j are text), enter keeps the filter, esc clears it.
func TestFilter(t *testing.T) {
	m := opened(t, testdata("batch_issues.json"), 120, 40)
	m = press(t, m, "/")
	require.True(t, m.Capturing())
	m = press(t, m, "n", "b", "-", "e", "0", "0", "5")
	require.Len(t, m.visible, 2)
	require.Equal(t, events.CodeDuplicate, selected(m))
	requireContains(t, m.View(), "[Findings 2 of 6 /nb-e005]", "/nb-e005")
	m = press(t, m, "enter")
	require.False(t, m.Capturing())
	m = press(t, m, "j")
	require.Equal(t, events.CodeDuplicateConflict, selected(m))
	require.NotContains(t, m.View(), "SEQUENCE_GAP")

	// Several words must all match; the selection survives when it still matches.
	m = press(t, m, "/", " ", "c", "o", "n", "f", "l", "i", "c", "t", "enter")
	require.Len(t, m.visible, 1)
	require.Equal(t, events.CodeDuplicateConflict, selected(m))

	m = press(t, m, "/", "z", "z", "z")
	require.Empty(t, m.visible)
	requireContains(t, m.View(), "no finding matches /nb-e005 conflictzzz")
	m = press(t, m, "esc") // esc in the input drops the filter
	require.False(t, m.Capturing())
	require.Len(t, m.visible, 6)

	m = press(t, m, "/", "q", "enter")
	require.False(t, m.Done(), "q typed into the filter must not close anything")
	m = press(t, m, "esc") // esc outside the input clears the filter first
	require.Len(t, m.visible, 6)
	require.False(t, m.Done())
	m = press(t, m, "esc")
	require.True(t, m.Done())
}

// TestSecretTyped: the typed secret is masked while typed, gone from the
// input once accepted, never in the view; the checks re-run with it.
func TestSecretTyped(t *testing.T) {
	const canary = "CANARY-whsec-7f3a9"
	m := opened(t, testdata("captures"), 120, 40)
	requireContains(t, m.View(), "signatures: 3 not verified (no secret)", "secret: none (s: type it)")

	m = press(t, m, "s")
	require.True(t, m.Capturing())
	for _, r := range canary {
		m = press(t, m, string(r))
		require.NotContains(t, m.View(), canary[:4], "the secret is echoed while typed")
	}
	requireContains(t, m.View(), "webhook secret: "+strings.Repeat("•", len(canary)))
	m = press(t, m, "enter")
	require.Empty(t, m.secretIn.Value(), "the input still holds the secret")
	require.Equal(t, "typed", m.secretFrom)
	v := m.View()
	require.NotContains(t, v, canary)
	requireContains(t, v, "secret: typed (x: forget)", "signatures: 3 invalid (NB-E008)")
	m = press(t, m, "tab", "tab", "tab")
	v = m.View()
	require.NotContains(t, v, canary)
	requireContains(t, v, "✗ D0 001.json: invalid (NB-E008): no v1 (1 given) matches")

	// The right secret: every signature verifies, with the skew against
	// the captured Date header.
	m = press(t, m, "s")
	for _, r := range demoKey {
		m = press(t, m, string(r))
	}
	m = press(t, m, "enter")
	v = m.View()
	require.NotContains(t, v, demoKey)
	requireContains(t, v, "signatures: 2 valid, 1 invalid (NB-E008)", // 003.http's body was changed after signing
		"✓ D0 001.json: valid (v1 1, secret 1, t=1741775460, skew 5s against the Date header, ±300s allowed)")

	// x forgets it and re-runs.
	m = press(t, m, "x")
	require.Nil(t, m.secrets)
	requireContains(t, m.View(), "signatures: 3 not verified (no secret)", "webhook secret forgotten")

	// A paste mistake is refused without quoting it; esc keeps the old one.
	m = press(t, m, "s", "a", " ", "b", "enter")
	require.Nil(t, m.secrets)
	requireContains(t, m.View(), "the secret contains spaces or control characters")
	m = press(t, m, "s", "c", "esc")
	require.Nil(t, m.secrets)
	require.Empty(t, m.secretIn.Value())
}

// TestSecretFromKeyring: K reads <profile>/webhook from the store; a
// missing one says how to store it.
func TestSecretFromKeyring(t *testing.T) {
	ctx := context.Background()
	store := credentials.NewMemoryStore()
	m := New(testCommon(120, 40), Options{Path: testdata("captures"), Profile: "acme", Store: store})
	m = run(t, m, m.Init())
	requireContains(t, m.View(), "secret: none (s: type it, K: profile acme)")

	m = press(t, m, "K")
	require.Nil(t, m.secrets)
	requireContains(t, m.View(), "no webhook secret stored for profile acme (keyring b2bx / acme/webhook): store it with 'b2bx event set-secret -c acme'")

	require.NoError(t, store.Set(ctx, "acme", credentials.WebhookKeyID, secret.New(demoKey)))
	m = press(t, m, "K")
	v := m.View()
	require.NotContains(t, v, demoKey)
	requireContains(t, v, "secret: profile acme (keyring)", "signatures: 2 valid, 1 invalid (NB-E008)")

	// Without an active profile there is nothing to read.
	m = opened(t, testdata("captures"), 120, 40)
	m = press(t, m, "K")
	requireContains(t, m.View(), "no connection tab is active")
}

// TestStaleResultDropped: a result for another request (an earlier run,
// or a screen closed meanwhile) changes nothing.
func TestStaleResultDropped(t *testing.T) {
	m := opened(t, testdata("batch_issues.json"), 120, 40)
	m, cmd := m.Update(keyMsg("r"))
	require.Equal(t, stageLoading, m.stage)
	fresh := cmd().(loadedMsg)
	stale := fresh
	stale.req = fresh.req - 1
	stale.rep = events.Report{}
	m, _ = m.Update(stale)
	require.Equal(t, stageLoading, m.stage)
	m, _ = m.Update(fresh)
	require.Equal(t, stageReport, m.stage)
	require.Len(t, m.rep.findings, 6)

	// esc while loading: the result that comes later is dropped.
	m, cmd = m.Update(keyMsg("r"))
	m = press(t, m, "esc")
	require.Equal(t, stageReport, m.stage)
	late := cmd().(loadedMsg)
	late.rep = events.Report{}
	m, _ = m.Update(late)
	require.Len(t, m.rep.findings, 6)

	// A keyring answer nobody waits for is dropped too.
	m, _ = m.Update(secretMsg{req: 1, v: secret.New("x")})
	require.Nil(t, m.secrets)
}

// TestLoadError: a path that cannot be read says so and what to do; o
// goes to the picker, esc there back to the error, esc again closes.
func TestLoadError(t *testing.T) {
	m := opened(t, testdata("no-such-capture.json"), 120, 40)
	requireContains(t, m.View(), "✗ ", "no-such-capture.json", "o: pick another file or directory · r: try again · esc: close")
	m = press(t, m, "o")
	require.Equal(t, stagePick, m.stage)
	m = press(t, m, "esc")
	require.Equal(t, stageReport, m.stage)
	require.False(t, m.Done())
	m = press(t, m, "esc")
	require.True(t, m.Done())
}

// TestPicker: the picker offers captures, d inspects the directory, p
// takes a typed path, enter on a file inspects it, a shows all files.
func TestPicker(t *testing.T) {
	m := New(testCommon(120, 40), Options{Dir: testdata("captures")})
	m = pickerReady(t, m)
	requireContains(t, m.View(), "> ", "001.headers", "001.json", "002.http", "003.http", "d: inspect this whole directory")
	m = press(t, m, "enter") // 001.headers is not a capture
	require.Equal(t, stagePick, m.stage)
	requireContains(t, m.View(), "001.headers is not a capture (.json, .http): press a to show all files")
	m = press(t, m, "a")
	requireContains(t, m.View(), "showing all files")
	m = press(t, m, "a")
	requireContains(t, m.View(), "showing captures")

	m = press(t, m, "d")
	require.Equal(t, stageReport, m.stage)
	require.Len(t, m.rep.raw.Deliveries, 3)

	m = press(t, m, "o")
	m = pickerReady(t, m)
	m = press(t, m, "j", "j", "enter") // 002.http
	require.Equal(t, stageReport, m.stage)
	require.Len(t, m.rep.raw.Deliveries, 1)
	require.Contains(t, m.path, "002.http")

	m = press(t, m, "o", "p")
	require.True(t, m.Capturing())
	for _, r := range "003.http" {
		m = press(t, m, string(r))
	}
	m = press(t, m, "enter")
	require.Equal(t, stageReport, m.stage)
	require.Contains(t, m.path, "003.http")
	requireContains(t, m.View(), "1 delivery, 1 event")

	// From the first picker esc closes the screen.
	m = pickerReady(t, New(testCommon(120, 40), Options{Dir: testdata("captures")}))
	m = press(t, m, "esc")
	require.True(t, m.Done())
}

// pickerReady runs the picker's directory read.
func pickerReady(t *testing.T, m Model) Model {
	t.Helper()
	require.Equal(t, stagePick, m.stage)
	m, _ = m.Update(m.picker.Init()())
	return m
}

// TestViewFitsEverySize: every stage and view is exactly the height and
// never wider than the width.
func TestViewFitsEverySize(t *testing.T) {
	for _, sz := range [][2]int{{80, 21}, {100, 30}, {200, 50}, {40, 8}} {
		for _, path := range []string{"batch_issues.json", "captures", "bad_envelope.json", "valid_event.json"} {
			m := opened(t, testdata(path), sz[0], sz[1])
			for s := 0; s < int(numSections); s++ {
				for _, k := range []string{"", "G", "j", "down"} {
					if k != "" {
						m = press(t, m, k)
					}
					v := m.View()
					lines := strings.Split(v, "\n")
					require.Len(t, lines, sz[1], "%s %v section %d:\n%s", path, sz, s, v)
					for _, l := range lines {
						require.LessOrEqual(t, ansi.StringWidth(l), sz[0], "%s %v: %q", path, sz, l)
					}
				}
				m = press(t, m, "tab")
			}
		}
	}
}

// TestResizeRewraps: the streams, duplicates and signatures views are
// wrapped once per width; a resize wraps them again, so nothing is cut.
func TestResizeRewraps(t *testing.T) {
	m := opened(t, testdata("batch_issues.json"), 200, 40)
	m = press(t, m, "tab")
	require.Contains(t, m.View(), "processed 1-3 · parked 6 (NB-E006) · the sender must replay 4-5 · 1 regression rejected: 2")
	m = m.SetSize(60, 21)
	v := m.View()
	requireContains(t, v, "    replay 4-5 · 1 regression rejected: 2")
	lines := strings.Split(v, "\n")
	for i, l := range lines {
		require.LessOrEqual(t, ansi.StringWidth(l), 60, l)
		if i > 4 { // below the head (which is cut) and the views bar
			require.NotContains(t, l, "…", "the view was cut, not wrapped:\n%s", v)
		}
	}
}

// TestReportHeartbeatGap: a stream with nothing parked whose HEARTBEAT
// reports more than was processed is a problem in the head and the
// streams view, with the sequences to replay.
func TestReportHeartbeatGap(t *testing.T) {
	m := opened(t, testdata("heartbeat_gap.json"), 120, 40)
	requireContains(t, m.View(),
		"✗ 4012345000009 / PO-4711: the sender must replay 3-4 · HEARTBEAT reports 4 · processed 1-2",
		"✗ error   SEQUENCE_MISSING  #2 hb-0001 data.last_sequences")
	m = press(t, m, "tab")
	requireContains(t, m.View(), "[Streams 2]", "✗ sender 4012345000009 · subject PO-4711",
		"processed 1-2 · HEARTBEAT reports 4 · the sender must replay 3-4")
}

// TestWrapKeepsIDsWhole: the streams, duplicates and detail texts wrap at
// spaces only, so an idempotency key or subject such as PO-4711 is never
// split at its hyphen, at any width.
func TestWrapKeepsIDsWhole(t *testing.T) {
	for w := 40; w <= 120; w++ {
		m := opened(t, testdata("batch_issues.json"), w, 40)
		for _, v := range []string{m.View(), press(t, m, "j", "j").View(), press(t, m, "tab").View(), press(t, m, "tab", "tab").View()} {
			for _, l := range strings.Split(ansi.Strip(v), "\n") {
				if l = strings.TrimRight(l, " "); strings.HasSuffix(l, "PO-") || strings.HasSuffix(l, "corr-") {
					t.Fatalf("width %d: a line ends inside an ID: %q\n%s", w, l, v)
				}
			}
		}
	}
}
