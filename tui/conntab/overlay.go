package conntab

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi/orderdiff"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/viewer"
	up "github.com/nutrab2b/b2bx/upload"
)

// overlay holds the screens the tab lays over its mailbox: the uploads
// and their answers (H), and above it the segment viewer (v, :view PATH)
// or the diff of an ORDRSP (D). esc or q closes the top one. The tab's
// work (a download, countdowns) goes on underneath.
type overlay struct {
	answers *answersScreen
	viewer  *viewer.Model // owns its file until closed
	viewGen uint64        // the open viewer's request: its messages carry it
	diff    *diffScreen
	waiting uint64             // a viewer or diff being prepared; 0 when none
	what    string             // what is being prepared, for the status bar
	cancel  context.CancelFunc // stops what is being prepared; nil when nothing is
}

// prepare starts preparing an overlay (a file to open, a diff): what
// was being prepared before is stopped, its answer will be dropped.
func (m Model) prepare(what string) (Model, uint64, context.Context) {
	m = m.stopPreparing()
	req := m.nextReq()
	ctx, cancel := context.WithCancel(context.Background())
	m.over.waiting, m.over.what, m.over.cancel = req, what, cancel
	return m, req, ctx
}

// stopPreparing stops what is being prepared (esc, a newer request, the
// tab closing); a file it opened is closed when its answer is dropped.
func (m Model) stopPreparing() Model {
	if m.over.cancel != nil {
		m.over.cancel()
	}
	m.over.waiting, m.over.what, m.over.cancel = 0, "", nil
	return m
}

// Preparing reports what the tab is preparing to show ("opening the
// viewer", "comparing"), or "".
func (m Model) Preparing() string { return m.over.what }

// open reports whether any overlay is shown.
func (o overlay) open() bool { return o.answers != nil || o.viewer != nil || o.diff != nil }

// ViewMsg asks the tab Tab to open the segment viewer on Path (the
// shell's `:view PATH`).
type ViewMsg struct {
	Tab  common.TabID
	Path string
}

// Owner implements common.Owned.
func (m ViewMsg) Owner() common.TabID { return m.Tab }

type (
	// openedViewMsg: a file opened and parsed for the viewer. The Source
	// owns the file: whoever drops the message closes it.
	openedViewMsg struct {
		msgBase
		src   *viewer.Source
		title string
		err   error
	}
	// diffMsg: the ORDRSP compared with the ORDERS that was sent.
	diffMsg struct {
		msgBase
		title string
		diffs []*orderdiff.Diff
		err   error
	}
	// viewerMsg carries the open viewer's own messages (its search
	// steps), tagged with the tab so no other tab's viewer takes them.
	viewerMsg struct {
		msgBase
		inner tea.Msg
	}
)

// Drop implements common.Dropped: the file is closed when no tab takes it.
func (m openedViewMsg) Drop() {
	if m.src != nil {
		_ = m.src.Close()
	}
}

// overlayKeys are the keys every overlay shares.
var (
	closeKey  = key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc/q", "close"))
	viewKey   = key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "view the payload"))
	diffKey   = key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "diff ORDRSP vs ORDERS sent"))
	reloadKey = key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload"))
)

// Overlay reports whether a screen (viewer, diff, uploads and answers)
// lies over the mailbox; it takes the keys, and q closes it instead of
// quitting.
func (m Model) Overlay() bool { return m.over.open() }

// overlayKey gives a key to the top overlay.
func (m Model) overlayKey(k tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case m.over.viewer != nil:
		v := *m.over.viewer
		if v.Closes(k) {
			return m.closeViewer(), nil
		}
		var cmd tea.Cmd
		v, cmd = v.Update(k)
		m.over.viewer = &v
		return m, m.wrapViewer(cmd)
	case m.over.diff != nil:
		if key.Matches(k, closeKey) {
			m.over.diff = nil
			return m, nil
		}
		d := m.over.diff.key(k)
		m.over.diff = &d
		return m, nil
	}
	return m.answersKey(k)
}

// closeViewer closes the viewer and its file.
func (m Model) closeViewer() Model {
	if m.over.viewer != nil {
		_ = m.over.viewer.Close()
	}
	m.over.viewer, m.over.viewGen = nil, 0
	return m
}

// closeOverlays closes every overlay (the tab closes).
func (m Model) closeOverlays() Model {
	m = m.stopPreparing().stopLinks().closeViewer()
	m.over = overlay{}
	return m
}

// wrapViewer tags the viewer's commands' messages with the tab and the
// viewer's generation. Footer notes pass unchanged.
func (m Model) wrapViewer(cmd tea.Cmd) tea.Cmd {
	base := msgBase{m.id, m.over.viewGen}
	return viewer.MapCmd(cmd, func(msg tea.Msg) tea.Msg { return viewerMsg{base, msg} })
}

func (m Model) onViewerMsg(msg viewerMsg) (Model, tea.Cmd) {
	if m.over.viewer == nil || msg.req != m.over.viewGen {
		return m, nil // a closed viewer's step
	}
	v, cmd := m.over.viewer.Update(msg.inner)
	m.over.viewer = &v
	return m, m.wrapViewer(cmd)
}

// openViewer opens the viewer on the file resolve names (run in the
// background: it may look at the disk), titled title.
func (m Model) openViewer(resolve func() (string, error), title string) (Model, tea.Cmd) {
	m, req, ctx := m.prepare("opening the viewer")
	tab := m.id
	return m, func() tea.Msg {
		path, err := resolve()
		if err != nil {
			return openedViewMsg{msgBase: msgBase{tab, req}, err: err}
		}
		src, err := viewer.OpenContext(ctx, path)
		return openedViewMsg{msgBase{tab, req}, src, title, err}
	}
}

// openPath is :view PATH.
func (m Model) openPath(path string) (Model, tea.Cmd) {
	path = strings.TrimSpace(path)
	if path == "" {
		return m, infoErrCmd(":view needs a file: :view PATH (v views the selected entry once it is downloaded)")
	}
	path = common.ExpandHome(path)
	return m.openViewer(func() (string, error) { return path, nil }, "")
}

func (m Model) onOpenedView(msg openedViewMsg) (Model, tea.Cmd) {
	if msg.req != m.over.waiting {
		msg.Drop() // superseded or given up
		return m, nil
	}
	m = m.stopPreparing()
	if msg.err != nil {
		return m, infoErrCmd("the viewer cannot open it: " + capText(termsafe.String(msg.err.Error())))
	}
	m = m.closeViewer()
	m.over.diff = nil
	v := viewer.New(m.c, msg.src, viewer.Options{Title: msg.title}).SetSize(max(m.width, 20), max(m.height, 6))
	m.over.viewer, m.over.viewGen = &v, msg.req
	return m, nil
}

// target is the stored delivery v and D act on: the claim's payload
// when the claim panel shows a stored one, else the selected row.
func (m Model) target() (id, msgType, path string, ok bool) {
	if cl := m.claim; cl != nil {
		if cl.res != nil && cl.res.Stored != nil {
			return cl.entry.DeliveryAttemptID, cl.entry.MessageType, cl.res.Stored.Path, true
		}
		return cl.entry.DeliveryAttemptID, cl.entry.MessageType, "", false
	}
	r, sel := m.table.Selected()
	if !sel {
		return "", "", "", false
	}
	if d, stored := m.links.cur.Delivery(r.ID()); stored {
		return r.ID(), r.Entry.MessageType, d.Stored.Path, true
	}
	return r.ID(), r.Entry.MessageType, "", false
}

// viewSelected is v: the viewer on the stored payload. The app never
// reads a payload from the network to show it.
func (m Model) viewSelected() (Model, tea.Cmd) {
	id, typ, path, ok := m.target()
	switch {
	case id == "":
		return m, infoCmd("no entry selected")
	case !ok && m.links.req != 0:
		return m, infoCmd("reading the local store… press v again in a moment")
	case !ok:
		return m, infoCmd(termsafe.String(id) + " is not downloaded: v shows stored payloads only (c claims it, d downloads and verifies it)")
	}
	return m.openViewer(func() (string, error) { return path, nil }, deliveryTitle(id, typ))
}

// deliveryTitle names a stored delivery in the viewer's header.
func deliveryTitle(id, typ string) string {
	return "delivery " + id + " " + typ
}

// diffSelected is D: what an ORDRSP changed against the ORDERS sent.
func (m Model) diffSelected() (Model, tea.Cmd) {
	id, typ, path, ok := m.target()
	switch {
	case id == "":
		return m, infoCmd("no entry selected")
	case m.links.store == nil:
		return m, infoErrCmd("this tab has no local store to compare from")
	case !ok:
		return m, infoCmd(termsafe.String(id) + " is not downloaded: D compares a downloaded ORDRSP with the ORDERS it answers (c claims, d downloads)")
	case !strings.EqualFold(typ, "ORDRSP") && typ != "":
		return m, infoCmd("D compares an ORDRSP with the ORDERS it answers; this is a " + termsafe.String(typ) + " (v views it)")
	}
	l := m.links.cur
	if _, stored := l.Delivery(id); !stored || m.links.req != 0 {
		return m, infoCmd("linking the answers… press D again in a moment")
	}
	i, linked := l.OrdrspUpload(id)
	if !linked {
		why := strings.Join(l.AnswerLines(id), "; ")
		if why == "" {
			why = "it holds no ORDRSP b2bx could read"
		}
		return m, infoCmd("no ORDERS of this connection to compare with: " + why)
	}
	return m.startDiff(l.Uploads[i], path, "ORDRSP "+termsafe.String(id))
}

// startDiff compares the ORDRSP at path with the ORDERS of upload rec in
// the background.
func (m Model) startDiff(rec spool.UploadRecord, path, what string) (Model, tea.Cmd) {
	m, req, ctx := m.prepare("comparing")
	store, tab := m.links.store, m.id
	title := what + " against the ORDERS sent with key " + termsafe.String(rec.Key)
	if !rec.Time.IsZero() {
		title += " at " + rec.Time.Local().Format("2006-01-02 15:04:05")
	}
	return m, func() tea.Msg {
		diffs, err := up.CompareAnswer(ctx, store, rec, path)
		return diffMsg{msgBase{tab, req}, title, diffs, err}
	}
}

func (m Model) onDiff(msg diffMsg) (Model, tea.Cmd) {
	if msg.req != m.over.waiting {
		return m, nil
	}
	m = m.stopPreparing()
	if msg.err != nil {
		return m, infoErrCmd("no diff: " + capText(termsafe.String(msg.err.Error())))
	}
	d := newDiffScreen(m.c, msg.title, msg.diffs).setSize(max(m.width, 20), max(m.height, 6))
	m.over.diff = &d
	return m, nil
}

// overlaySize passes the tab's size to the open overlays.
func (m Model) overlaySize() Model {
	w, h := max(m.width, 20), max(m.height, 6)
	if v := m.over.viewer; v != nil {
		nv := v.SetSize(w, h)
		m.over.viewer = &nv
	}
	if d := m.over.diff; d != nil {
		nd := d.setSize(w, h)
		m.over.diff = &nd
	}
	if a := m.over.answers; a != nil {
		na := a.setSize(w, h)
		m.over.answers = &na
	}
	return m
}

// overlayView draws the top overlay.
func (m Model) overlayView() string {
	switch {
	case m.over.viewer != nil:
		return m.over.viewer.View()
	case m.over.diff != nil:
		return m.over.diff.view()
	}
	return m.over.answers.view()
}

// overlayHelp is the top overlay's keys.
func (m Model) overlayHelp() []key.Binding {
	switch {
	case m.over.viewer != nil:
		return append(m.over.viewer.ShortHelp(), closeKey)
	case m.over.diff != nil:
		return m.over.diff.help()
	}
	return m.over.answers.help()
}

func (m Model) overlayFullHelp() [][]key.Binding {
	if m.over.viewer != nil {
		return append(m.over.viewer.FullHelp(), []key.Binding{closeKey})
	}
	return [][]key.Binding{m.overlayHelp()}
}
