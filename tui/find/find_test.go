package find

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
)

var t0 = time.Date(2026, 3, 12, 10, 30, 0, 0, time.UTC)

// fakeSource answers every query with res and records the queries.
type fakeSource struct {
	res     track.Result
	err     error
	queries []track.Query
	steps   []track.Step
}

func (f *fakeSource) Find(_ context.Context, q track.Query) (track.Result, track.Stats, error) {
	f.queries = append(f.queries, q)
	return f.res, track.Stats{}, f.err
}

func (f *fakeSource) Timeline(context.Context, track.Conversation) []track.Step { return f.steps }

func press(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func conversations() track.Result {
	return track.Result{Conversations: []track.Conversation{
		{Key: "po:po-4712", Label: "order PO-4712", Conns: []string{"acme-at"}, Last: t0.Add(time.Hour),
			State: track.UploadState{Key: "k2", NeedsAction: []string{"CONTRL: rejected (1 error)"}}},
		{Key: "po:po-4711", Label: "order PO-4711", Conns: []string{"acme-de"}, Last: t0,
			State: track.UploadState{Key: "k1", Answers: []string{"CONTRL: accepted", "ORDRSP: no lines changed"}, Complete: true}},
		{Key: "po:po-4713", Label: "order \x1b]0;evil\x07PO-4713", Conns: []string{"acme-de"}, Last: t0.Add(-time.Hour),
			State: track.UploadState{Key: "k3", Overdue: []string{"no CONTRL 1h after the upload (sla.contrl 15m)"}}},
	}}
}

func run(t *testing.T, cmd tea.Cmd) tea.Msg {
	t.Helper()
	require.NotNil(t, cmd)
	return cmd()
}

func TestResultsShowConversationsAndOpenTimeline(t *testing.T) {
	c := common.New()
	src := &fakeSource{res: conversations(), steps: []track.Step{
		{At: t0, Kind: "upload", Title: "ORDERS uploaded: accepted (HTTP 202)", Source: "upload history h", Open: track.Opens{Screen: track.OpenViewer, Path: "/s/sent.edi"}},
		{At: t0.Add(time.Minute), Kind: "answer", Title: "CONTRL: accepted (due in the mailbox)", Lines: []string{"answers upload of PO-4711"}, Source: "delivery d1",
			Open: track.Opens{Screen: track.OpenClaim, Conn: "c1", Delivery: "d1"}},
		{At: t0.Add(time.Hour), Kind: "answer", Title: "ORDRSP: 1 of 2 lines changed", Source: "delivery d2",
			Open: track.Opens{Screen: track.OpenDiff, Orders: "/s/sent.edi", Path: "/s/d2.edi"}},
		{At: t0.Add(2 * time.Hour), Kind: "event", Title: "event x", Source: "capture", Open: track.Opens{Screen: track.OpenEvent, Path: "/cap", Event: "e1"}},
	}}
	var opened []string
	open := Openers{
		Viewer: func(o common.TabID, p string) tea.Cmd {
			opened = append(opened, "viewer "+p)
			return func() tea.Msg { return nil }
		},
		Diff: func(o common.TabID, orders, rsp string) tea.Cmd {
			opened = append(opened, "diff "+orders+" "+rsp)
			return func() tea.Msg { return nil }
		},
	}
	r := New(c, 7, src, "po:PO-47*", open)
	cmd := r.Init()
	r.SetSize(120, 20)
	require.Contains(t, r.View(), "searching every connection")
	_, _ = r.Update(run(t, cmd))
	require.Len(t, src.queries, 1)
	require.True(t, src.queries[0].Prefix)
	v := r.View()
	require.Contains(t, v, "3 conversations, newest first")
	require.Contains(t, v, "> 2026-03-12 11:30:00Z  order PO-4712")
	require.Contains(t, v, "NEEDS ACTION")
	require.Contains(t, v, "OVERDUE")
	require.Contains(t, v, "ANSWERED")
	require.NotContains(t, v, "\x1b]0;", "labels are sanitised")

	_, _ = r.Update(press("j"))
	sel, ok := r.Selected()
	require.True(t, ok)
	require.Equal(t, "order PO-4711", sel.Label)
	_, cmd = r.Update(press("enter"))
	msg := run(t, cmd)
	op, ok := msg.(common.Opened)
	require.True(t, ok, "enter opens the timeline on the owner's stack")
	require.Equal(t, common.TabID(7), op.Tab)
	tl := op.Screen.(*Timeline)
	tl.SetSize(120, 30)
	v = tl.View()
	require.Contains(t, v, "order PO-4711 — ANSWERED: CONTRL: accepted")
	require.Contains(t, v, "4 steps in time order")
	require.Contains(t, v, "answers upload of PO-4711")
	require.Contains(t, v, "source: delivery d1")

	// each step opens its screen; one without an opener says so
	_, cmd = tl.Update(press("enter"))
	require.NotNil(t, cmd)
	_, _ = tl.Update(press("j"))
	_, cmd = tl.Update(press("enter"))
	require.Nil(t, cmd, "no claim opener given")
	require.Contains(t, tl.View(), "this step has no screen of its own")
	_, _ = tl.Update(press("j"))
	_, cmd = tl.Update(press("enter"))
	require.NotNil(t, cmd)
	require.Equal(t, []string{"viewer /s/sent.edi", "diff /s/sent.edi /s/d2.edi"}, opened)
	require.True(t, tl.Closes(press("q")))
	require.True(t, tl.Closes(press("esc")))
	require.False(t, tl.Closes(press("j")))
	_, _ = tl.Update(press("G"))
	require.Equal(t, 3, tl.Cursor())
}

func TestResultsDropStaleAndShowErrors(t *testing.T) {
	c := common.New()
	src := &fakeSource{res: conversations()}
	r := New(c, 1, src, "PO-4711", Openers{})
	first := r.Init()
	_, second := r.Update(press("r")) // search again: the first answer is stale
	_, _ = r.Update(run(t, first))
	require.Contains(t, r.View(), "searching", "the older answer is dropped")
	_, _ = r.Update(run(t, second))
	require.Contains(t, r.View(), "3 conversations")

	bad := New(c, 1, src, "po:", Openers{})
	cmd := bad.Init()
	require.Nil(t, cmd)
	require.Contains(t, bad.View(), "has no value to look for")

	src.err = errors.New("disk \x1b[2J gone")
	e := New(c, 1, src, "x", Openers{})
	cmd = e.Init()
	_, _ = e.Update(run(t, cmd))
	require.Contains(t, e.View(), "disk ^[[2J gone")

	src.err, src.res = nil, track.Result{}
	empty := New(c, 1, src, "nothing", Openers{})
	cmd = empty.Init()
	_, _ = empty.Update(run(t, cmd))
	require.Contains(t, empty.View(), "nothing stored matches nothing")
	_, cmd = empty.Update(press("enter"))
	require.Nil(t, cmd)
	require.False(t, empty.Capturing())
	require.True(t, strings.HasPrefix(empty.Title(), "find "))
}
