package conntab

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/fix"
	"github.com/nutrab2b/b2bx/tui/upload"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

// The tab's stack (Model.stack) holds the screens over its mailbox: the
// uploads and their answers (H), the segment viewer (v, :view PATH), the
// diff of an ORDRSP (D) and the upload screen (u, :upload PATH). The
// close rule (q, esc at rest) pops the top one; the tab's work (a
// download, countdowns) goes on underneath.

// ViewMsg asks the tab Tab to open the segment viewer on Path (the
// shell's `:view PATH`).
type ViewMsg struct {
	Tab  common.TabID
	Path string
}

// Owner implements common.Owned.
func (m ViewMsg) Owner() common.TabID { return m.Tab }

// Requests of the tab's screens for work only the tab can start (it owns
// the store and the stack's request); Owned, so the stack lets them pass.
type (
	viewReq struct {
		msgBase
		resolve func() (string, error)
		title   string
	}
	diffReq struct {
		msgBase
		rec        spool.UploadRecord
		path, what string
	}
	reloadReq struct{ msgBase }
)

// stackKey gives a key to the top screen; what the stack hands back
// (the filter as typed, a prompt's answer, a screen that left) is acted
// on by afterScreen (after.go).
func (m Model) stackKey(k tea.KeyMsg) (Model, tea.Cmd) {
	return m.afterScreen(m.stack.Key(k))
}

// Closes reports whether k closes the screen on top of the tab's stack
// (the shell then gives q to the tab instead of quitting).
func (m Model) Closes(k tea.KeyMsg) bool {
	top := m.stack.Top()
	return top != nil && !top.Capturing() && top.Closes(k)
}

// onOpened puts a prepared screen on the stack (or says why it could not
// be prepared); a stale one is closed by the stack.
func (m Model) onOpened(o common.Opened) (Model, tea.Cmd) {
	cmd, err := m.stack.Open(o)
	if err != nil {
		return m, infoErrCmd(capText(termsafe.String(err.Error())))
	}
	return m, cmd
}

// openViewer opens the viewer on the file resolve names (run in the
// background: it may look at the disk), titled title.
func (m Model) openViewer(resolve func() (string, error), title string) (Model, tea.Cmd) {
	req, ctx := m.stack.Prepare(context.Background(), "opening the viewer")
	c, tab := m.c, m.id
	var dir, rules string
	if m.conn != nil {
		dir, rules = m.conn.Target.Directory, m.conn.Target.MIG
	}
	return m, func() tea.Msg {
		path, err := resolve()
		if err != nil {
			return common.Opened{Tab: tab, Req: req, Err: fmt.Errorf("the viewer cannot open it: %w", err)}
		}
		return viewer.Opened(ctx, c, tab, req, path, viewer.Options{Title: title}.WithConnection(dir, rules))
	}
}

// openPath is :view PATH.
func (m Model) openPath(path string) (Model, tea.Cmd) {
	path = strings.TrimSpace(path)
	if path == "" {
		return m, infoErrCmd(":view needs a file: :view PATH (v views the selected entry once it is downloaded)")
	}
	if p := m.uploadPending(); p != "" {
		return m, infoErrCmd(":view waits: " + p + "; try again once the upload screen is done")
	}
	path = common.ExpandHome(path)
	return m.openViewer(func() (string, error) { return path, nil }, "")
}

// openUpload is u and :upload PATH: a fresh upload screen, on path or on
// the file picker when path is "".
func (m Model) openUpload(path string) (Model, tea.Cmd) {
	res, cmd := m.stack.Replace(upload.New(m.c, m.id, m.conn, upload.Options{Path: path, Links: m.links.loadFor, Verdicts: m.links.verdicts}).Screen()) // a fresh one replaces the one on top
	return m.afterScreen(res, cmd)
}

// openFix acts on a rejected upload for a screen of the stack (H, a
// timeline): the viewer with the answer's errors pinned, or the E flow.
func (m Model) openFix(msg fix.OpenMsg) (Model, tea.Cmd) {
	store, l, rec := m.links.store, m.links.cur, msg.Upload
	if store == nil || l == nil {
		return m, infoErrCmd("this tab has not read its local store yet, so it knows no rejected upload (r reloads)")
	}
	if m.links.of { // the rows' links only (a timeline's fix): read every upload, then the fix goes on (onLinks)
		m.links.fix = &msg
		m, load := m.wholeLinks()
		return m, tea.Batch(load, infoCmd("reading the uploads of the local store for the fix…"))
	}
	if msg.Edit {
		if p := m.uploadPending(); p != "" {
			return m, infoErrCmd("E waits: " + p)
		}
		be := m.fixBackend(l)
		if be == nil {
			return m, infoErrCmd("this tab has no connection to resend on")
		}
		return m, m.stack.Push(fix.New(m.c, m.id, be, rec, m.getenv))
	}
	req, ctx := m.stack.Prepare(context.Background(), "opening the viewer")
	c, tab := m.c, m.id
	var dir, rules string
	if m.conn != nil {
		dir, rules = m.conn.Target.Directory, m.conn.Target.MIG
	}
	return m, func() tea.Msg {
		return fix.OpenPinned(ctx, c, tab, req, store, l, rec, viewer.Options{}.WithConnection(dir, rules))
	}
}

// uploadPending is why a screen of the stack (the upload screen) must
// not be left now, or "".
func (m Model) uploadPending() string { return m.stack.Pending() }

// uploadBusy is the status words of the screen with work running (the
// upload screen), or "".
func (m Model) uploadBusy() string { return m.stack.Busy() }

// Preparing reports what the tab is preparing to show ("opening the
// viewer", "comparing"), or "".
func (m Model) Preparing() string { return m.stack.Preparing() }

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
	req, ctx := m.stack.Prepare(context.Background(), "comparing")
	store, tab, c := m.links.store, m.id, m.c
	title := what + " against the ORDERS sent with key " + termsafe.String(rec.Key)
	if !rec.Time.IsZero() {
		title += " at " + rec.Time.Local().Format("2006-01-02 15:04:05")
	}
	return m, func() tea.Msg {
		diffs, err := up.CompareAnswer(ctx, store, rec, path)
		if err != nil {
			return common.Opened{Tab: tab, Req: req, Err: fmt.Errorf("no diff: %w", err)}
		}
		return common.Opened{Tab: tab, Req: req, Screen: newDiffScreen(c, title, diffs)}
	}
}

// screenHelp is the top screen's keys and the close rule.
func (m Model) screenHelp() []key.Binding {
	top := m.stack.Top()
	if top.Capturing() {
		return top.ShortHelp()
	}
	return append(top.ShortHelp(), common.CloseKey)
}
