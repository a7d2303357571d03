package tui

import (
	"context"
	"errors"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/conntab"
	"github.com/nutrab2b/b2bx/tui/eventview"
	"github.com/nutrab2b/b2bx/tui/find"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

var f0 = time.Date(2026, 3, 12, 10, 30, 0, 0, time.UTC)

// fakeFinder answers every query with one conversation of four steps.
type fakeFinder struct {
	queries []string
	steps   []track.Step
}

func (f *fakeFinder) Find(_ context.Context, q track.Query) (track.Result, track.Stats, error) {
	f.queries = append(f.queries, q.Text)
	return track.Result{Query: q, Conversations: []track.Conversation{
		{Key: "po:po-4711", Label: "order PO-4711", Conns: []string{"c-de"}, Last: f0.Add(time.Hour),
			State: track.UploadState{Key: "k1", Answers: []string{"CONTRL: accepted", "ORDRSP: 1 of 2 lines changed"}, Complete: true}},
		{Key: "po:po-4712", Label: "order PO-4712", Conns: []string{"c-de"}, Last: f0,
			State: track.UploadState{Key: "k2", NeedsAction: []string{"CONTRL: rejected (2 errors)"}}},
	}}, track.Stats{}, nil
}

func (f *fakeFinder) Timeline(context.Context, track.Conversation) []track.Step { return f.steps }

func (f *fakeFinder) ProfileOf(_ context.Context, conn string) (string, error) {
	if conn == "c-de" {
		return "acme-de", nil
	}
	return "", errors.New("no profile for " + conn)
}

func newFindModel(t *testing.T) (Model, *fakeFinder, *fakeBackend) {
	t.Helper()
	m, be := newTestModel(t)
	f := &fakeFinder{steps: []track.Step{
		{At: f0, Kind: "upload", Title: "ORDERS uploaded: accepted (HTTP 202)", Source: "upload history",
			Open: track.Opens{Screen: track.OpenViewer, Path: fixturePath("orders_d96a.edi")}},
		{At: f0.Add(time.Minute), Kind: "answer", Title: "CONTRL: accepted (due in the mailbox)", Source: "delivery d1",
			Open: track.Opens{Screen: track.OpenClaim, Conn: "c-de", Delivery: "d1"}},
		{At: f0.Add(time.Hour), Kind: "answer", Title: "ORDRSP: 1 of 2 lines changed (due in the mailbox)", Source: "delivery d2",
			Open: track.Opens{Screen: track.OpenDiff, Orders: fixturePath("orders_d96a.edi"), Path: fixturePath("ordrsp_d96a.edi")}},
		{At: f0.Add(2 * time.Hour), Kind: "event", Title: "event delivery.created", Source: "event capture",
			Open: track.Opens{Screen: track.OpenEvent, Path: fixturePath("orders_d96a.edi"), Event: "e1"}},
	}}
	m.finder = f
	return m, f, be
}

func topIs[T any](t *testing.T, m Model) T {
	t.Helper()
	s, ok := m.screens.Top().(T)
	require.True(t, ok, "the top of the root stack is a %T", m.screens.Top())
	return s
}

// TestFindKeyAndCommand: F opens the : line with "find " typed; enter
// runs the query across every connection and shows the results (with
// needs action); :find QUERY does the same; q and esc pop it.
func TestFindKeyAndCommand(t *testing.T) {
	m, f, _ := newFindModel(t)
	m = press(t, m, "F")
	require.Equal(t, "find ", cmdline(m), "F is the query input")
	m = typeText(t, m, "PO-4711")
	m, cmd := updateCmd(t, m, keyMsg("enter"))
	m = run(t, m, cmd)
	require.Equal(t, []string{"PO-4711"}, f.queries)
	topIs[*find.Results](t, m)
	v := m.View()
	require.Contains(t, v, "2 conversations, newest first")
	require.Contains(t, v, "order PO-4711")
	require.Contains(t, v, "NEEDS ACTION")
	m = press(t, m, "q")
	require.Nil(t, m.screens.Top(), "q pops the results")

	m = command(t, m, "find po:PO-4712")
	require.Equal(t, []string{"PO-4711", "po:PO-4712"}, f.queries)
	topIs[*find.Results](t, m)
	m = press(t, m, "esc")
	require.Nil(t, m.screens.Top(), "esc pops the results")
	m = command(t, m, "find")
	require.Contains(t, m.foot.err, ":find needs what to look for")

	m = press(t, m, "esc", "?")
	help := m.View()
	require.Contains(t, help, "find an order everywhere", "F in the help")
	require.Contains(t, help, ":find QUERY")
}

// TestFindEnterOpensTimelineAndSteps: enter on a result pushes its
// timeline; enter on each step opens its own screen through Opened (the
// viewer on the ORDERS sent, the ORDRSP diff, the event inspector), each
// popped by q; a mailbox step brings its connection's tab to the front
// with the delivery selected.
func TestFindEnterOpensTimelineAndSteps(t *testing.T) {
	m, _, _ := newFindModel(t)
	m = command(t, m, "find PO-4711")
	m, cmd := updateCmd(t, m, keyMsg("enter"))
	msgs := collect(cmd)
	require.Len(t, msgs, 1)
	_, ok := msgs[0].(common.Opened)
	require.True(t, ok, "enter yields an Opened")
	m = run(t, m, func() tea.Msg { return msgs[0] })
	tl := topIs[*find.Timeline](t, m)
	require.Len(t, tl.Steps(), 4)
	require.Contains(t, m.View(), "4 steps in time order")
	require.Equal(t, 2, m.screens.Len())

	// the upload: the viewer on the ORDERS sent
	m, cmd = updateCmd(t, m, keyMsg("enter"))
	m = run(t, m, cmd)
	v, ok := viewer.FromScreen(m.screens.Top())
	require.True(t, ok, "the viewer is on top, not %T", m.screens.Top())
	require.NoError(t, v.Err())
	m = press(t, m, "q")
	topIs[*find.Timeline](t, m)

	// the ORDRSP: its diff against the ORDERS
	m = press(t, m, "j", "j")
	m, cmd = updateCmd(t, m, keyMsg("enter"))
	m = run(t, m, cmd)
	require.Empty(t, m.foot.err)
	require.Contains(t, m.View(), "quantity 12 → 6", "the diff screen")
	m = press(t, m, "q")
	topIs[*find.Timeline](t, m)

	// the event: the inspector
	m = press(t, m, "j")
	m, cmd = updateCmd(t, m, keyMsg("enter"))
	m = run(t, m, cmd)
	_, ok = eventview.FromScreen(m.screens.Top())
	require.True(t, ok, "the event inspector is on top, not %T", m.screens.Top())
	m = press(t, m, "q")
	topIs[*find.Timeline](t, m)
	m = press(t, m, "esc", "esc")
	require.Nil(t, m.screens.Top(), "esc pops the timeline, then the results")
}

// TestFindMailboxStepShowsTheDelivery: a mailbox step of a connection
// with an open tab closes the find screens and asks that tab to show the
// delivery; one without opens the connection first.
func TestFindMailboxStepShowsTheDelivery(t *testing.T) {
	m, f, be := newFindModel(t)
	f.steps = f.steps[1:2]
	m = command(t, m, "find PO-4711")
	m, cmd := updateCmd(t, m, keyMsg("enter"))
	m = run(t, m, cmd)
	topIs[*find.Timeline](t, m)

	// no tab yet: the step opens the connection of its profile, whose
	// tab then shows the delivery
	m, cmd = updateCmd(t, m, keyMsg("enter"))
	m = run(t, m, cmd)
	require.Len(t, m.tabs, 1)
	require.Equal(t, "acme-de", m.tabs[0].name)
	require.Equal(t, []string{"select:d1"}, be.state("acme-de").received())
	require.Empty(t, m.showOnOpen)

	// with the tab open: the find screens close, the tab shows the delivery
	m.tabs[0].conn = &session.Conn{Target: session.Target{Name: "acme-de", ConnectionID: "c-de"}}
	m.active = 0
	m = command(t, m, "find PO-4711")
	m, cmd = updateCmd(t, m, keyMsg("enter"))
	m = run(t, m, cmd)
	m, cmd = updateCmd(t, m, keyMsg("enter"))
	msgs := collect(cmd)
	require.Len(t, msgs, 1)
	m, cmd = updateCmd(t, m, msgs[0])
	require.Nil(t, m.screens.Top(), "the find screens closed")
	require.Equal(t, 1, m.active, "the connection's tab is in front")
	sel := collect(cmd)
	require.Equal(t, []tea.Msg{conntab.SelectMsg{Tab: m.tabs[0].id, Delivery: "d1"}}, sel)
}

// TestFindAnswersComeBackThroughTheStack: a query's answer is the
// results screen's own message (common.ScreenMsg, owner and screen): it
// reaches the find that asked even under another find, never the other
// one, and an answer to an older query of the same screen (r) is
// dropped. No app-wide counter is involved.
func TestFindAnswersComeBackThroughTheStack(t *testing.T) {
	m, f, _ := newFindModel(t)
	m, cmdA := m.openFind("PO-4711")
	msgA := cmdA()
	sm, ok := msgA.(common.ScreenMsg)
	require.True(t, ok, "the answer comes back tagged by the stack: %T", msgA)
	require.Equal(t, common.RootOwner, sm.Owner())

	m, cmdB := m.openFind("PO-4712")
	msgB := cmdB()
	require.Equal(t, []string{"PO-4711", "PO-4712"}, f.queries)
	under := func(m Model) string { return m.screens.Screens()[0].View() }

	m = update(t, m, msgA)
	require.Contains(t, under(m), "2 conversations", "the first find got its answer")
	require.Contains(t, m.View(), "searching", "the second still waits for its own")

	m, again := updateCmd(t, m, keyMsg("r")) // the second searches again
	m = update(t, m, msgB)
	require.Contains(t, m.View(), "searching", "the answer to its older query is dropped")
	m = update(t, m, again())
	require.Contains(t, m.View(), "2 conversations")

	m = press(t, m, "q", "q")
	require.Nil(t, m.screens.Top())
	m = update(t, m, msgA)
	require.Nil(t, m.screens.Top(), "an answer for a find that left is dropped")
}
