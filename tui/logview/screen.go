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
	return screen{m}
}

// FromScreen is the log view a screen shows, if it is one.
func FromScreen(s common.Screen) (Model, bool) {
	v, ok := s.(screen)
	return v.Model, ok
}

type screen struct{ Model }

func (s screen) Init() tea.Cmd { return s.tick() }

func (s screen) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	m, cmd := s.Model.Update(msg)
	return screen{m}, cmd
}

func (s screen) SetSize(w, h int) common.Screen { return screen{s.Model.SetSize(w, h)} }
func (s screen) Capturing() bool                { return false }
func (s screen) Close()                         {}
func (s screen) Title() string                  { return "session log" }

func (s screen) Closes(k tea.KeyMsg) bool {
	switch k.String() {
	case "L", "q", "esc":
		return true
	}
	return false
}
