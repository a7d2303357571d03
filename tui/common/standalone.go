package common

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Standalone runs one screen as a program of its own (`b2bx view FILE`)
// on a stack of its own: the screen has the terminal but the help line,
// ? toggles every key, and the close rule that closes the screen in the
// app (q, esc at rest) ends the program; ctrl+c always does.
type Standalone struct {
	c          *Common
	stack      Stack
	last       Screen // the screen as last seen, also once it closed
	init       tea.Cmd
	help       help.Model
	full       bool
	minW, minH int
	small      string // shown below minW×minH
	back       string // under the full help
	keys, quit key.Binding
}

// NewStandalone hosts s; below minW×minH it shows small instead, under
// the full help it shows back.
func NewStandalone(c *Common, s Screen, minW, minH int, small, back string) Standalone {
	h := help.New()
	h.Styles.ShortKey, h.Styles.FullKey = c.Styles.Key, c.Styles.Key
	h.Styles.ShortDesc, h.Styles.FullDesc = c.Styles.Muted, c.Styles.Muted
	st := NewStack(RootOwner)
	init := st.Push(s)
	p := Standalone{c: c, stack: st, last: s, init: init, help: h, minW: minW, minH: minH, small: small, back: back,
		quit: key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")), keys: DefaultKeyMap().Help}
	p.keys.SetHelp("?", "all keys")
	return p
}

// Init implements tea.Model.
func (p Standalone) Init() tea.Cmd { return p.init }

// Screen is the hosted screen (as it was when it closed, once it did).
func (p Standalone) Screen() Screen { return p.last }

// Update implements tea.Model.
func (p Standalone) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case Exec:
		return p, msg.Run()
	case tea.WindowSizeMsg:
		p.c.Width, p.c.Height = msg.Width, msg.Height
		p.help.Width = msg.Width
		p.stack.SetSize(msg.Width, max(msg.Height-1, 0))
	case tea.KeyMsg:
		if msg.Type == tea.KeyCtrlC {
			return p, tea.Quit
		}
		top := p.stack.Top()
		if top == nil {
			return p, tea.Quit
		}
		if keys := SplitRunes(msg); keys != nil && !top.Capturing() {
			return EachKey[tea.Model](p, keys, tea.Model.Update)
		}
		if !top.Capturing() && key.Matches(msg, p.keys) {
			p.full = !p.full
			return p, nil
		}
		if !top.Capturing() && top.Closes(msg) {
			return p, tea.Quit // the caller owns what the screen shows (a file it checks after the run)
		}
		_, cmd = p.stack.Key(msg)
	case ScreenMsg:
		_, cmd = p.stack.Deliver(msg)
	case ErrorMsg, Info:
		return p, nil // the screen shows what went wrong itself
	default:
		_, cmd = p.stack.Update(msg)
	}
	if top := p.stack.Top(); top != nil {
		p.last = top
	}
	if p.stack.Len() == 0 {
		return p, tea.Quit
	}
	return p, cmd
}

// View implements tea.Model.
func (p Standalone) View() string {
	if p.c.Width < p.minW || p.c.Height < p.minH {
		return p.small
	}
	if p.full {
		return p.help.FullHelpView(append(p.last.FullHelp(), []key.Binding{p.keys, p.quit})) + "\n\n" + p.back
	}
	return p.last.View() + "\n" + p.help.ShortHelpView(AppendHelp(p.last.ShortHelp(), p.keys, p.quit))
}
