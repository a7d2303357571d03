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

func TestNavMoveClampsAndIgnoresOtherKeys(t *testing.T) {
	n := NavKeys()
	press := func(s string) tea.KeyMsg {
		switch s {
		case "up":
			return tea.KeyMsg{Type: tea.KeyUp}
		case "pgdown":
			return tea.KeyMsg{Type: tea.KeyPgDown}
		}
		return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
	}
	cases := []struct {
		key              string
		pos, count, page int
		want             int
		ok               bool
	}{
		{"j", 0, 3, 0, 1, true},
		{"j", 2, 3, 0, 2, true},
		{"up", 0, 3, 0, 0, true},
		{"G", 0, 3, 0, 2, true},
		{"g", 2, 3, 0, 0, true},
		{"G", 0, 0, 0, 0, true}, // no rows: the cursor stays at 0
		{"pgdown", 0, 10, 4, 4, true},
		{"pgdown", 0, 10, 0, 0, false}, // no page keys on this screen
		{"x", 1, 3, 0, 1, false},
	}
	for _, c := range cases {
		got, ok := n.Move(press(c.key), c.pos, c.count, c.page)
		require.Equal(t, c.want, got, "%+v", c)
		require.Equal(t, c.ok, ok, "%+v", c)
	}
}
