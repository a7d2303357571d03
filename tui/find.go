package tui

import (
	"context"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/conntab"
	"github.com/nutrab2b/b2bx/tui/eventview"
	"github.com/nutrab2b/b2bx/tui/find"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

// Find (issue 14) on the root stack, across every connection: F opens the
// command line with "find " typed, :find QUERY opens the results; enter
// on a result pushes its timeline, enter on a step its own screen (the
// viewer on the stored payload or the ORDERS sent, the ORDRSP diff, the
// event inspector, the mailbox entry in its connection's tab). q and esc
// pop them like every screen.

// Finder is what the root needs of the tracking index: find's Source and
// the profile of a connection ID (a mailbox step opens its tab).
type Finder interface {
	find.Source
	ProfileOf(ctx context.Context, connID string) (string, error)
}

// selectReq asks the root to show delivery in connection conn's tab (a
// timeline's mailbox step); Owned by the root, so stacks let it pass.
type selectReq struct {
	conn, delivery string
}

func (selectReq) Owner() common.TabID { return common.RootOwner }

// profileMsg is the profile of a connection a mailbox step named, for a
// tab that is not open yet.
type profileMsg struct {
	name, delivery string
	err            error
}

func (profileMsg) Owner() common.TabID { return common.RootOwner }

// openFind is :find QUERY.
func (m Model) openFind(query string) (Model, tea.Cmd) {
	query = strings.TrimSpace(query)
	switch {
	case query == "":
		return m.showError(common.ErrorMsg{Text: ":find needs what to look for, e.g. :find PO-4711 (po:, icr:, gln:, key:, id:, type: narrow it)"}), nil
	case m.finder == nil:
		return m.showError(common.ErrorMsg{Text: ":find needs the tracking index, which this session has not got"}), nil
	}
	return m.push(find.New(m.c, common.RootOwner, m.finder, query, m.openers())) // its Init runs the query

}

// openers build the screens a timeline step opens, on the root stack.
func (m Model) openers() find.Openers {
	c, team := m.c, m.teamData
	return find.Openers{
		Viewer: func(owner common.TabID, path string) tea.Cmd {
			return func() tea.Msg {
				o := viewer.Opened(context.Background(), c, owner, 0, path, viewer.Options{})
				if o.Err != nil { // not on this machine: a colleague's, from the team store
					if t, ok := teamViewer(context.Background(), c, owner, team, path); ok {
						return t
					}
				}
				return o
			}
		},
		Diff: func(owner common.TabID, orders, ordrsp string) tea.Cmd {
			return func() tea.Msg { return conntab.DiffOpened(context.Background(), c, owner, 0, orders, ordrsp) }
		},
		Event: func(owner common.TabID, capture, _ string) tea.Cmd {
			return common.Push(owner, eventview.New(c, eventview.Options{Path: capture}).Screen())
		},
		Claim: func(_ common.TabID, conn, delivery string) tea.Cmd {
			return func() tea.Msg { return selectReq{conn: conn, delivery: delivery} }
		},
	}
}

// findMsg handles the root's find messages; ok false for any other.
func (m Model) findMsg(msg common.Owned) (Model, tea.Cmd, bool) {
	switch msg := msg.(type) {
	case selectReq:
		m, cmd := m.showDelivery(msg)
		return m, cmd, true
	case profileMsg:
		if msg.err != nil {
			return m.showError(common.ErrorMsg{Text: "cannot open the connection of this step: " + termsafe.String(msg.err.Error())}), nil, true
		}
		m, cmd := m.openConn(msg.name, true)
		for id, p := range m.opening {
			if p.name == msg.name {
				m.showOnOpen[id] = msg.delivery // shown once the tab is there (showOpened)
			}
		}
		return m, cmd, true
	}
	return m, nil, false
}

// showDelivery is a mailbox step: the find screens close, the tab of its
// connection comes to the front with the delivery selected (or its
// stored payload in the viewer). A connection with no open tab is opened;
// enter on the step again then shows the delivery.
func (m Model) showDelivery(r selectReq) (Model, tea.Cmd) {
	for i, t := range m.tabs {
		if t.conn == nil || t.conn.Target.ConnectionID != r.conn {
			continue
		}
		m.screens.PopWhile(find.Owns) // the results and timelines on top
		m.active = i + 1
		id := t.id
		return m.layout(), func() tea.Msg { return conntab.SelectMsg{Tab: id, Delivery: r.delivery} }
	}
	f := m.finder
	return m, func() tea.Msg {
		name, err := f.ProfileOf(context.Background(), r.conn)
		return profileMsg{name: name, delivery: r.delivery, err: err}
	}
}

// showOpened is the command that shows the delivery a timeline step asked
// for in tab id, which has just opened; nil when none was asked for.
func (m Model) showOpened(id common.TabID) tea.Cmd {
	d, ok := m.showOnOpen[id]
	if !ok {
		return nil
	}
	delete(m.showOnOpen, id)
	return func() tea.Msg { return conntab.SelectMsg{Tab: id, Delivery: d} }
}
