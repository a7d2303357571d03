package tui

import (
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/clip"
	"github.com/nutrab2b/b2bx/tui/common"
)

// clipOut is where y writes the OSC 52 sequence: the terminal
// (bubbletea's output); tests replace it.
var clipOut io.Writer = os.Stdout

// copyItem is y: the value goes to the terminal's clipboard with OSC 52
// (wrapped for tmux when $TMUX is set, so it works inside tmux and over
// SSH), and the footer says what was copied. The sequence is written in
// a Cmd, outside Update, in one write.
func (m Model) copyItem(msg common.Copy) (Model, tea.Cmd) {
	seq, err := clip.OSC52(msg.Item.Value, os.Getenv("TMUX") != "")
	if err != nil {
		return m.showError(common.ErrorMsg{Text: "y: " + err.Error()}), nil
	}
	note := clip.Copied(clip.Item{Label: msg.Item.Label, Value: msg.Item.Value})
	w := clipOut
	return m, func() tea.Msg {
		if _, err := io.WriteString(w, seq); err != nil {
			return common.Info{Text: "the copy could not be written to the terminal: " + err.Error(), Err: true}
		}
		return common.Info{Text: note}
	}
}
