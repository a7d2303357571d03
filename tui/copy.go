package tui

import (
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/internal/clip"
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

// export is :export PATH (:export! PATH replaces a file): the table of
// the screen on top of the root stack when it has one (the event
// findings), else the active tab's (its top screen's, or its mailbox).
func (m Model) export(path string, force bool) (Model, tea.Cmd) {
	if path == "" {
		return m.showError(common.ErrorMsg{Text: ":export needs a file: :export PATH.csv or PATH.json (:export! PATH replaces a file that exists)"}), nil
	}
	if write := common.ExporterOf(m.screens.Top()); write != nil {
		p := common.ExpandHome(path)
		return m, func() tea.Msg {
			what, err := write(p, force)
			if err != nil {
				return common.Info{Text: ":export: " + err.Error(), Err: true}
			}
			return common.Info{Text: "exported " + what + " to " + p}
		}
	}
	t := m.activeTab()
	if t == nil {
		return m.showError(common.ErrorMsg{Text: ":export writes a tab's table (mailbox page, backlog, uploads) or the event findings: open a connection first (:conn NAME)"}), nil
	}
	id := t.id
	return m, func() tea.Msg { return common.ExportMsg{Tab: id, Path: path, Force: force} }
}
