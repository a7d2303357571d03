package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/common/commontest"
	"github.com/nutrab2b/b2bx/tui/connlist"
	"github.com/nutrab2b/b2bx/tui/conntab"
	"github.com/nutrab2b/b2bx/tui/eventview"
	"github.com/nutrab2b/b2bx/tui/logview"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

// fakeResult is an owner-tagged async result, like a tab's page load.
type fakeResult struct {
	owner common.TabID
	text  string
}

func (r fakeResult) Owner() common.TabID { return r.owner }

// tabState is a fake tab's shared record (the tab is a value).
type tabState struct {
	mu        sync.Mutex
	got       []string // texts of fakeResults and keys received
	closed    int
	pending   string
	capturing bool
	overlay   bool // a screen lies over the tab (q closes it)
	w, h      int
}

func (s *tabState) record(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, v)
}

func (s *tabState) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// fakeTab is a Tab that records what reaches it.
type fakeTab struct {
	id    common.TabID
	title string
	st    *tabState
}

var fakeKey = key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "fake tab action"))

func (t fakeTab) Init() tea.Cmd { return nil }
func (t fakeTab) Update(msg tea.Msg) (Tab, tea.Cmd) {
	switch msg := msg.(type) {
	case fakeResult:
		t.st.record("result:" + msg.text)
	case tea.KeyMsg:
		t.st.record("key:" + msg.String())
	case conntab.ViewMsg:
		t.st.record("view:" + msg.Path)
	case conntab.SelectMsg:
		t.st.record("select:" + msg.Delivery)
	}
	return t, nil
}
func (t fakeTab) View() string { return "fake tab " + t.title + " body" }
func (t fakeTab) SetSize(w, h int) Tab {
	t.st.mu.Lock()
	t.st.w, t.st.h = w, h
	t.st.mu.Unlock()
	return t
}
func (t fakeTab) ShortHelp() []key.Binding  { return []key.Binding{fakeKey} }
func (t fakeTab) FullHelp() [][]key.Binding { return [][]key.Binding{{fakeKey}} }
func (t fakeTab) Title() string             { return t.title }
func (t fakeTab) Status() Status {
	return Status{Connection: t.title + " conn-1", Page: "page 1", Claim: "claim da-1 lease 0:42", ClaimWarn: true}
}
func (t fakeTab) Pending() string { t.st.mu.Lock(); defer t.st.mu.Unlock(); return t.st.pending }
func (t fakeTab) Capturing() bool { t.st.mu.Lock(); defer t.st.mu.Unlock(); return t.st.capturing }
func (t fakeTab) Close()          { t.st.mu.Lock(); t.st.closed++; t.st.mu.Unlock() }
func (t fakeTab) Closes(k tea.KeyMsg) bool {
	t.st.mu.Lock()
	defer t.st.mu.Unlock()
	return t.st.overlay && k.String() == "q"
}

// fakeBackend connects any name except "bad"; each tab's state is kept
// by name.
type fakeBackend struct {
	mu   sync.Mutex
	tabs map[string]*tabState
}

func newFakeBackend() *fakeBackend { return &fakeBackend{tabs: map[string]*tabState{}} }

func (b *fakeBackend) Connect(_ context.Context, name string) (*session.Conn, error) {
	if name == "bad" {
		return nil, errors.New(`no profile "bad" in /cfg/profiles.toml: see 'b2bx conn ls'`)
	}
	return &session.Conn{Target: session.Target{Name: name}}, nil
}

func (b *fakeBackend) NewTab(_ *common.Common, id common.TabID, conn *session.Conn) Tab {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := &tabState{}
	b.tabs[conn.Target.Name] = st
	return fakeTab{id: id, title: conn.Target.Name, st: st}
}

func (b *fakeBackend) state(name string) *tabState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tabs[name]
}

// fakeSource lists fixed rows.
type fakeSource struct{ rows []connlist.Row }

func (s fakeSource) Profiles(context.Context) (connlist.Listing, error) {
	return connlist.Listing{Path: "/cfg/profiles.toml", Rows: s.rows}, nil
}
func (s fakeSource) States(ctx context.Context) (connlist.Listing, error) { return s.Profiles(ctx) }
func (s fakeSource) Add(context.Context, connlist.NewConn) (string, error) {
	return "", errors.New("not in this test")
}

// newTestModel is a root model at 100×30 with no color.
func newTestModel(t *testing.T, open ...string) (Model, *fakeBackend) {
	t.Helper()
	be := newFakeBackend()
	c := &common.Common{Styles: common.NewStyles(true)}
	src := fakeSource{rows: []connlist.Row{{Name: "acme-de", URL: "http://127.0.0.1:1", ConnectionID: "c-de"}}}
	m := New(context.Background(), c, be, src, logview.New(10, nil), connlist.Options{}, open)
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	return m, be
}

// update runs one message through the model.
func update(t *testing.T, m Model, msg tea.Msg) Model {
	t.Helper()
	nm, _ := m.Update(msg)
	return nm.(Model)
}

// updateCmd runs one message and returns the Cmd too.
func updateCmd(t *testing.T, m Model, msg tea.Msg) (Model, tea.Cmd) {
	t.Helper()
	nm, cmd := m.Update(msg)
	return nm.(Model), cmd
}

// keys presses each key: single characters as runes, else by name.
func press(t *testing.T, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		m = update(t, m, keyMsg(k))
	}
	return m
}

// keyMsg is the key message of a key by its name (commontest.Key).
var keyMsg = commontest.Key

// typeText types s into whatever has the keys.
func typeText(t *testing.T, m Model, s string) Model {
	t.Helper()
	return update(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)})
}

// open opens name as a tab through the real Cmd (Connect) and returns the
// model with the tab in place.
func open(t *testing.T, m Model, name string) Model {
	t.Helper()
	m, cmd := m.openConn(name, true)
	require.NotNil(t, cmd)
	msg := cmd()
	require.IsType(t, openedMsg{}, msg)
	return update(t, m, msg)
}

// collect runs cmd and every batch inside it, returning the messages;
// it must only be used on Cmds that return at once.
func collect(cmd tea.Cmd) []tea.Msg { return commontest.Collect(cmd) }

// isQuit reports whether cmd ends the program.
func isQuit(cmd tea.Cmd) bool {
	for _, msg := range collect(cmd) {
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

func lines(s string) []string { return strings.Split(s, "\n") }

// What the top of the root stack is, named like the old modes: "" when
// the page or a screen that is not a footer, help or log has the keys.
const (
	modeNormal  = ""
	modeCommand = "command"
	modePrompt  = "prompt"
	modeHelp    = "help"
	modeLog     = "session log"
)

func mode(m Model) string {
	switch s := m.screens.Top().(type) {
	case cmdScreen, common.Prompt, helpScreen:
		return s.Title()
	}
	if _, ok := logview.FromScreen(m.screens.Top()); ok {
		return modeLog
	}
	return modeNormal
}

// eventsOpen reports whether the event inspector is on the root stack.
func eventsOpen(m Model) bool {
	for _, s := range m.screens.Screens() {
		if _, ok := eventview.FromScreen(s); ok {
			return true
		}
	}
	return false
}

// shellViewer is the viewer on the root stack (:view on the connection
// list), nil when there is none.
func shellViewer(m Model) *viewer.Model {
	for _, s := range m.screens.Screens() {
		if v, ok := viewer.FromScreen(s); ok {
			return &v
		}
	}
	return nil
}

// cmdline is the : line's text.
func cmdline(m Model) string {
	c, _ := m.screens.Top().(cmdScreen)
	return c.Value()
}

// demoProfileEnv is a demo simulator (perConnection messages per
// connection, canary-prefixed secrets) with one profile, for its first
// connection, in an in-memory store under a temporary directory (returned).
func demoProfileEnv(t *testing.T, perConnection int, canary string) (session.Env, partnersim.DemoConnection, *partnersim.Sim, string) {
	t.Helper()
	d := seedDemoShell(t, canary, perConnection, true)
	return d.env, d.demo.Connections[0], d.sim, d.dir
}
