package upload

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/tui/common"
)

// Closes reports whether k closes the upload screen on top of its
// stack: q, or esc on the file list, while no key is typed and nothing
// is being sent (closing then would leave the outcome unknown; q then
// asks the app's y/N instead).
func (m Model) Closes(k tea.KeyMsg) bool {
	if m.Capturing() || m.Pending() != "" {
		return false
	}
	return k.String() == "q" || (k.Type == tea.KeyEsc && m.stage == stagePick && !m.showHistory)
}

// Title names the screen.
func (m Model) Title() string { return "upload ORDERS" }

// Screen is the upload screen as a screen of a stack (common.Screen).
func (m Model) Screen() common.Screen { return common.Adapt(m) }

// FromScreen is the upload screen a screen shows, if it is one.
func FromScreen(s common.Screen) (Model, bool) { return common.As[Model](s) }

// Left is what the upload screen hands its owner when it leaves its
// stack (common.Resulter): something may have been sent, so the owner
// links its answers again.
type Left struct{}

// Result implements common.Resulter.
func (Model) Result() tea.Msg { return Left{} }
