package viewer

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/tui/common"
)

// AtRest reports whether esc has nothing to stop or leave in the viewer:
// no search is typed or running and the detail pane is shown. A host
// that lays the viewer over another screen closes it on esc only then.
func (m Model) AtRest() bool {
	return !m.input.Focused() && !m.search.running && m.pane == paneDetail
}

// Closes reports whether k closes a viewer laid over another screen: q,
// or esc once AtRest, while no search input has the keys. Hosts (a tab,
// the shell) ask it instead of deciding each for itself.
func (m Model) Closes(k tea.KeyMsg) bool {
	return !m.Capturing() && (k.String() == "q" || (k.Type == tea.KeyEsc && m.AtRest()))
}

// MapCmd runs cmd and passes each message it makes through wrap, so a
// host can tag the viewer's own messages (its search steps) with the
// owner that must get them back. Batches are mapped message by message;
// footer notes (common.Info, common.ErrorMsg) pass unchanged, they are
// the shell's.
func MapCmd(cmd tea.Cmd, wrap func(tea.Msg) tea.Msg) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		switch msg := cmd().(type) {
		case nil:
			return nil
		case tea.BatchMsg:
			out := make(tea.BatchMsg, 0, len(msg))
			for _, in := range msg {
				if w := MapCmd(in, wrap); w != nil {
					out = append(out, w)
				}
			}
			return out
		case common.Info, common.ErrorMsg:
			return msg
		default:
			return wrap(msg)
		}
	}
}
