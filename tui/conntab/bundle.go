package conntab

import (
	"context"
	"errors"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/internal/buildinfo"
	"github.com/nutrab2b/b2bx/internal/bundle"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// bundleReq asks the tab for a ticket bundle of a stored delivery or an
// upload (id: deliveryAttemptId, uploadId or key); bundleMsg is its
// result.
type (
	bundleReq struct {
		msgBase
		id string
	}
	bundleMsg struct {
		msgBase
		res *bundle.Result
		err error
	}
)

// bundleDir is where T writes bundles: the working directory, like
// `b2bx bundle` without -o.
var bundleDir = ""

// startBundle writes the ticket bundle for id in the background (local
// files only: the store's payload, sidecar and history).
func (m Model) startBundle(id string) (Model, tea.Cmd) {
	if m.links.store == nil {
		return m, infoErrCmd("this tab has no local store to bundle from")
	}
	if id == "" {
		return m, infoCmd("T bundles the selected entry or upload: select one first")
	}
	store, conn, tab, now, tl, col := m.links.store, m.links.connID, m.id, m.c.Now, m.timeline, m.colleague
	dir := ""
	if m.conn != nil {
		dir = m.conn.Target.Directory
	}
	return m, tea.Batch(infoCmd("writing the ticket bundle…"), func() tea.Msg {
		res, err := bundle.Write(context.Background(), bundle.Options{Store: store, ConnectionID: conn, ID: id,
			OutDir: bundleDir, Version: buildinfo.Read().String(), Now: now, Timeline: tl, Directory: dir, Colleague: col})
		return bundleMsg{msgBase: msgBase{tab: tab}, res: res, err: err}
	})
}

// onBundle shows where the bundle went; y offers its path.
func (m Model) onBundle(msg bundleMsg) (Model, tea.Cmd) {
	if msg.err != nil {
		why := termsafe.String(msg.err.Error())
		if errors.Is(msg.err, bundle.ErrNotFound) {
			why = "it is not in the local store: T bundles downloaded deliveries and this connection's uploads (d downloads)"
		}
		return m, infoErrCmd("no bundle: " + capText(why))
	}
	m.bundlePath = msg.res.Dir
	m.stack.Update(msg) // the uploads screen offers the path to y as well
	return m, infoCmd("bundle for the partner's operator: " + termsafe.String(msg.res.Dir) + " (and .tar.gz) · y copies the path")
}

// bundleSelected is T in the mailbox: the selected (or claimed) entry.
func (m Model) bundleSelected() (Model, tea.Cmd) {
	if cl := m.claim; cl != nil {
		return m.startBundle(cl.entry.DeliveryAttemptID)
	}
	id, _ := m.table.SelectedID()
	return m.startBundle(id)
}
