package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// openConn switches to the tab of name, or connects it in the background.
func (m Model) openConn(name string, focus bool) (Model, tea.Cmd) {
	for i, t := range m.tabs {
		if t.name == name {
			m.active = i + 1
			return m, nil
		}
	}
	for _, p := range m.opening {
		if p.name == name {
			m.foot.info = "still opening " + termsafe.String(name) + "…"
			return m, nil
		}
	}
	id := m.newID()
	m.opening[id] = pendingOpen{name: name, focus: focus}
	m.foot.info = "opening " + termsafe.String(name) + "…"
	return m, m.connect(id, name)
}

// connect resolves the connection's secrets and opens its client and
// spool; it runs as a Cmd (the keyring may take a while).
func (m Model) connect(id common.TabID, name string) tea.Cmd {
	ctx, be := m.ctx, m.be
	return func() tea.Msg {
		conn, err := be.Connect(ctx, name)
		return openedMsg{id: id, name: name, conn: conn, err: err}
	}
}

// opened adds the tab of a connected connection, in the order the opens
// were asked for. A connection whose open was abandoned is closed at once.
func (m Model) opened(msg openedMsg) (Model, tea.Cmd) {
	p, ok := m.opening[msg.id]
	if !ok {
		if msg.conn != nil {
			msg.conn.Close()
		}
		return m, nil
	}
	delete(m.opening, msg.id)
	if msg.err != nil {
		m.foot.info = ""
		e := errorMsgOf(msg.err)
		e.Text = "opening " + termsafe.String(msg.name) + ": " + e.Text
		return m.showError(e), nil
	}
	t := openTab{id: msg.id, name: msg.name, conn: msg.conn, tab: m.be.NewTab(m.c, msg.id, msg.conn)}
	at := len(m.tabs)
	for i, o := range m.tabs {
		if o.id > msg.id {
			at = i
			break
		}
	}
	activeID := common.TabID(0)
	if a := m.activeTab(); a != nil {
		activeID = a.id
	}
	m.tabs = append(m.tabs[:at:at], append([]openTab{t}, m.tabs[at:]...)...)
	switch {
	case p.focus:
		m.active = at + 1
	case activeID != 0:
		m.active = m.tabIndex(activeID) + 1
	}
	if strings.HasPrefix(m.foot.info, "opening ") {
		m.foot.info = ""
	}
	m = m.layout()
	return m, tea.Batch(t.tab.Init(), m.showOpened(t.id))
}

// closeActive closes the active tab, asking first when it says something
// would be lost (unless force).
func (m Model) closeActive(force bool) (Model, tea.Cmd) {
	t := m.activeTab()
	if t == nil {
		m.foot.info = "the connections page stays open; q quits"
		return m, nil
	}
	if p := t.tab.Pending(); p != "" && !force {
		return m.ask("Close "+t.tab.Title()+"? "+p+".", closeReq{tab: t.id}), nil
	}
	return m.closeTab(t.id), nil
}

// closeTab closes the tab with id: its work is cancelled, its lease
// released, its connection's idle sockets closed. Results still on their
// way for it are dropped by route.
func (m Model) closeTab(id common.TabID) Model {
	i := m.tabIndex(id)
	if i < 0 {
		return m
	}
	t := m.tabs[i]
	t.tab.Close()
	t.conn.Close()
	m.tabs = append(m.tabs[:i:i], m.tabs[i+1:]...)
	switch {
	case m.active > i+1:
		m.active--
	case m.active == i+1:
		m.active = min(m.active, len(m.tabs)) // its right neighbour, else the left
	}
	return m.layout()
}

// closeAll closes every tab and forgets connections still opening. It is
// safe to call more than once.
func (m Model) closeAll() Model {
	for _, t := range m.tabs {
		t.tab.Close()
		t.conn.Close()
	}
	m.tabs, m.active = nil, 0
	clear(m.opening)
	m.screens.CloseAll() // a viewer's file, the inspector's keyring read
	return m
}

// pending lists, per tab, what quitting would lose ("" when nothing).
func (m Model) pending() string {
	var parts []string
	for _, t := range m.tabs {
		if p := t.tab.Pending(); p != "" {
			parts = append(parts, t.tab.Title()+": "+p)
		}
	}
	return strings.Join(parts, "; ")
}

// quit ends the app; without force it asks first when a tab would lose
// something. Tabs are closed (leases released) before the program ends.
func (m Model) quit(force bool) (Model, tea.Cmd) {
	if !force {
		if p := m.pending(); p != "" {
			return m.ask("Quit b2bx? "+p+".", quitReq{}), nil
		}
	}
	st := m.State() // what to remember, read before the tabs close
	m.quitState = &st
	m = m.closeAll()
	return m, tea.Quit
}
