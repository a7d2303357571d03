package common

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
)

// bare is a value model with nothing beyond Model[bare].
type bare struct{ n, w int }

func (b bare) Update(tea.Msg) (bare, tea.Cmd) { b.n++; return b, nil }
func (b bare) SetSize(w, _ int) bare          { b.w = w; return b }
func (bare) View() string                     { return "bare" }
func (bare) ShortHelp() []key.Binding         { return nil }
func (bare) FullHelp() [][]key.Binding        { return nil }
func (bare) Capturing() bool                  { return false }
func (bare) Closes(k tea.KeyMsg) bool         { return k.String() == "q" }
func (bare) Title() string                    { return "bare" }

// rich has every optional capability the adapter forwards.
type rich struct {
	bare
	closed *int
}

func (r rich) Update(msg tea.Msg) (rich, tea.Cmd) { r.bare, _ = r.bare.Update(msg); return r, nil }
func (r rich) SetSize(w, h int) rich              { r.bare = r.bare.SetSize(w, h); return r }
func (rich) Init() tea.Cmd                        { return func() tea.Msg { return "init" } }
func (r rich) Done() bool                         { return r.n >= 2 }
func (rich) Result() tea.Msg                      { return "handed back" }
func (rich) Pending() string                      { return "sending" }
func (rich) Busy() string                         { return "busy" }
func (r rich) Close()                             { *r.closed++ }
func (rich) Exporter() func(string, bool) (string, error) {
	return func(string, bool) (string, error) { return "rows", nil }
}

func TestAdaptKeepsTheModelsTypeAndState(t *testing.T) {
	s := Adapt(bare{})
	s, _ = s.Update(nil)
	s = s.SetSize(40, 10)
	m, ok := As[bare](s)
	require.True(t, ok)
	require.Equal(t, bare{n: 1, w: 40}, m)
	_, ok = As[rich](s)
	require.False(t, ok, "an adapted bare is no adapted rich")
	require.False(t, sameKind(s, Adapt(rich{})), "Replace tells the kinds apart")
	require.True(t, sameKind(s, Adapt(bare{})))
}

func TestAdaptAnswersForAModelWithoutCapabilities(t *testing.T) {
	s := Adapt(bare{})
	a := s.(Adapted[bare])
	require.Nil(t, a.Init())
	require.False(t, a.Done())
	require.Equal(t, Left{Title: "bare"}, result(s), "no Result: Left with the title, as for any screen")
	require.Nil(t, ExporterOf(s), "no table to export")
	require.NotPanics(t, s.Close)
	st := NewStack(1)
	st.Push(s)
	require.Empty(t, st.Pending())
	require.Empty(t, st.Busy())
}

func TestAdaptForwardsWhatTheModelHas(t *testing.T) {
	closed := 0
	st := NewStack(1)
	cmd := st.Push(Adapt(rich{closed: &closed}))
	require.NotNil(t, cmd, "Init ran on push")
	require.Equal(t, "init", cmd().(ScreenMsg).Msg)
	require.Equal(t, "sending", st.Pending())
	require.Equal(t, "busy", st.Busy())
	what, err := ExporterOf(st.Top())("x.csv", false)
	require.NoError(t, err)
	require.Equal(t, "rows", what)
	res, _ := st.Update(nil)
	require.Nil(t, res, "one update: not done yet")
	res, _ = st.Update(nil)
	require.Equal(t, "handed back", res, "Done popped it and its Result came back")
	require.Equal(t, 1, closed, "closed once when it left")
	require.Zero(t, st.Len())
}

func TestBusySkipsAScreenWithNothingRunning(t *testing.T) {
	closed := 0
	st := NewStack(1)
	st.Push(Adapt(rich{closed: &closed}))
	st.Push(Adapt(bare{}))
	require.Equal(t, "busy", st.Busy(), "an adapted screen without Busy does not hide the one below")
}
