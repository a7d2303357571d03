package conntab

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/tui/common"
)

// The tab's y/N prompt (common.Prompt) and its filter are screens on
// its stack too, but drawn in the bottom pane under the mailbox, which
// stays in view (common.Inline): the next key answers a prompt; the
// filter takes the keys until enter keeps it or esc clears it. They
// capture every key, so the close rule and the shell's keys step aside.

// inPane reports whether s draws in the pane (the mailbox shows).
func inPane(s common.Screen) bool { return common.IsInline(s) }

// promptKind is what a y/N prompt confirms.
type promptKind int

const (
	promptClaim promptKind = iota // claim an entry that is not the head
	promptDrop                    // drop an active claim
)

// prompt is a y/N question of the tab: what y confirms, on which entry.
type prompt struct {
	kind  promptKind
	entry apiclient.Entry
	text  string
}

// promptYes is what a prompt hands the tab on y: the prompt, to do.
type promptYes struct{ p prompt }

// ask puts a y/N question on the tab's stack; y hands back promptYes
// (after.go), any other key nothing.
func (m Model) ask(p prompt) Model {
	m.stack.Push(common.NewPrompt(p.text, promptYes{p}, nil).WithKeys(m.keys.Yes, m.keys.No))
	return m.layout()
}

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

func (f filterScreen) Inline() bool { return true }
func (f filterScreen) InlineView(*common.Styles, int) []string {
	return []string{common.InputView(f.in)}
}
func (f filterScreen) View() string { return common.InputView(f.in) }

// Report implements common.Reporter: the filter applies as it is typed.
func (f filterScreen) Report() tea.Msg { return filterMsg{f.Value()} }

// Result implements common.Resulter: the filter kept (enter) or cleared
// (esc).
func (f filterScreen) Result() tea.Msg { return filterMsg{f.Value()} }

// filterMsg is the filter as typed, for the table.
type filterMsg struct{ value string }

func (f filterScreen) SetSize(int, int) common.Screen { return f }
func (f filterScreen) ShortHelp() []key.Binding       { return f.keys }
func (f filterScreen) FullHelp() [][]key.Binding      { return [][]key.Binding{f.ShortHelp()} }
func (f filterScreen) Capturing() bool                { return true }
func (f filterScreen) Closes(tea.KeyMsg) bool         { return false }
func (f filterScreen) Title() string                  { return "filter" }
func (f filterScreen) Done() bool                     { return f.done }
