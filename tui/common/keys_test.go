package common

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
)

func TestSplitRunes(t *testing.T) {
	got := SplitRunes(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jé"), Alt: true})
	require.Equal(t, []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("j"), Alt: true}, {Type: tea.KeyRunes, Runes: []rune("é"), Alt: true}}, got)
	require.Nil(t, SplitRunes(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")}), "one key is left as it is")
	require.Nil(t, SplitRunes(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("qP"), Paste: true}), "a paste is never split")
	require.Nil(t, SplitRunes(tea.KeyMsg{Type: tea.KeyEnter}))
}
