package upload

import (
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/tui/common/commontest"

	"github.com/nutrab2b/b2bx/internal/syncbuf"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

// harness stands in for the tab hosting the screen: it quits when the
// screen is done and records every frame.
type harness struct {
	m      Model
	frames *frames
}

// frames records what the screen drew, written by the program and read by the test.
type frames = syncbuf.Buffer

func (h harness) Init() tea.Cmd { return h.m.Init() }

func (h harness) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		h.m = h.m.SetSize(ws.Width, ws.Height)
		return h, nil
	}
	var cmd tea.Cmd
	h.m, cmd = h.m.Update(msg)
	if h.m.Done() {
		return h, tea.Quit
	}
	return h, cmd
}

func (h harness) View() string {
	v := h.m.View()
	h.frames.WriteString(v)
	return v
}

func startFlow(t *testing.T, e *simEnv, opts Options) (*teatest.TestModel, *frames) {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = e.dir
	}
	f := &frames{}
	m := New(newCommon(), testTab, e.conn, opts)
	t.Cleanup(m.Close)
	tm := teatest.NewTestModel(t, harness{m: m, frames: f}, teatest.WithInitialTermSize(100, 30))
	return tm, f
}

// waitFor waits until the output shows every string (commontest.WaitFor).
func waitFor(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	commontest.WaitFor(t, tm.Output(), want...)
}

func send(tm *teatest.TestModel, keys ...string) {
	for _, k := range keys {
		tm.Send(keyMsg(k))
	}
}

// TestFlowUploadReplay: pick the file, send it (202); pick the same file
// again, choose replay, send: the server answers 200 replay under the
// same key and the partner has one order.
func TestFlowUploadReplay(t *testing.T) {
	e := newSimEnv(t)
	e.file(t, "po.edi", orderstest.Orders("REF1", 7, "PO-4711"))
	tm, f := startFlow(t, e, Options{})

	waitFor(t, tm, "po.edi")
	send(tm, "enter")
	waitFor(t, tm, "Idempotency-Key", genKey)
	send(tm, "y")
	waitFor(t, tm, "202 accepted")

	send(tm, "enter") // back to the file list
	waitFor(t, tm, "choose a file")
	send(tm, "enter")
	waitFor(t, tm, "these bytes were already accepted under key "+genKey)
	send(tm, "r")
	waitFor(t, tm, "replay of an accepted upload")
	send(tm, "y")
	waitFor(t, tm, "200 replay of the earlier upload")

	send(tm, "enter", "esc")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(harness).m
	require.True(t, final.Done())
	require.Equal(t, 2, e.inboxRequests())
	ups := e.sim.Uploads(testConn)
	require.Len(t, ups, 1, "a replay is no new order")
	require.Equal(t, genKey, ups[0].IdempotencyKey)
	hist := e.history(t)
	last := hist[len(hist)-1]
	require.True(t, last.Replay)
	require.Equal(t, 200, last.HTTPStatus)
	require.Equal(t, genKey, last.Key)
	require.NotContains(t, f.String(), canarySecret)
}

// TestFlowBlockedPreflightSendsNothing: `:upload PATH` on a file with two
// interchanges shows why it is blocked; y, enter and e do nothing; the
// simulator's inbox never sees a request and the history stays empty.
func TestFlowBlockedPreflightSendsNothing(t *testing.T) {
	e := newSimEnv(t)
	two := append(orderstest.Orders("R1", 1, "PO-1"), orderstest.Orders("R2", 1, "PO-2")...)
	tm, f := startFlow(t, e, Options{Path: e.file(t, "two.edi", two)})

	waitFor(t, tm, "blocked:", "contains 2 interchanges")
	send(tm, "y", "enter", "e", "y", "R")
	send(tm, "esc")
	waitFor(t, tm, "nothing was sent")
	send(tm, "esc")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(harness).m
	require.True(t, final.Done())
	require.Nil(t, final.out)
	require.Zero(t, e.inboxRequests(), "the simulator's inbox recorded no request")
	require.Empty(t, e.sim.Requests(), "no request of any kind")
	require.Empty(t, e.history(t))
	require.NotContains(t, f.String(), "Idempotency-Key")
	require.Contains(t, f.String(), "✗ 2 interchanges: the inbox takes exactly one per upload")
}
