package upload

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

const genKey = "4012345000009:PO-4711:orders:1"

func TestPickerTypesAndSelect(t *testing.T) {
	e := newSimEnv(t)
	e.file(t, "a-notes.md", []byte("hello"))
	e.file(t, "po.edi", orderstest.Orders("REF1", 1, "PO-4711"))
	m := e.open(t, Options{})
	require.Equal(t, stagePick, m.stage)
	v := m.View()
	require.Contains(t, v, "po.edi")
	require.Contains(t, v, "a-notes.md", "other files are listed, but cannot be chosen")
	require.Contains(t, v, "dir "+e.dir)

	// The first row is a-notes.md: not an EDIFACT extension.
	m = press(t, m, "enter")
	require.Equal(t, stagePick, m.stage)
	require.Contains(t, m.View(), "a-notes.md is not an .edi, .edifact or .txt file: press a to show all files")

	m = press(t, m, "a", "enter")
	require.Equal(t, stageReport, m.stage, "with all files, any file can be chosen")
	require.True(t, m.plan.Preflight.Blocked())
	require.Contains(t, m.View(), "blocked:")

	m = press(t, m, "esc", "a", "down", "enter")
	require.Equal(t, stageReport, m.stage)
	require.Equal(t, genKey, m.plan.Key)
	require.Contains(t, m.View(), "Idempotency-Key  "+genKey)

	m = press(t, m, "esc")
	require.Equal(t, stagePick, m.stage)
	require.Contains(t, m.View(), "nothing was sent")
	m = press(t, m, "esc")
	require.True(t, m.Done(), "esc on the file list closes the screen")
	require.Zero(t, e.inboxRequests())
}

func TestBlockedPreflightSendsNothing(t *testing.T) {
	e := newSimEnv(t)
	two := append(orderstest.Orders("R1", 1, "PO-1"), orderstest.Orders("R2", 1, "PO-2")...)
	for _, tc := range []struct{ name, want string }{
		{"empty.edi", "is empty: nothing to upload"},
		{"two.edi", "contains 2 interchanges"},
		{"rsp.edi", "only ORDERS can be uploaded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := map[string][]byte{"empty.edi": nil, "two.edi": two,
				"rsp.edi": []byte("UNB+UNOC:3+4012345000009:14+4098765000003:14+250602:0800+R1'UNH+1+ORDRSP:D:96A:UN'BGM+231+X+9'UNT+3+1'UNZ+1+R1'")}[tc.name]
			m := e.open(t, Options{Path: e.file(t, tc.name, data)})
			require.Equal(t, stageReport, m.stage)
			v := m.View()
			require.Contains(t, v, "blocked:")
			require.Contains(t, v, tc.want)
			require.NotContains(t, v, "Idempotency-Key", "no key for a payload that cannot go")
			m = press(t, m, "y", "enter", "e", "r", "n")
			require.Equal(t, stageReport, m.stage, "no key sends it")
			require.False(t, m.Capturing())
		})
	}
	require.Zero(t, e.inboxRequests())
	require.Empty(t, e.history(t), "nothing recorded either")
}

func TestUnreadableFile(t *testing.T) {
	e := newSimEnv(t)
	m := e.open(t, Options{Path: e.dir + "/missing.edi"})
	require.Equal(t, stageReport, m.stage)
	require.Contains(t, m.View(), "cannot read the file")
	require.Contains(t, m.View(), "nothing was sent")

	// A directory opens the picker there.
	m = e.open(t, Options{Path: t.TempDir(), Dir: e.dir})
	require.Equal(t, stagePick, m.stage)
	require.NotEqual(t, e.dir, m.cwd())
}

func TestSendAcceptedThenChoice(t *testing.T) {
	e := newSimEnv(t)
	po := e.file(t, "po.edi", orderstest.Orders("REF1", 1, "PO-4711"))
	m := e.open(t, Options{Path: po})
	require.Equal(t, genKey, m.plan.Key)
	require.Contains(t, m.View(), "first upload for this sender and business id")

	m = press(t, m, "y")
	require.Equal(t, stageResult, m.stage)
	v := m.View()
	require.Contains(t, v, "202 accepted")
	require.Contains(t, v, "upload id")
	require.Contains(t, v, genKey)
	require.NotContains(t, v, "R retry", "no retry after a success")
	require.Len(t, e.sim.Uploads(testConn), 1)

	// The same file again: replay / new / abort.
	m = press(t, m, "enter")
	require.Equal(t, stagePick, m.stage)
	m = e.open(t, Options{Path: po})
	require.True(t, m.plan.NeedsChoice())
	v = m.View()
	require.Contains(t, v, "already accepted under key "+genKey)
	require.Contains(t, v, "new upload: key 4012345000009:PO-4711:orders:2")
	m = press(t, m, "y", "enter")
	require.Equal(t, stageReport, m.stage, "no send before the choice")
	m = press(t, m, "N")
	require.Equal(t, stagePick, m.stage)
	require.Contains(t, m.View(), "aborted; nothing was sent")
	require.Equal(t, 1, e.inboxRequests())

	m = e.open(t, Options{Path: po})
	m = press(t, m, "n")
	require.Equal(t, "4012345000009:PO-4711:orders:2", m.plan.Key)
	m = press(t, m, "enter")
	require.Contains(t, m.View(), "202 accepted")
	require.Len(t, e.sim.Uploads(testConn), 2)
}

func TestWarningsNeedConfirmation(t *testing.T) {
	e := newSimEnv(t)
	data := "UNB+UNOA:3+SENDER:14+RECEIVER:14+250312:1030+W1++++++1'" +
		"UNH+1+ORDERS:D:96A:UN'BGM+220+a-1+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+W1'"
	m := e.open(t, Options{Path: e.file(t, "w.edi", []byte(data))})
	require.True(t, m.needsConfirm())
	v := m.View()
	require.Contains(t, v, "warning(s) above: send anyway?")
	require.NotContains(t, v, "Idempotency-Key")
	m = press(t, m, "enter")
	require.True(t, m.needsConfirm(), "enter does not confirm warnings")
	m = press(t, m, "y")
	require.False(t, m.needsConfirm())
	require.Contains(t, m.View(), "Idempotency-Key  SENDER:a-1:orders:1")
	require.Zero(t, e.inboxRequests(), "confirming is not sending")
	m = press(t, m, "y")
	require.Contains(t, m.View(), "202 accepted")
	require.Equal(t, 1, e.inboxRequests())
}

func TestEditKeyValidatedLive(t *testing.T) {
	e := newSimEnv(t)
	m := e.open(t, Options{Path: e.file(t, "po.edi", orderstest.Orders("REF1", 1, "PO-4711"))})
	m = press(t, m, "e")
	require.True(t, m.Capturing(), "the key input takes every key")
	require.Contains(t, m.View(), "key: "+genKey)

	m = typeText(t, m, " x")
	require.Contains(t, m.View(), "character U+0020 at byte 30 is not allowed")
	m = press(t, m, "enter")
	require.True(t, m.editing, "an invalid key is not taken")
	require.Equal(t, genKey, m.plan.Key)

	m = press(t, m, "backspace", "backspace")
	require.Contains(t, m.View(), "✓ valid")
	m = typeText(t, m, ".manual")
	m = press(t, m, "enter")
	require.False(t, m.Capturing())
	want := genKey + ".manual"
	require.Equal(t, want, m.plan.Key)
	require.Contains(t, m.View(), "a key you chose")

	// esc in the input keeps the key.
	m = press(t, m, "e")
	m = typeText(t, m, "zzz")
	m = press(t, m, "esc")
	require.Equal(t, want, m.plan.Key)

	m = press(t, m, "y")
	require.Contains(t, m.View(), "202 accepted")
	require.Equal(t, want, e.sim.Uploads(testConn)[0].IdempotencyKey)
	h := e.history(t)
	require.Zero(t, h[len(h)-1].N, "a typed key is outside the numbering")
}

func TestNetworkFailureOffersRetryWithSameKey(t *testing.T) {
	e := newSimEnv(t)
	m := e.open(t, Options{Path: e.file(t, "po.edi", orderstest.Orders("REF1", 1, "PO-4711"))})
	e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointInbox, DropResponse: true})
	m = press(t, m, "y")
	require.Equal(t, stageResult, m.stage)
	v := m.View()
	require.Contains(t, v, "no answer (network)")
	require.Contains(t, v, "may have arrived")
	require.Contains(t, v, "Press R to retry: it reuses the key")
	require.Contains(t, v, "R retry with the same key")

	e.sim.ClearFaults()
	m = press(t, m, "R")
	v = m.View()
	require.Contains(t, v, "200 replay of the earlier upload")
	require.Contains(t, v, genKey)
	require.Len(t, e.sim.Uploads(testConn), 1, "the retry created no duplicate")
	for _, r := range e.history(t) {
		require.Equal(t, genKey, r.Key)
	}
}

func TestErrorResultShowsCodeAndAction(t *testing.T) {
	e := newSimEnv(t)
	m := e.open(t, Options{Path: e.file(t, "po.edi", orderstest.Orders("REF1", 1, "PO-4711"))})
	e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointInbox, Status: 409})
	m = press(t, m, "y")
	v := strings.ReplaceAll(m.View(), "\n", " ")
	require.Contains(t, v, "409 ERR_B2B_EXCHANGE_CONFLICT")
	require.Contains(t, v, "check idempotency or a state change")
	require.Contains(t, v, "next upload of this file takes the next key number")
	require.NotContains(t, v, "R retry")
	m = press(t, m, "R")
	require.Equal(t, stageResult, m.stage, "no retry of a 409")
	require.Equal(t, 1, e.inboxRequests())
}

func TestStaleResultsDropped(t *testing.T) {
	e := newSimEnv(t)
	po := e.file(t, "po.edi", orderstest.Orders("REF1", 1, "PO-4711"))
	m := e.open(t, Options{})
	m, cmd := m.startPlan(po)
	require.Equal(t, stagePlanning, m.stage)
	msg := cmd().(planMsg)

	other := msg
	other.owner = testTab + 1
	m2, _ := m.Update(other)
	require.Equal(t, stagePlanning, m2.stage, "another tab's result is not ours")

	m = press(t, m, "esc") // back to the list before the answer came
	require.Equal(t, stagePick, m.stage)
	m, _ = m.Update(msg)
	require.Equal(t, stagePick, m.stage, "a late plan is dropped")
	require.Nil(t, m.plan)

	m, _ = m.Update(sentMsg{owner: testTab, req: msg.req})
	require.Equal(t, stagePick, m.stage, "an answer no one waits for is dropped")
}

func TestHistoryView(t *testing.T) {
	e := newSimEnv(t)
	m := e.open(t, Options{})
	m = press(t, m, "H")
	require.Contains(t, m.View(), "no uploads on this connection yet")
	m = press(t, m, "H")
	require.Contains(t, m.View(), "choose a file", "H again closes the history")

	m = e.open(t, Options{Path: e.file(t, "po.edi", orderstest.Orders("REF1", 1, "PO-4711"))})
	m = press(t, m, "y", "H")
	v := m.View()
	up := e.sim.Uploads(testConn)[0]
	require.Contains(t, v, "Upload history")
	require.Contains(t, v, genKey)
	require.Contains(t, v, "uploadId "+up.ID)
	require.Contains(t, v, "accepted  202")
	require.Equal(t, 1, strings.Count(v, genKey), "reservation and result are one line")
	m = press(t, m, "esc")
	require.Contains(t, m.View(), "202 accepted", "esc closes the history, the result is still there")
	require.Equal(t, spool.OutcomeAccepted, e.history(t)[1].Outcome)
}

// TestHostileNamesAndText: a file name that tries to retitle the
// terminal shows as visible escapes in every screen, and no frame holds
// an escape byte (styles are off) or the API secret.
func TestHostileNamesAndText(t *testing.T) {
	e := newSimEnv(t)
	name := "po\x1b]0;owned\x07\u202e.edi"
	p := e.file(t, name, orderstest.Orders("REF1", 1, "PO-4711"))
	e.file(t, "x\x1b[2J.edi", nil)
	m := e.open(t, Options{})
	frames := []string{m.View()}
	m = press(t, m, "down", "enter")
	frames = append(frames, m.View())
	m = e.open(t, Options{Path: p})
	frames = append(frames, m.View())
	m = press(t, m, "y")
	frames = append(frames, m.View())
	m = press(t, m, "H")
	frames = append(frames, m.View())
	for _, f := range frames {
		require.NotContains(t, f, "\x1b")
		require.NotContains(t, f, "\x07")
		require.NotContains(t, f, "\u202e")
		require.NotContains(t, f, canarySecret)
	}
	require.Contains(t, strings.Join(frames, "\n"), "po^[]0;owned^G<U+202E>.edi")
}

func TestHelpFollowsStage(t *testing.T) {
	e := newSimEnv(t)
	names := func(m Model) string {
		var out []string
		for _, b := range m.ShortHelp() {
			out = append(out, b.Help().Key)
		}
		return strings.Join(out, " ")
	}
	m := e.open(t, Options{})
	require.Equal(t, "enter a H esc", names(m))
	po := e.file(t, "po.edi", orderstest.Orders("REF1", 1, "PO-4711"))
	m = e.open(t, Options{Path: po})
	require.Equal(t, "y/enter e H esc", names(m))
	m = press(t, m, "e")
	require.Equal(t, "enter esc", names(m))
	m = press(t, m, "esc", "y")
	require.Equal(t, "H esc", names(m))
	m = e.open(t, Options{Path: po})
	require.Equal(t, "r n esc", names(m))
	require.Len(t, m.FullHelp(), 3)
}

// TestLongTextsWrap: at 80 columns the blocking reason keeps what to do,
// and a network error keeps its correlation ID (wrapped, not cut).
func TestLongTextsWrap(t *testing.T) {
	e := newSimEnv(t)
	two := append(orderstest.Orders("R1", 1, "PO-1"), orderstest.Orders("R2", 1, "PO-2")...)
	m := e.open(t, Options{Path: e.file(t, "two.edi", two)}).SetSize(80, 24)
	v := strings.Join(strings.Fields(m.View()), " ")
	require.Contains(t, v, "split the file at each UNB and upload them one by one")

	m = e.open(t, Options{Path: e.file(t, "po.edi", orderstest.Orders("REF1", 1, "PO-1"))}).SetSize(80, 24)
	e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointInbox, DropResponse: true})
	m = press(t, m, "y")
	corr := m.out.Record.CorrelationID
	require.NotEmpty(t, corr)
	require.Equal(t, 2, strings.Count(m.View(), corr), "in the fields and in the error text")
	for _, l := range strings.Split(m.View(), "\n") {
		require.LessOrEqual(t, len([]rune(l)), 80)
	}
}
