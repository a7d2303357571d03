package viewer

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/tui/common"
)

// Minimum terminal size for the standalone viewer.
const minWidth, minHeight = 60, 16

// Standalone runs the viewer as a program of its own (`b2bx view FILE`):
// it takes the terminal's size, quits on q (or ctrl+c, always), shows the
// help line and toggles the full help with ?. The app embeds Model
// instead.
type Standalone struct {
	c    *common.Common
	m    Model
	help help.Model
	full bool
	quit key.Binding
	keys key.Binding
}

// NewStandalone wraps a viewer over src for a program of its own.
func NewStandalone(c *common.Common, src *Source, opts Options) Standalone {
	h := help.New()
	h.Styles.ShortKey, h.Styles.FullKey = c.Styles.Key, c.Styles.Key
	h.Styles.ShortDesc, h.Styles.FullDesc = c.Styles.Muted, c.Styles.Muted
	return Standalone{
		c: c, m: New(c, src, opts), help: h,
		quit: key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		keys: key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "all keys")),
	}
}

// Init implements tea.Model.
func (s Standalone) Init() tea.Cmd { return nil }

// Viewer is the embedded viewer, for tests.
func (s Standalone) Viewer() Model { return s.m }

// Update implements tea.Model.
func (s Standalone) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		s.c.Width, s.c.Height = msg.Width, msg.Height
		s.help.Width = msg.Width
		s.m = s.m.SetSize(msg.Width, max(msg.Height-1, 0))
		return s, nil
	case tea.KeyMsg:
		if msg.Type == tea.KeyCtrlC {
			return s, tea.Quit
		}
		if keys := common.SplitRunes(msg); keys != nil && !s.m.Capturing() {
			var cmds []tea.Cmd
			var model tea.Model = s
			for _, k := range keys {
				var cmd tea.Cmd
				model, cmd = model.Update(k)
				cmds = append(cmds, cmd)
			}
			return model, tea.Batch(cmds...)
		}
		if !s.m.Capturing() {
			switch {
			case key.Matches(msg, s.quit):
				return s, tea.Quit
			case key.Matches(msg, s.keys):
				s.full = !s.full
				return s, nil
			}
		}
	case common.ErrorMsg:
		return s, nil // the viewer shows the error itself
	}
	var cmd tea.Cmd
	s.m, cmd = s.m.Update(msg)
	return s, cmd
}

// View implements tea.Model.
func (s Standalone) View() string {
	if s.c.Width < minWidth || s.c.Height < minHeight {
		return "The viewer needs at least 60x16 characters; enlarge the terminal (q quits)."
	}
	if s.full {
		return s.help.FullHelpView(append(s.m.FullHelp(), []key.Binding{s.keys, s.quit})) + "\n\n? back to the file"
	}
	return s.m.View() + "\n" + s.help.ShortHelpView(append(s.m.ShortHelp(), s.keys, s.quit))
}
