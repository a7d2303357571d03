package common

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

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

// TestAppendHelpShowsEachHintOnce: a screen that lists "esc/q close" and
// "? help" itself gets neither twice in the footer.
func TestAppendHelpShowsEachHintOnce(t *testing.T) {
	help := key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help"))
	page := []key.Binding{key.NewBinding(key.WithKeys("j"), key.WithHelp("j", "down")), CloseKey, help}
	got := AppendHelp(page, CloseKey, help, key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "log")))
	var keys []string
	for _, b := range got {
		keys = append(keys, b.Help().Key)
	}
	if strings.Join(keys, " ") != "j esc/q ? L" {
		t.Fatalf("footer keys %q", keys)
	}
}
