package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/conntab"
	"github.com/nutrab2b/b2bx/tui/eventview"
	"github.com/nutrab2b/b2bx/tui/logview"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

// The root stack's screens of their own: the help and the : line (it
// draws in the footer, the page stays in view). The y/N prompt is
// common.Prompt; the others come from their packages: logview,
// eventview, viewer, find.

// helpScreen is `?`: the keys of what is under it, the shell's, the
// commands and the close rule, rendered when it opens.
type helpScreen struct {
	common.Base
	text string
	keys []key.Binding
}

func (h helpScreen) Update(tea.Msg) (common.Screen, tea.Cmd) { return h, nil }
func (h helpScreen) View() string                            { return h.text }
func (h helpScreen) SetSize(int, int) common.Screen          { return h }
func (h helpScreen) ShortHelp() []key.Binding                { return h.keys }
func (h helpScreen) FullHelp() [][]key.Binding               { return [][]key.Binding{h.keys} }
func (h helpScreen) Title() string                           { return "help" }
func (h helpScreen) Closes(k tea.KeyMsg) bool {
	switch k.String() {
	case "?", "q", "esc":
		return true
	}
	return false
}

// cmdScreen is the `:` line; enter or esc ends it (Done); enter hands
// the root what was entered (cmdEntered), which it runs.
type cmdScreen struct {
	common.Base
	in      textinput.Model
	entered bool
	done    bool
}

func newCmdScreen() (cmdScreen, tea.Cmd) { return newCmdScreenWith("") }

// newCmdScreenWith is the : line with text already typed (F: "find ").
func newCmdScreenWith(text string) (cmdScreen, tea.Cmd) {
	in := textinput.New()
	in.Prompt = ":"
	in.CharLimit = 200
	_ = in.Cursor.SetMode(cursor.CursorStatic)
	cmd := in.Focus()
	in.SetValue(text)
	in.CursorEnd()
	return cmdScreen{in: in}, cmd
}

func (c cmdScreen) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch k.Type {
		case tea.KeyEsc:
			c.done = true
			return c, nil
		case tea.KeyEnter:
			c.done, c.entered = true, true
			return c, nil
		}
	}
	var cmd tea.Cmd
	c.in, cmd = c.in.Update(msg)
	return c, cmd
}

func (c cmdScreen) View() string { return common.InputView(c.in) }
func (c cmdScreen) SetSize(w, _ int) common.Screen {
	c.in.Width = max(w-2, 10)
	return c
}
func (c cmdScreen) Capturing() bool        { return true }
func (c cmdScreen) Closes(tea.KeyMsg) bool { return false }
func (c cmdScreen) Title() string          { return "command" }
func (c cmdScreen) Done() bool             { return c.done }
func (c cmdScreen) Value() string          { return c.in.Value() }
func (c cmdScreen) Inline() bool           { return true }
func (c cmdScreen) InlineView(*common.Styles, int) []string {
	return []string{c.View()}
}

// Result implements common.Resulter: the line entered (enter), nothing
// (esc).
func (c cmdScreen) Result() tea.Msg {
	if c.entered {
		return cmdEntered{text: c.in.Value()}
	}
	return nil
}

// cmdEntered is the : line's result: the root runs text.
type cmdEntered struct{ text string }

// page is the screen the body shows: the highest root screen that is not
// drawn in the footer, nil when the active page (list or tab) shows.
func (m Model) page() common.Screen {
	ss := m.screens.Screens()
	for i := len(ss) - 1; i >= 0; i-- {
		if !common.IsInline(ss[i]) {
			return ss[i]
		}
	}
	return nil
}

// push puts s on the root stack.
func (m Model) push(s common.Screen) (Model, tea.Cmd) {
	cmd := m.screens.Push(s)
	return m.layout(), cmd
}

// rootMsg is an owned message for the root stack.
func (m Model) rootMsg(msg common.Owned) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case common.Opened:
		cmd, err := m.screens.Open(msg)
		if err != nil {
			return m.showError(common.ErrorMsg{Text: termsafe.String(err.Error())}), nil
		}
		return m.layout(), cmd
	case common.ScreenMsg:
		return m.finished(m.screens.Deliver(msg))
	}
	if m, cmd, ok := m.findMsg(msg); ok {
		return m.layout(), cmd
	}
	return m, nil
}

// finished acts on what a root screen handed back (common.Resulter):
// the : line's text is run, a prompt's answer is done. The root reads
// messages here, never the screen.
func (m Model) finished(res tea.Msg, cmd tea.Cmd) (Model, tea.Cmd) {
	m = m.layout()
	var then tea.Cmd
	switch r := res.(type) {
	case cmdEntered:
		m, then = m.run(r.text)
	case quitReq:
		m, then = m.quit(true)
	case closeReq:
		m = m.closeTab(r.tab)
	case common.Info:
		m.foot = m.foot.withInfo(r)
		m = m.layout()
	}
	return m, tea.Batch(cmd, then)
}

// openView is :view PATH: in a connection tab the tab opens it (next to
// v and D on its stored payloads); on the connection list the root
// stack does.
func (m Model) openView(path string) (Model, tea.Cmd) {
	path = strings.TrimSpace(path)
	if t := m.activeTab(); t != nil {
		id := t.id
		return m, func() tea.Msg { return conntab.ViewMsg{Tab: id, Path: path} }
	}
	if path == "" {
		return m.showError(common.ErrorMsg{Text: ":view needs a file: :view PATH (in a connection's tab, v views a downloaded entry)"}), nil
	}
	path = common.ExpandHome(path)
	req, ctx := m.screens.Prepare(m.ctx, "opening the viewer")
	c := m.c
	return m, func() tea.Msg { return viewer.Opened(ctx, c, common.RootOwner, req, path, viewer.Options{}) }
}

// openEvents opens the event inspector (a fresh one) on path, or on the
// file picker when path is "". With a connection tab active, K in it
// reads that profile's webhook secret from the session's store.
func (m Model) openEvents(path string) (Model, tea.Cmd) {
	return m.openEventsWith(eventview.Options{Path: path})
}

// openEventsLive opens the inspector in live mode (`:events listen
// [ADDR]`): it runs the webhook receiver until the screen closes.
func (m Model) openEventsLive(addr string) (Model, tea.Cmd) {
	if addr == "" {
		addr = m.evListenAddr
	}
	return m.openEventsWith(eventview.Options{Listen: true, ListenAddr: addr, LiveDir: m.evDir})
}

func (m Model) openEventsWith(opts eventview.Options) (Model, tea.Cmd) {
	if t := m.activeTab(); t != nil {
		opts.Profile, opts.Store = t.name, m.secretStore()
	}
	_, cmd := m.screens.Replace(eventview.New(m.c, opts).Screen()) // a fresh inspector replaces the one on top
	return m.layout(), cmd
}

// openLog is L: the session log.
func (m Model) openLog() (Model, tea.Cmd) {
	return m.push(logview.NewModel(m.c, m.logH).Screen())
}

// secretStore is the session's secret store when the backend has one.
func (m Model) secretStore() credentials.SecretStore {
	if s, ok := m.be.(interface {
		SecretStore() credentials.SecretStore
	}); ok {
		return s.SecretStore()
	}
	return nil
}
