package conntab

import (
	"context"
	"errors"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/fix"
)

// links is what the tab knows about its uploads and the answers among
// its stored deliveries (upload.LoadLinked), read from the local store
// only: a mailbox entry is linked once it was downloaded and verified.
type links struct {
	store  *spool.Store // nil: the tab has no local store (tests)
	connID string
	load   up.Loader // reads the link input (nil: the store, reusing what the last load read)
	// loadFor reads the link input of some uploads (the upload screen)
	loadFor up.SelectLoader
	// verdicts reads the pre-flight history's verdicts (nil: loadFor's)
	verdicts up.VerdictLoader
	// sentBy reads who sent the team's uploads (Options.SentBy); by is
	// its last answer
	sentBy func(ctx context.Context, conn string) map[string]string
	by     map[string]string
	// loadOf reads the link input of some stored deliveries: the tab's
	// own, for its mailbox rows (nil: load, the whole connection). With
	// it the tab reads what its rows' conversations hold, not the store,
	// until H or the fix flow needs every upload (whole).
	loadOf up.DeliveriesLoader
	whole  bool // the tab wants the whole connection's links (H was opened)
	// fix is a fix (v or E on a rejected upload) asked for while cur
	// held only the rows' links: it runs once the whole connection's are
	// read, so one key press is enough
	fix    *fix.OpenMsg
	of     bool               // cur holds only the link input of the rows (loadOf)
	sel    string             // the delivery a timeline asked for, read with the rows by the last rowLinks
	sla    track.SLA          // the profile's answer deadlines: when an upload is overdue (H)
	cur    *up.Linked         // the last load; nil before the first
	err    error              // the last load failed
	req    uint64             // the load the tab waits for; 0 when none
	cancel context.CancelFunc // stops that load (a newer one replaces it)
	// pending are deliveries stored while P or W ran: they are linked
	// once the tab is idle, so parsing them (a 16 MiB ORDRSP takes
	// ~25 ms of CPU) never competes with a download or an acknowledge.
	pending []spool.Stored
}

// linksMsg is a finished load of the links.
type linksMsg struct {
	msgBase
	linked *up.Linked
	by     map[string]string // who sent the team's uploads (Options.SentBy)
	err    error
	of     bool // the link input of the rows only (loadOf)
}

// loadLinks reads the upload history and the stored answers again in the
// background (payloads already read are not parsed again): of the rows
// the tab shows (rowLinks), or of the whole connection once H wants it.
func (m Model) loadLinks() (Model, tea.Cmd) {
	if m.links.store == nil {
		return m, nil
	}
	if m.links.loadOf != nil && !m.links.whole {
		return m.rowLinks()
	}
	m, req, ctx := m.startLinks()
	store, conn, prev, tab, load, sentBy := m.links.store, m.links.connID, m.links.cur, m.id, m.links.load, m.links.sentBy
	return m, func() tea.Msg {
		var by map[string]string
		if sentBy != nil {
			by = sentBy(ctx, conn)
		}
		if load != nil {
			l, err := load(ctx, store, conn)
			return linksMsg{msgBase{tab, req}, l, by, err, false}
		}
		l, err := up.LoadLinked(ctx, store, conn, prev)
		return linksMsg{msgBase{tab, req}, l, by, err, false}
	}
}

// startLinks hands out the request of a new load; a load still running
// is stopped (its answer would be dropped anyway).
func (m Model) startLinks() (Model, uint64, context.Context) {
	m = m.stopLinks()
	req := m.nextReq()
	ctx, cancel := context.WithCancel(context.Background())
	m.links.req, m.links.cancel = req, cancel
	return m, req, ctx
}

// stopLinks stops the load the tab waits for, if any.
func (m Model) stopLinks() Model {
	if m.links.cancel != nil {
		m.links.cancel()
	}
	m.links.req, m.links.cancel = 0, nil
	return m
}

// storedNow links a delivery just stored: at once when the operator is
// stepping (c, d), after the run when P or W is processing.
func (m Model) storedNow(st *spool.Stored) (Model, tea.Cmd) {
	m = m.noteStored(st) // for the tracking index, once the tab is idle (index.go)
	if m.links.store == nil || st == nil {
		return m, nil
	}
	if m.ordering() {
		m.links.pending = append(m.links.pending, *st)
		return m, nil
	}
	return m.linkStored(st)
}

// flushLinks links what was stored while P or W ran, once the tab is
// idle: one delivery on its own, several by reading the store again.
func (m Model) flushLinks() (Model, tea.Cmd) {
	if len(m.links.pending) == 0 || m.work != nil || m.ordering() {
		return m, nil
	}
	pending := m.links.pending
	m.links.pending = nil
	if len(pending) == 1 {
		return m.linkStored(&pending[0])
	}
	return m.loadLinks()
}

// linkStored links a delivery just stored. When the links are loaded and
// nothing else is being read, only its payload is read (WithDelivery),
// so worker mode over thousands of entries does not read the whole store
// after each one; otherwise the store is read again.
func (m Model) linkStored(st *spool.Stored) (Model, tea.Cmd) {
	if m.links.store == nil || st == nil {
		return m, nil
	}
	if m.links.cur == nil || m.links.req != 0 || m.links.of {
		return m.loadLinks() // the rows' links: WithDelivery would link it to the rows' uploads only
	}
	m, req, ctx := m.startLinks()
	cur, s, tab, by := m.links.cur, *st, m.id, m.links.by
	return m, func() tea.Msg {
		l, err := cur.WithDelivery(ctx, s)
		return linksMsg{msgBase{tab, req}, l, by, err, false}
	}
}

// rowLinks reads the link input of the deliveries the tab shows: its
// rows, the claim's and the one a timeline asked to see (loadOf). So
// opening a tab reads its page's conversations, not the store (issue 23
// §1); a delivery just stored is read from the index like the others.
func (m Model) rowLinks() (Model, tea.Cmd) {
	m, req, ctx := m.startLinks()
	rows := m.table.Rows()
	ids := make([]string, 0, len(rows)+2)
	for _, r := range rows {
		ids = append(ids, r.ID())
	}
	if m.claim != nil {
		ids = append(ids, m.claim.entry.DeliveryAttemptID)
	}
	if m.links.sel = m.selectWant; m.selectWant != "" {
		ids = append(ids, m.selectWant)
	}
	store, conn, tab, load := m.links.store, m.links.connID, m.id, m.links.loadOf
	return m, func() tea.Msg {
		l, err := load(ctx, store, conn, ids)
		return linksMsg{msgBase: msgBase{tab, req}, linked: l, err: err, of: true}
	}
}

// asked reports whether the last rowLinks read delivery id as the one a
// timeline asked for.
func (l links) asked(id string) bool { return l.sel == id }

// wholeLinks makes the tab read the whole connection's link input from
// now on (H lists every upload) and starts reading it.
func (m Model) wholeLinks() (Model, tea.Cmd) {
	m.links.whole = true
	return m.loadLinks()
}

// rowsChanged reads the links of new rows (a page, the backlog) when the
// tab reads only its rows' links.
func (m Model) rowsChanged() (Model, tea.Cmd) {
	if m.links.loadOf == nil || m.links.whole {
		return m, nil
	}
	return m.loadLinks()
}

func (m Model) onLinks(msg linksMsg) (Model, tea.Cmd) {
	if msg.req != m.links.req {
		return m, nil
	}
	m = m.stopLinks()
	if errors.Is(msg.err, context.Canceled) {
		return m, nil
	}
	if msg.err != nil {
		m.links.err, m.links.fix = msg.err, nil
		return m, m.errorMsgCmd(apiErrorMsg{text: "the upload history or the stored deliveries could not be read, so answers are not linked: " +
			capText(termsafe.String(msg.err.Error())), action: "check the store directory's permissions and the history file"})
	}
	m.links.cur, m.links.err, m.links.of = msg.linked, nil, msg.of
	if !msg.of { // the whole connection's: who sent its uploads with it
		m.links.by = msg.by
		m.stack.Notify(linkedNews{msg.linked, msg.by}) // the uploads screen shows them
		if f := m.links.fix; f != nil {
			m.links.fix = nil
			return m.openFix(*f)
		}
	}
	return m, nil
}

// linkedNews are new links for the screens of the stack that show them
// (common.Listener).
type linkedNews struct {
	linked *up.Linked
	by     map[string]string
}

// Notice implements common.Listener: the uploads screen takes new links.
func (a answersScreen) Notice(msg tea.Msg) common.Screen {
	if n, ok := msg.(linkedNews); ok {
		a.by = n.by
		return a.withLinked(n.linked)
	}
	return a
}

// linkLines say what a delivery answers, for the details pane and the
// claim panel: one line per answer, or why it cannot be linked yet, and
// the keys for a stored one (with its path when withPath).
func (m Model) linkLines(id, msgType string, withPath bool) []string {
	s := m.c.Styles
	const label = "  answer       "
	d, stored := m.links.cur.Delivery(id)
	switch {
	case m.links.store == nil:
		return nil
	case !stored && !up.MayAnswer(msgType):
		return nil
	case !stored && m.pendingLink(id):
		return []string{label + s.Muted.Render("stored: linked to its upload once this run (P, W) is over")}
	case !stored && (m.links.cur == nil || m.links.req != 0):
		return []string{label + s.Muted.Render("reading the local store…")}
	case !stored:
		return []string{label + s.Muted.Render("not downloaded yet: linked to its upload once downloaded (d)")}
	}
	var lines []string
	for _, l := range m.links.cur.AnswerLines(id) {
		lines = append(lines, label+l)
	}
	if d.Err != nil {
		lines = append(lines, label+s.Warn.Render(s.Marks.Warn+" not linked: "+capText(termsafe.String(d.Err.Error()))))
	}
	keys := s.Key.Render("v") + " view"
	if _, ok := m.links.cur.OrdrspUpload(id); ok {
		keys += " · " + s.Key.Render("D") + " what the partner changed against the ORDERS sent"
	}
	if withPath {
		lines = append(lines, "  stored       "+termsafe.String(d.Stored.Path))
	}
	return append(lines, "               "+keys)
}

// pendingLink reports whether delivery id waits to be linked after the
// run (storedNow).
func (m Model) pendingLink(id string) bool {
	for _, st := range m.links.pending {
		if st.Meta.DeliveryAttemptID == id {
			return true
		}
	}
	return false
}

// claimLinkLines: the claim's delivery once it is stored.
func (m Model) claimLinkLines() []string {
	cl := m.claim
	if cl == nil || cl.res == nil || cl.res.Stored == nil {
		return nil
	}
	return m.linkLines(cl.entry.DeliveryAttemptID, cl.entry.MessageType, false)
}
