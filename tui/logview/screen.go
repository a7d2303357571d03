package logview

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/tui/common"
)

// Screen is the session log, opened, as a screen of a stack
// (common.Screen): L, q and esc close it; its refresh tick runs while
// it is on the stack.
func (m Model) Screen() common.Screen {
	m, _ = m.Open()
	return common.Adapt(m)
}

// FromScreen is the log view a screen shows, if it is one.
func FromScreen(s common.Screen) (Model, bool) { return common.As[Model](s) }

// Init starts the refresh tick when the log is pushed (common.Initer).
func (m Model) Init() tea.Cmd { return m.tick() }

// Capturing implements common.Screen: the log has no text input.
func (Model) Capturing() bool { return false }

// Title implements common.Screen.
func (Model) Title() string { return "session log" }

// Closes implements common.Screen: L, q and esc.
func (Model) Closes(k tea.KeyMsg) bool {
	switch k.String() {
	case "L", "q", "esc":
		return true
	}
	return false
}
