package common

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
)

// resultScreen is a fakeScreen that hands back a result and may report.
type resultScreen struct {
	fakeScreen
	res     string
	pending string
}

type fakeResult struct{ from string }
type fakeReport struct{ from, last string }

func (r resultScreen) Update(msg tea.Msg) (Screen, tea.Cmd) {
	s, cmd := r.fakeScreen.Update(msg)
	r.fakeScreen = s.(fakeScreen)
	return r, cmd
}
func (r resultScreen) SetSize(w, h int) Screen { r.w, r.h = w, h; return r }
func (r resultScreen) Result() tea.Msg         { return fakeResult{r.res} }
func (r resultScreen) Pending() string         { return r.pending }

type reportScreen struct{ resultScreen }

func (r reportScreen) Update(msg tea.Msg) (Screen, tea.Cmd) {
	s, cmd := r.resultScreen.Update(msg)
	r.resultScreen = s.(resultScreen)
	return r, cmd
}
func (r reportScreen) SetSize(w, h int) Screen { r.w, r.h = w, h; return r }
func (r reportScreen) Report() tea.Msg {
	return fakeReport{r.name, (*r.log)[len(*r.log)-1]}
}

func newResult(name string, log *[]string) resultScreen {
	return resultScreen{fakeScreen: newFake(name, log), res: name + " done"}
}

// TestStackHandsBackResultsOnce: however a screen leaves (q, esc, done
// by itself, popped by its owner), the stack hands its result to the
// owner once, after Close; a screen with no result hands back Left.
func TestStackHandsBackResultsOnce(t *testing.T) {
	for _, leave := range []string{"q", "esc", "!"} {
		t.Run(leave, func(t *testing.T) {
			var log []string
			s := NewStack(4)
			s.Push(newFake("under", &log))
			s.Push(newResult("top", &log))
			res, _ := s.Key(keyOf("j"))
			require.Nil(t, res, "a screen that stays hands back nothing")
			k := keyOf(leave)
			if leave == "esc" {
				k = tea.KeyMsg{Type: tea.KeyEsc}
			}
			res, _ = s.Key(k)
			require.Equal(t, fakeResult{"top done"}, res)
			require.Equal(t, "top closed", log[len(log)-1], "closed before its result is handed back")
			require.Equal(t, "under", s.Top().Title())
			res, _ = s.Key(keyOf("j"))
			require.Nil(t, res, "the result came once; the screen under it got the key")
			require.Equal(t, "under key j", log[len(log)-1])
			res, _ = s.Key(keyOf("q"))
			require.Equal(t, Left{Title: "under"}, res)
			require.Zero(t, s.Len())
		})
	}
}

// TestStackOwnerPopsHandBack: Pop, PopWhile and Replace hand back what
// the screens they take off hand back; CloseAll closes without results.
func TestStackOwnerPopsHandBack(t *testing.T) {
	var log []string
	s := NewStack(1)
	s.Push(newResult("a", &log))
	s.Push(newResult("b", &log))
	s.Push(newResult("c", &log))
	require.Equal(t, []tea.Msg{fakeResult{"c done"}, fakeResult{"b done"}},
		s.PopWhile(func(sc Screen) bool { return sc.Title() != "a" }))
	require.Equal(t, "a", s.Top().Title())

	res, cmd := s.Replace(newResult("a2", &log))
	require.Equal(t, fakeResult{"a done"}, res, "a screen of the same kind on top is replaced")
	require.NotNil(t, cmd, "the new one's Init runs")
	require.Equal(t, 1, s.Len())
	res, _ = s.Replace(newFake("f", &log))
	require.Nil(t, res, "another kind goes on top")
	require.Equal(t, 2, s.Len())

	require.Equal(t, Left{Title: "f"}, s.Pop())
	require.Nil(t, (&Stack{}).Pop())
	s.CloseAll()
	require.Zero(t, s.Len())
}

// TestStackDeliverHandsBackResult: a screen that finishes on its own
// message (delivered under another screen) leaves with its result.
func TestStackDeliverHandsBackResult(t *testing.T) {
	var log []string
	s := NewStack(2)
	a := newResult("a", &log)
	a.cmd = func() tea.Msg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("!")} }
	s.Push(a)
	_, cmd := s.Key(keyOf("x")) // a's command: its own "!" later
	require.NotNil(t, cmd)
	s.Push(newResult("b", &log))
	res, _ := s.Deliver(cmd().(ScreenMsg)) // a's own "!" finishes a, under b
	require.Equal(t, fakeResult{"a done"}, res)
	require.Equal(t, "b", s.Top().Title())
	require.Equal(t, 1, s.Len())
}

// TestStackReports: a Reporter on top reports after every message it
// gets and hands back its result when it leaves.
func TestStackReports(t *testing.T) {
	var log []string
	s := NewStack(3)
	s.Push(reportScreen{newResult("filter", &log)})
	res, _ := s.Key(keyOf("a"))
	require.Equal(t, fakeReport{"filter", "filter key a"}, res)
	res, _ = s.Update(fakeStep{})
	require.Equal(t, fakeReport{"filter", "filter step"}, res)
	res, _ = s.Key(keyOf("!"))
	require.Equal(t, fakeResult{"filter done"}, res)
}

// listenScreen takes the owner's news.
type listenScreen struct {
	fakeScreen
	news []string
}

func (l listenScreen) SetSize(w, h int) Screen { l.w, l.h = w, h; return l }
func (l listenScreen) Notice(msg tea.Msg) Screen {
	l.news = append(l.news[:len(l.news):len(l.news)], msg.(string))
	return l
}

// TestStackNotifyAndPending: news reaches the Listeners anywhere on the
// stack and nobody else; Pending and Busy ask every screen.
func TestStackNotifyAndPending(t *testing.T) {
	var log []string
	s := NewStack(3)
	s.Push(listenScreen{fakeScreen: newFake("l", &log)})
	s.Push(newFake("plain", &log))
	s.Notify("links")
	require.Empty(t, log, "news is not an Update")
	require.Equal(t, []string{"links"}, s.Screens()[0].(listenScreen).news)
	require.Equal(t, 2, s.Len())

	require.Empty(t, s.Pending())
	p := newResult("upload", &log)
	p.pending = "an upload is on its way"
	s.Push(p)
	require.Equal(t, "an upload is on its way", s.Pending())
	require.Empty(t, s.Busy())
}
