package conntab

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/tui/common"
)

// The tab's y/N prompt and its filter are screens on its stack too, but
// drawn in the bottom pane under the mailbox, which stays in view: the
// next key answers a prompt; the filter takes the keys until enter keeps
// it or esc clears it. They capture every key, so the close rule and the
// shell's keys step aside.

// paneScreen is a screen drawn in the tab's bottom pane.
type paneScreen interface {
	common.Screen
	pane(st *common.Styles) []string
}

// inPane reports whether s draws in the pane (the mailbox shows).
func inPane(s common.Screen) bool {
	_, ok := s.(paneScreen)
	return ok
}

// promptKind is what a y/N prompt confirms.
type promptKind int

const (
	promptClaim promptKind = iota // claim an entry that is not the head
	promptDrop                    // drop an active claim
)

// prompt is a y/N question.
type prompt struct {
	common.Base
	kind  promptKind
	entry apiclient.Entry
	text  string
	keys  []key.Binding // y, N
	yes   bool
	done  bool
}

// ask puts a y/N question on the tab's stack.
func (m Model) ask(p prompt) Model {
	p.keys = []key.Binding{m.keys.Yes, m.keys.No}
	m.stack.Push(p)
	return m.layout()
}

func (p prompt) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		p.yes, p.done = key.Matches(k, p.keys[0]), true
	}
	return p, nil
}

func (p prompt) pane(st *common.Styles) []string {
	return []string{st.Warn.Render(st.Marks.Warn + " " + p.text), st.Key.Render("  y") + " yes   " + st.Key.Render("N") + " no"}
}

func (p prompt) View() string                   { return p.text }
func (p prompt) SetSize(int, int) common.Screen { return p }
func (p prompt) ShortHelp() []key.Binding       { return p.keys }
func (p prompt) FullHelp() [][]key.Binding      { return [][]key.Binding{p.ShortHelp()} }
func (p prompt) Capturing() bool                { return true }
func (p prompt) Closes(tea.KeyMsg) bool         { return false }
func (p prompt) Title() string                  { return "prompt" }
func (p prompt) Done() bool                     { return p.done }

// filterScreen is the / filter's input.
type filterScreen struct {
	common.Base
	in      textinput.Model
	keys    []key.Binding // keep, clear
	cleared bool
	done    bool
}

func newFilter(value string, keys KeyMap) filterScreen {
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = "type, interchange, id, status or sha256"
	in.CharLimit = 200
	in.Cursor.SetMode(cursor.CursorStatic) // no blink ticks: the tab only ticks for countdowns and progress
	in.SetValue(value)
	in.CursorEnd()
	in.Focus()
	return filterScreen{in: in, keys: []key.Binding{keys.FilterKeep, keys.FilterClear}}
}

func (f filterScreen) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch k.Type {
		case tea.KeyEnter:
			f.done = true
			return f, nil
		case tea.KeyEsc:
			f.done, f.cleared = true, true
			return f, nil
		}
	}
	var cmd tea.Cmd
	f.in, cmd = f.in.Update(msg)
	return f, cmd
}

// Value is the filter as typed ("" once esc cleared it).
func (f filterScreen) Value() string {
	if f.cleared {
		return ""
	}
	return f.in.Value()
}

func (f filterScreen) pane(*common.Styles) []string   { return []string{common.InputView(f.in)} }
func (f filterScreen) View() string                   { return common.InputView(f.in) }
func (f filterScreen) SetSize(int, int) common.Screen { return f }
func (f filterScreen) ShortHelp() []key.Binding       { return f.keys }
func (f filterScreen) FullHelp() [][]key.Binding      { return [][]key.Binding{f.ShortHelp()} }
func (f filterScreen) Capturing() bool                { return true }
func (f filterScreen) Closes(tea.KeyMsg) bool         { return false }
func (f filterScreen) Title() string                  { return "filter" }
func (f filterScreen) Done() bool                     { return f.done }
