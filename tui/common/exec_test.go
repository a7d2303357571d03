package common

import (
	"os/exec"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
)

// An Exec made by a screen's command passes its stack unwrapped (the
// program must see it), and the message its Done makes comes back
// addressed to that screen.
func TestExecPassesStackAndAnswerReturnsToScreen(t *testing.T) {
	var log []string
	type edited struct{ err error }
	s := fakeScreen{name: "fix", log: &log, cmd: func() tea.Msg {
		return Exec{Cmd: exec.Command("true"), Done: func(err error) tea.Msg { return edited{err} }}
	}}
	st := NewStack(TabID(3))
	st.Push(s)
	_, cmd := st.Key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("E")})
	msg := cmd()
	e, ok := msg.(Exec)
	require.True(t, ok, "the Exec was wrapped: %T", msg)
	back := e.Done(nil)
	sm, ok := back.(ScreenMsg)
	require.True(t, ok, "Done's message is not addressed: %T", back)
	require.Equal(t, TabID(3), sm.Tab)
	require.Equal(t, edited{}, sm.Msg)
	require.NotNil(t, e.Run())
}
