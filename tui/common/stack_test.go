package common

import (
	"context"
	"errors"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
)

// fakeScreen records what reaches it in a shared log (screens are values).
type fakeScreen struct {
	name      string
	log       *[]string
	capturing bool
	done      bool // finishes on the next key "!"
	w, h      int
	cmd       tea.Cmd // returned by every Update
}

type fakeStep struct{ n int }

func (f fakeScreen) Update(msg tea.Msg) (Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		*f.log = append(*f.log, f.name+" key "+msg.String())
		f.done = msg.String() == "!"
	case fakeStep:
		*f.log = append(*f.log, f.name+" step")
	}
	return f, f.cmd
}
func (f fakeScreen) View() string                   { return f.name }
func (f fakeScreen) SetSize(w, h int) Screen        { f.w, f.h = w, h; return f }
func (f fakeScreen) ShortHelp() []key.Binding       { return nil }
func (f fakeScreen) FullHelp() [][]key.Binding      { return nil }
func (f fakeScreen) Capturing() bool                { return f.capturing }
func (f fakeScreen) Closes(k tea.KeyMsg) bool       { return k.String() == "q" || k.String() == "esc" }
func (f fakeScreen) Close()                         { *f.log = append(*f.log, f.name+" closed") }
func (f fakeScreen) Title() string                  { return f.name }
func (f fakeScreen) Done() bool                     { return f.done }
func (f fakeScreen) Init() tea.Cmd                  { return func() tea.Msg { return fakeStep{} } }
func keyOf(s string) tea.KeyMsg                     { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
func newFake(name string, log *[]string) fakeScreen { return fakeScreen{name: name, log: log} }

// TestStackCloseRule: keys go to the top screen; q and esc pop it when it
// says so (Closes), never while it captures; the popped one is closed.
func TestStackCloseRule(t *testing.T) {
	var log []string
	s := NewStack(3)
	s.SetSize(80, 20)
	s.Push(newFake("a", &log))
	s.Push(newFake("b", &log))
	require.Equal(t, 2, s.Len())
	require.Equal(t, "b", s.Top().Title())
	require.Equal(t, 80, s.Top().(fakeScreen).w, "a pushed screen gets the stack's size")

	done, _ := s.Key(keyOf("j"))
	require.Nil(t, done)
	require.Equal(t, []string{"b key j"}, log)

	done, _ = s.Key(keyOf("q"))
	require.Equal(t, Left{Title: "b"}, done, "b left; it has no result of its own")
	require.Equal(t, []string{"b key j", "b closed"}, log)
	require.Equal(t, "a", s.Top().Title())

	// While the top captures, q is its text.
	c := newFake("c", &log)
	c.capturing = true
	s.Push(c)
	done, _ = s.Key(keyOf("q"))
	require.Nil(t, done)
	require.Equal(t, "c key q", log[len(log)-1])

	// A screen that finishes by itself leaves after that Update.
	done, _ = s.Key(keyOf("!"))
	require.Equal(t, Left{Title: "c"}, done)
	require.Equal(t, "c closed", log[len(log)-1])
	require.Equal(t, "a", s.Top().Title())

	s.CloseAll()
	require.Zero(t, s.Len())
	require.Equal(t, "a closed", log[len(log)-1])
	done, cmd := s.Key(keyOf("q"))
	require.Nil(t, done)
	require.Nil(t, cmd, "an empty stack takes nothing")
}

// TestStackRoutesScreenMessages: a screen's commands come back tagged
// with the owner and the screen; they reach that screen wherever it is,
// and nobody once it left. Footer notes and owned messages pass as they
// are.
func TestStackRoutesScreenMessages(t *testing.T) {
	var log []string
	s := NewStack(7)
	a := newFake("a", &log)
	initA := s.Push(a)
	msg := initA()
	sm, ok := msg.(ScreenMsg)
	require.True(t, ok, "%T", msg)
	require.Equal(t, TabID(7), sm.Owner())

	s.Push(newFake("b", &log))
	s.Deliver(sm)
	require.Equal(t, []string{"a step"}, log, "the step reached a under b")

	s.Pop()
	s.Pop()
	log = nil
	s.Deliver(sm)
	require.Empty(t, log, "a screen that left gets nothing")

	info := Info{Text: "note"}
	opened := Opened{Tab: 7}
	c := newFake("c", &log)
	c.cmd = tea.Batch(func() tea.Msg { return info }, func() tea.Msg { return opened }, func() tea.Msg { return fakeStep{2} })
	s.Push(c)
	_, cmd := s.Key(keyOf("x"))
	var got []tea.Msg
	for _, sub := range cmd().(tea.BatchMsg) {
		got = append(got, sub())
	}
	require.Equal(t, info, got[0])
	require.Equal(t, opened, got[1])
	require.IsType(t, ScreenMsg{}, got[2])
}

// TestStackOpenDropsStale: an Opened that answers a request the stack no
// longer waits for is closed unseen; the awaited one is pushed; a failed
// one says why and stops the wait.
func TestStackOpenDropsStale(t *testing.T) {
	var log []string
	s := NewStack(1)
	first, ctx1 := s.Prepare(context.Background(), "opening the viewer")
	second, _ := s.Prepare(context.Background(), "opening the viewer")
	require.ErrorIs(t, ctx1.Err(), context.Canceled, "a newer request stops the older")
	require.Equal(t, "opening the viewer", s.Preparing())

	cmd, err := s.Open(Opened{Tab: 1, Req: first, Screen: newFake("old", &log)})
	require.NoError(t, err)
	require.Nil(t, cmd)
	require.Zero(t, s.Len())
	require.Equal(t, []string{"old closed"}, log, "the stale screen is closed")

	_, err = s.Open(Opened{Tab: 1, Req: second, Screen: newFake("new", &log)})
	require.NoError(t, err)
	require.Equal(t, "new", s.Top().Title())
	require.Empty(t, s.Preparing())

	third, _ := s.Prepare(context.Background(), "comparing")
	_, err = s.Open(Opened{Tab: 1, Req: third, Err: errors.New("no diff: gone")})
	require.EqualError(t, err, "no diff: gone")
	require.Empty(t, s.Preparing())
	require.Equal(t, 1, s.Len())

	_, ctx := s.Prepare(context.Background(), "opening the viewer")
	require.Equal(t, "opening the viewer", s.StopPreparing())
	require.Error(t, ctx.Err())
}

// TestStackCopiesDoNotShare: a copy of a stack (a copy of the model
// holding it) never sees another copy's screens change.
func TestStackCopiesDoNotShare(t *testing.T) {
	var log []string
	s := NewStack(1)
	s.Push(newFake("a", &log))
	s.Push(newFake("b", &log))
	c := s
	c.Pop()
	c.Push(newFake("c", &log))
	require.Equal(t, "b", s.Top().Title())
	require.Equal(t, "c", c.Top().Title())
	c.SetSize(10, 10)
	require.Zero(t, s.Top().(fakeScreen).w)
}

// TestPushOpens: common.Push's Opened (no request) goes on top at once,
// even while something else is being prepared.
func TestPushOpens(t *testing.T) {
	var log []string
	s := NewStack(2)
	_, _ = s.Prepare(context.Background(), "comparing")
	msg := Push(2, newFake("find", &log))().(Opened)
	require.Equal(t, TabID(2), msg.Owner())
	cmd, err := s.Open(msg)
	require.NoError(t, err)
	require.NotNil(t, cmd, "its Init runs")
	require.Equal(t, "find", s.Top().Title())
	require.Equal(t, "comparing", s.Preparing(), "the prepared screen is still awaited")
}
