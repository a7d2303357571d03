package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// SplitRunes returns the single keys of a KeyRunes message that carries
// several, nil for any other message. Bubbletea v1 reports runes read
// together as one message (a held-down j, keys typed fast or sent at once
// by tmux), so each screen whose keys are commands handles them one by
// one. A paste stays one message: pasted text never acts as commands.
func SplitRunes(msg tea.KeyMsg) []tea.KeyMsg {
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || msg.Paste {
		return nil
	}
	keys := make([]tea.KeyMsg, len(msg.Runes))
	for i, r := range msg.Runes {
		keys[i] = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}
	}
	return keys
}

// CloseKey is the close rule as a help entry: q and esc close the screen
// on top of a stack (esc first steps back inside it).
var CloseKey = key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc/q", "close"))
