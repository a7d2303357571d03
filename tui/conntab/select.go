package conntab

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// SelectMsg asks tab Tab to show delivery Delivery (a timeline's mailbox
// step): the row selected in the mailbox with its details, or, when it
// is no longer due (acknowledged), the viewer on its stored payload.
type SelectMsg struct {
	Tab      common.TabID
	Delivery string
}

// Owner implements common.Owned.
func (m SelectMsg) Owner() common.TabID { return m.Tab }

func (m Model) onSelect(msg SelectMsg) (Model, tea.Cmd) {
	id := msg.Delivery
	if !m.pager.loaded || m.links.req != 0 {
		m.selectWant = id // a tab just opened: once its first page and links are read
		return m, nil
	}
	if m.stack.Len() > 0 {
		return m, infoCmd("close the screen on top (q) to see delivery " + termsafe.String(id) + " in the mailbox")
	}
	if m.table.Select(id) {
		return m, infoCmd("delivery " + termsafe.String(id) + " selected")
	}
	if d, stored := m.links.cur.Delivery(id); stored {
		path := d.Stored.Path
		return m.openViewer(func() (string, error) { return path, nil }, deliveryTitle(id, d.Stored.Meta.MessageType))
	}
	if m.links.of && !m.links.asked(id) { // the rows' links only: read this delivery's too, then again
		m.selectWant = id
		return m.loadLinks()
	}
	return m, infoCmd("delivery " + termsafe.String(id) + " is not on this page of the mailbox and not stored here: A loads the whole backlog")
}

// flushSelect shows the delivery a SelectMsg asked for before the first
// page and the links were read, once they are.
func (m Model) flushSelect() (Model, tea.Cmd) {
	if m.selectWant == "" || !m.pager.loaded || m.links.req != 0 {
		return m, nil
	}
	id := m.selectWant
	m.selectWant = ""
	return m.onSelect(SelectMsg{Tab: m.id, Delivery: id})
}
