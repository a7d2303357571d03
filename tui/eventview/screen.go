package eventview

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/tui/common"
)

// Closes reports whether k closes the inspector on top of its stack: q,
// or esc when there is no step to go back (no filter to clear, no run
// to stop, no report to return to), while no input has the keys.
func (m Model) Closes(k tea.KeyMsg) bool {
	return !m.Capturing() && (k.String() == "q" || (k.Type == tea.KeyEsc && m.atRest()))
}

// atRest: esc has nothing to go back to but closing the screen.
func (m Model) atRest() bool {
	switch m.stage {
	case stageReport:
		return m.filter == ""
	case stageLoading:
		return false
	}
	return m.rep == nil && m.loadErr == ""
}

// Screen is the inspector as a screen of a stack (common.Screen).
func (m Model) Screen() common.Screen { return common.Adapt(m) }

// FromScreen is the inspector a screen shows, if it is one.
func FromScreen(s common.Screen) (Model, bool) { return common.As[Model](s) }
