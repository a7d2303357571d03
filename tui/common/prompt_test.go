package common

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
)

type doIt struct{ what string }

// TestPromptQuestion: the next key answers a question: y hands back its
// action, any other key its No; it captures, draws below the page with
// [y/N] visible, and leaves through the stack once.
func TestPromptQuestion(t *testing.T) {
	st := New().Styles
	for _, tc := range []struct {
		key  tea.KeyMsg
		want tea.Msg
	}{
		{keyOf("y"), doIt{"quit"}},
		{keyOf("Y"), doIt{"quit"}},
		{keyOf("n"), Info{Text: "nothing changed"}},
		{keyOf("q"), Info{Text: "nothing changed"}},
		{tea.KeyMsg{Type: tea.KeyEsc}, Info{Text: "nothing changed"}},
		{tea.KeyMsg{Type: tea.KeyEnter}, Info{Text: "nothing changed"}},
	} {
		s := NewStack(0)
		s.SetSize(80, 20)
		p := NewPrompt("Quit b2bx? a claim is active.", doIt{"quit"}, Info{Text: "nothing changed"})
		require.True(t, p.Capturing())
		require.False(t, p.Closes(keyOf("q")))
		require.True(t, IsInline(p))
		require.True(t, SplitsKeys(p), "its keys are answers, never text")
		s.Push(p)
		res, _ := s.Update(fakeStep{})
		require.Nil(t, res, "only a key answers")
		res, _ = s.Key(tc.key)
		require.Equal(t, tc.want, res, tc.key.String())
		require.Zero(t, s.Len())
	}

	lines := InlineLines(NewPrompt(strings.Repeat("a long question ", 30), nil, nil), st, 60)
	require.Len(t, lines, 3, "at most three lines")
	require.True(t, strings.HasSuffix(lines[2], "[y/N]"), lines[2])

	// a tab's own keys answer it
	yes := key.NewBinding(key.WithKeys("j"), key.WithHelp("j", "yes"))
	p := NewPrompt("ok?", doIt{"drop"}, nil).WithKeys(yes, promptNo)
	ns, _ := p.Update(keyOf("y"))
	require.Nil(t, ns.(Resulter).Result(), "y is not this prompt's yes")
	ns, _ = p.Update(keyOf("j"))
	require.Equal(t, doIt{"drop"}, ns.(Resulter).Result())
	require.Equal(t, []key.Binding{yes, promptNo}, p.ShortHelp())
}

// TestPromptPreview: a preview is a page: y runs it (when there is
// something to run), N and esc run nothing, q closes it like every
// screen and hands back No too; other keys stay.
func TestPromptPreview(t *testing.T) {
	st := New().Styles
	run := doIt{"bulk"}
	no := Info{Text: "nothing was run"}
	p := NewPreview(st, "Process the marked entries", []string{"1. da-1", "2. da-2"}, run, no)
	require.False(t, p.Capturing(), "the shell's keys stay")
	require.False(t, IsInline(p))
	require.Equal(t, run, p.Yes())
	sized := p.SetSize(60, 10)
	v := sized.View()
	require.Contains(t, v, "Process the marked entries")
	require.Contains(t, v, "2. da-2")
	require.Contains(t, v, "run nothing")
	require.Len(t, strings.Split(v, "\n"), 10)

	for _, tc := range []struct {
		key  tea.KeyMsg
		want tea.Msg
	}{
		{keyOf("y"), run},
		{keyOf("N"), no},
		{tea.KeyMsg{Type: tea.KeyEsc}, no},
		{keyOf("q"), no},
	} {
		s := NewStack(5)
		s.Push(p)
		res, _ := s.Key(keyOf("j"))
		require.Nil(t, res, "j does nothing")
		require.Equal(t, 1, s.Len())
		res, _ = s.Key(tc.key)
		require.Equal(t, tc.want, res, tc.key.String())
		require.Zero(t, s.Len())
	}

	empty := NewPreview(st, "Marked uploads sent", []string{"1. PO: accepted"}, nil, doIt{"reload"})
	require.Contains(t, empty.SetSize(60, 10).View(), "nothing to run")
	s := NewStack(5)
	s.Push(empty)
	res, _ := s.Key(keyOf("y"))
	require.Nil(t, res, "nothing to run: y does nothing")
	res, _ = s.Key(keyOf("q"))
	require.Equal(t, doIt{"reload"}, res)
}
