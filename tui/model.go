package tui

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/settings"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/connlist"
	"github.com/nutrab2b/b2bx/tui/logview"
)

// MinWidth and MinHeight are the smallest terminal the app draws in.
const (
	MinWidth  = 80
	MinHeight = 24
)

// Backend connects to a named connection (IO, inside a tea.Cmd) and builds
// its tab (no IO, inside Update).
type Backend interface {
	Connect(ctx context.Context, name string) (*session.Conn, error)
	NewTab(c *common.Common, id common.TabID, conn *session.Conn) Tab
}

// Model is the app's root model: tabs bar, the active page (the
// connection list or a connection's tab), status bar and footer.
type Model struct {
	c    *common.Common
	ctx  context.Context
	keys common.KeyMap
	be   Backend

	list connlist.Model
	logH *logview.Handler // the session log's records (L shows them)
	help help.Model

	tabs    []openTab
	active  int // 0: the connection list; i > 0: tabs[i-1]
	nextID  common.TabID
	opening map[common.TabID]pendingOpen
	startup []common.TabID // connections Init connects (b2bx demo)

	// screens is the root stack over the page: help, the session log,
	// the event inspector, :view on the connection list, and the : line
	// and y/N prompts, which draw in the footer (screens.go).
	screens common.Stack
	foot    footer
	bodyH   int
	// evListenAddr and evDir are live mode's defaults (Options).
	evListenAddr, evDir string

	finder     Finder                  // the tracking index for F and :find (find.go); nil: none
	showOnOpen map[common.TabID]string // tab opening → the delivery a timeline step asked to show

	quitState    *settings.State // the tabs as they were when q quit (they are closed by then)
	statePath    string          // Options.StatePath: where the open tabs are remembered; "" for nowhere
	onFirstFrame func()          // Options.OnFirstFrame; nil when none
	sized        bool            // a window size arrived (the first real frame)

	team     TeamStore // Options.TeamStore; nil: no team store, no status
	teamLine string    // its status bar line, refreshed by teamTickMsg
	teamData TeamData  // Options.Team; nil: this machine's data only
}

// firstFrameDelay is how long after the first window size the first full
// frame is surely on screen: two frames of the renderer's 60 per second.
const firstFrameDelay = 35 * time.Millisecond

// firstFrameMsg says the first full frame has been drawn.
type firstFrameMsg struct{}

// pendingOpen is a connection being connected in the background.
type pendingOpen struct {
	name  string
	focus bool // make it the active tab when it opens
}

// openedMsg is the result of connecting: the shell builds the tab.
type openedMsg struct {
	id   common.TabID
	name string
	conn *session.Conn
	err  error
}

// New builds the root model. Nothing is read or opened until the Cmds of
// Init run, so the first frame never waits on a file, the keyring or the
// network.
func New(ctx context.Context, c *common.Common, be Backend, src connlist.Source, lh *logview.Handler, listOpts connlist.Options, open []string) Model {
	h := help.New()
	h.ShortSeparator = " · "
	h.Styles.ShortKey, h.Styles.FullKey = c.Styles.Key, c.Styles.Key
	h.Styles.ShortDesc, h.Styles.FullDesc = c.Styles.Muted, c.Styles.App
	h.Styles.ShortSeparator, h.Styles.FullSeparator = c.Styles.Muted, c.Styles.Muted
	m := Model{
		c: c, ctx: ctx, keys: common.DefaultKeyMap(), be: be,
		list: connlist.New(ctx, c, src, listOpts), logH: lh, screens: common.NewStack(common.RootOwner),
		help: h, nextID: 1, opening: map[common.TabID]pendingOpen{}, showOnOpen: map[common.TabID]string{},
	}
	for i, name := range open {
		id := m.newID()
		m.opening[id] = pendingOpen{name: name, focus: i == 0}
		m.startup = append(m.startup, id)
	}
	return m
}

// newID hands out the next tab ID; IDs are never reused.
func (m *Model) newID() common.TabID {
	id := m.nextID
	m.nextID++
	return id
}

// Init loads the connection list and connects the startup connections.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.list.Init()}
	for _, id := range m.startup {
		cmds = append(cmds, m.connect(id, m.opening[id].name))
	}
	if m.team != nil || m.teamData != nil {
		cmds = append(cmds, func() tea.Msg { return teamTickMsg{} })
	}
	return tea.Batch(cmds...)
}

// Update: window size, then keys (keys.go: owner → tab → top of its
// stack), then the shell's own messages, then owner-tagged results to
// their stack or tab; anything else goes to every page.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.Width, m.c.Height = msg.Width, msg.Height
		if m.sized || m.onFirstFrame == nil {
			return m.layout(), nil
		}
		m.sized = true
		return m.layout(), tea.Tick(firstFrameDelay, func(time.Time) tea.Msg { return firstFrameMsg{} })
	case firstFrameMsg:
		f := m.onFirstFrame
		return m, func() tea.Msg { f(); return nil }
	case teamTickMsg:
		return m.teamTicked()
	case tea.KeyMsg:
		return m.handleKey(msg)
	case connlist.OpenMsg:
		return m.openConn(msg.Name, true)
	case openedMsg:
		return m.opened(msg)
	case common.Info:
		m.foot = m.foot.withInfo(msg)
		return m.layout(), nil
	case common.ErrorMsg:
		return m.showError(msg), nil
	case common.Copy:
		return m.copyItem(msg)
	case common.Exec:
		// The editor of the fix flow: the app suspends; a SIGTERM (ctx)
		// stops a hung editor so the app can end.
		return m, msg.RunContext(m.ctx)
	case common.Owned:
		return m.route(msg)
	}
	return m.broadcast(msg)
}

// route hands an owner-tagged result to the root stack (RootOwner) or to
// its tab; a result for a closed tab is dropped (its work was cancelled
// when it closed), and let go of when it holds something
// (common.Dropped). This is the one staleness check by owner; the stack
// checks the request (Opened.Req) and the screen (ScreenMsg).
func (m Model) route(msg common.Owned) (Model, tea.Cmd) {
	if msg.Owner() == common.RootOwner {
		return m.rootMsg(msg)
	}
	i := m.tabIndex(msg.Owner())
	if i < 0 {
		if d, ok := msg.(common.Dropped); ok {
			d.Drop()
		}
		return m, nil
	}
	var cmd tea.Cmd
	m.tabs[i].tab, cmd = m.tabs[i].tab.Update(msg)
	return m, cmd
}

// broadcast gives a message no one owns to every page.
func (m Model) broadcast(msg tea.Msg) (Model, tea.Cmd) {
	cmds := make([]tea.Cmd, 0, len(m.tabs)+1)
	var cmd tea.Cmd
	m.list, cmd = m.list.Update(msg)
	cmds = append(cmds, cmd)
	for i := range m.tabs {
		m.tabs[i].tab, cmd = m.tabs[i].tab.Update(msg)
		cmds = append(cmds, cmd)
	}
	return m, tea.Batch(cmds...)
}

// tabIndex is the index in m.tabs of the tab with id, or -1.
func (m Model) tabIndex(id common.TabID) int {
	for i, t := range m.tabs {
		if t.id == id {
			return i
		}
	}
	return -1
}

// activeTab is the active connection tab, or nil on the connection list.
func (m Model) activeTab() *openTab {
	if m.active <= 0 || m.active > len(m.tabs) {
		return nil
	}
	return &m.tabs[m.active-1]
}

// capturing reports whether the active page wants every key.
func (m Model) capturing() bool {
	if t := m.activeTab(); t != nil {
		return t.tab.Capturing()
	}
	return m.list.Capturing()
}

// layout gives every page the body's size (the terminal minus tabs bar,
// status bar and footer).
func (m Model) layout() Model {
	w := m.c.Width
	m.bodyH = max(m.c.Height-2-m.footerHeight(), 1)
	m.list = m.list.SetSize(w, m.bodyH)
	m.help.Width = w
	for i := range m.tabs {
		m.tabs[i].tab = m.tabs[i].tab.SetSize(w, m.bodyH)
	}
	m.screens.SetSize(w, m.bodyH)
	return m
}
