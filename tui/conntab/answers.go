package conntab

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi/answers"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/conntab/table"
	"github.com/nutrab2b/b2bx/tui/fix"
)

// answersScreen (H) shows the connection's accepted uploads, newest
// first, each with how the partner answered it and, below it, the stored
// deliveries that answer it; then the stored answers that no upload of
// this connection explains. Both directions of the link are on screen:
// "answered by CONTRL: accepted" on the upload, "answers upload of
// PO-123 (key …)" on the answer. It reads only what upload.LoadLinked
// read from the local store: an answer still in the mailbox shows up
// once it is downloaded and verified.
type answersScreen struct {
	common.Base
	c      *common.Common
	tab    common.TabID
	store  *spool.Store
	name   string // the tab's name, sanitised
	linked *up.Linked
	rows   []answerRow
	sla    track.SLA // when an upload is overdue; zero: the defaults
	cursor int
	top    int
	w, h   int
	bundle string          // the last bundle T wrote; y offers its path
	marks  map[string]bool // upload rows marked (space, *), by row id; replaced, never changed
	// by says who sent a team store's upload (SentByKey → "alice on
	// host-3", terminal-safe); nil without a team store.
	by map[string]string
}

// SentByKey is the key of Options.SentBy's map for an upload record: its
// Idempotency-Key and the server's uploadId.
func SentByKey(rec spool.UploadRecord) string { return rec.Key + "\x00" + rec.UploadID }

// rowKind is what one row of the answers screen is.
type rowKind uint8

const (
	rowUpload     rowKind = iota // an accepted upload
	rowAnswer                    // an answer linked to the upload above it
	rowHeading                   // a section heading (not selectable)
	rowUnlinked                  // a stored answer linked to no upload
	rowUnreadable                // a stored delivery whose payload could not be read
	rowNote                      // a muted line (not selectable)
)

// answerRow is one row: upload is an index in Linked.Uploads, answer one
// in Linked.Index.Answers (-1 when the row has none).
type answerRow struct {
	kind           rowKind
	upload, answer int
	id             string // stable across loads: the upload's key and time, the answer's delivery and message
	delivery       string // rowUnreadable: its deliveryAttemptId
	text           string // rendered, sanitised
}

// selectable reports whether the cursor may rest on the row.
func (r answerRow) selectable() bool {
	return r.kind != rowHeading && r.kind != rowNote
}

func newAnswersScreen(c *common.Common, tab common.TabID, store *spool.Store, name string, l *up.Linked, sla track.SLA, by map[string]string) answersScreen {
	a := answersScreen{c: c, tab: tab, store: store, name: name, cursor: -1, sla: sla, by: by}
	return a.withLinked(l)
}

// Update moves the cursor; v, D and r ask the tab (it starts the work).
func (a answersScreen) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	if _, ok := msg.(clearMarksMsg); ok {
		a.marks = nil
		return a, nil
	}
	if b, ok := msg.(bundleMsg); ok && b.res != nil {
		a.bundle = b.res.Dir
		return a, nil
	}
	k, ok := msg.(tea.KeyMsg)
	switch {
	case !ok:
		return a, nil
	case key.Matches(k, reloadKey):
		return a, send(reloadReq{msgBase{tab: a.tab}})
	case key.Matches(k, viewKey):
		return a, a.viewRow()
	case key.Matches(k, diffKey):
		return a, a.diffRow()
	case key.Matches(k, fixKey):
		return a, a.fixRow()
	case key.Matches(k, bundleKey):
		return a, a.bundleRow()
	case key.Matches(k, markKey):
		return a.toggleMark(), nil
	case key.Matches(k, markAllKey):
		return a.markAll()
	case key.Matches(k, replayMarkedKey, resendMarkedKey):
		return a, a.previewUploads(key.Matches(k, resendMarkedKey))
	case key.Matches(k, common.CopyKey):
		return a, common.CopyCmd(a.tab, a.copyValues())
	}
	return a.key(k), nil
}

func (a answersScreen) View() string                   { return a.view() }
func (a answersScreen) SetSize(w, h int) common.Screen { return a.setSize(w, h) }
func (a answersScreen) ShortHelp() []key.Binding       { return a.help() }
func (a answersScreen) FullHelp() [][]key.Binding      { return [][]key.Binding{a.help()} }
func (a answersScreen) Closes(k tea.KeyMsg) bool       { return key.Matches(k, common.CloseKey) }
func (a answersScreen) Title() string                  { return "uploads and answers" }

// withLinked shows a new load, keeping the selected row where it can.
func (a answersScreen) withLinked(l *up.Linked) answersScreen {
	prev, had := a.selected()
	a.linked = l
	a.rows = a.build()
	a.cursor = -1
	if had {
		for i, r := range a.rows {
			if r.selectable() && r.id == prev.id {
				a.cursor = i
				break
			}
		}
	}
	if a.cursor < 0 {
		a.cursor = a.step(-1, 1)
	}
	return a.clamp()
}

// build lays out the rows: uploads newest first with their answers, then
// the unlinked stored answers.
func (a answersScreen) build() []answerRow {
	s, l := a.c.Styles, a.linked
	if l == nil {
		return []answerRow{{kind: rowNote, upload: -1, answer: -1, text: s.Muted.Render("reading the upload history and the stored deliveries…")}}
	}
	var rows []answerRow
	x := l.Index
	rows = append(rows, answerRow{kind: rowHeading, upload: -1, answer: -1,
		text: s.Header.Render(fmt.Sprintf("Uploads (%d accepted)", len(l.Uploads)))})
	if len(l.Uploads) == 0 {
		rows = append(rows, answerRow{kind: rowNote, upload: -1, answer: -1,
			text: s.Muted.Render("  no accepted upload on this connection yet: u uploads an ORDERS file")})
	}
	for i := len(l.Uploads) - 1; i >= 0; i-- {
		rec := l.Uploads[i]
		mark := s.Muted.Render(s.Marks.Wait)
		if len(x.AnswersOf(i)) > 0 {
			mark = s.OK.Render(s.Marks.OK)
		}
		st := track.StateOf(x, i, a.sla, a.c.Now())
		rejected := ""
		if _, rej := fix.Rejection(l, rec); rej {
			mark, rejected = s.Error.Render(s.Marks.Fail), s.Error.Render("rejected · v pinned errors · E fix and resend  ")
			if st.ResentAs != "" { // a later upload sent it again: history
				mark, rejected = s.Muted.Render(s.Marks.Fail), s.Muted.Render("rejected · v pinned errors  ")
			}
		}
		what := strings.Join(rec.DocNumbers, ", ")
		if what == "" {
			what = "interchange " + rec.ControlRef
		}
		t := rec.Time.Local().Format("01-02 15:04:05")
		if b := a.by[SentByKey(rec)]; b != "" { // a colleague's (or this machine's pushed) upload: who sent it
			t += s.Muted.Render(" by " + termsafe.String(b))
		}
		state := ""
		switch {
		case st.ResentAs != "":
			state = s.Muted.Render("  " + st.ResentAs)
		case st.IsNeedsAction():
			mark, state = s.Error.Render(s.Marks.Fail), s.Error.Render("  NEEDS ACTION")
		case st.IsOverdue():
			mark, state = s.Warn.Render(s.Marks.Warn), s.Warn.Render("  OVERDUE: "+strings.Join(st.Overdue, "; "))
		}
		rows = append(rows, answerRow{kind: rowUpload, upload: i, answer: -1, id: "u\x00" + rec.Key + "\x00" + rec.Time.String(),
			text: fmt.Sprintf("%s %s  %-14s  key %s  %s%s%s", mark, t, ansi.Truncate(termsafe.String(what), 14, "…"),
				termsafe.String(rec.Key), rejected, l.UploadText(i), state)})
		for _, j := range x.AnswersOf(i) {
			an := x.Answers[j]
			rows = append(rows, answerRow{kind: rowAnswer, upload: i, answer: j, id: answerID(an),
				text: "    ↳ " + an.Outcome() + s.Muted.Render("  delivery "+termsafe.String(an.ID)+createdAt(an.At))})
		}
	}
	var unlinked []int
	for j := range x.Answers {
		if !x.Link(j).Linked() {
			unlinked = append(unlinked, j)
		}
	}
	rows = append(rows, answerRow{kind: rowHeading, upload: -1, answer: -1,
		text: s.Header.Render(fmt.Sprintf("Stored answers linked to no upload (%d)", len(unlinked)))})
	for k := len(unlinked) - 1; k >= 0; k-- {
		j := unlinked[k]
		an := x.Answers[j]
		rows = append(rows, answerRow{kind: rowUnlinked, upload: -1, answer: j, id: answerID(an),
			text: "  " + an.Outcome() + " — " + x.AnswerText(j) + s.Muted.Render("  delivery "+termsafe.String(an.ID))})
	}
	for _, d := range l.Deliveries {
		if d.Err != nil {
			id := d.Stored.Meta.DeliveryAttemptID
			rows = append(rows, answerRow{kind: rowUnreadable, upload: -1, answer: -1, id: "d\x00" + id, delivery: id,
				text: s.Warn.Render(s.Marks.Warn+" delivery "+termsafe.String(id)+" is not linked: ") + capText(termsafe.String(d.Err.Error()))})
		}
	}
	return rows
}

// answerID names an answer across loads: its delivery and message.
func answerID(an answers.Answer) string { return "a\x00" + an.ID + "\x00" + strconv.Itoa(an.Message) }

// createdAt is " · created 01-02 15:04:05" on the local clock, or "".
func createdAt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " · created " + t.Local().Format("01-02 15:04:05")
}

// selected is the row under the cursor.
func (a answersScreen) selected() (answerRow, bool) {
	if a.cursor < 0 || a.cursor >= len(a.rows) || !a.rows[a.cursor].selectable() {
		return answerRow{}, false
	}
	return a.rows[a.cursor], true
}

// step finds the next selectable row from `from` in direction dir; the
// cursor when there is none.
func (a answersScreen) step(from, dir int) int {
	for i := from + dir; i >= 0 && i < len(a.rows); i += dir {
		if a.rows[i].selectable() {
			return i
		}
	}
	return a.cursor
}

// listRows is how many rows fit above the detail pane.
func (a answersScreen) listRows() int { return max(a.h-2-a.detailHeight(), 1) }

// detailHeight is the detail pane's lines (a rule and the details).
const answersDetail = 7

func (a answersScreen) detailHeight() int {
	if a.h < 14 {
		return 0
	}
	return answersDetail
}

func (a answersScreen) clamp() answersScreen {
	n := a.listRows()
	if a.cursor >= 0 {
		if a.cursor < a.top {
			a.top = a.cursor
		}
		if a.cursor >= a.top+n {
			a.top = a.cursor - n + 1
		}
	}
	a.top = max(min(a.top, len(a.rows)-n), 0)
	return a
}

func (a answersScreen) setSize(w, h int) answersScreen {
	a.w, a.h = w, h
	return a.clamp()
}

// key moves the cursor; the actions (v, D, r, esc) are the tab's.
func (a answersScreen) key(k tea.KeyMsg) answersScreen {
	switch k.String() {
	case "j", "down":
		a.cursor = a.step(a.cursor, 1)
	case "k", "up":
		a.cursor = a.step(a.cursor, -1)
	case "g", "home":
		a.cursor = a.step(-1, 1)
	case "G", "end":
		a.cursor = a.step(len(a.rows), -1)
	case "pgdown", "ctrl+d", "f":
		for range a.listRows() {
			a.cursor = a.step(a.cursor, 1)
		}
	case "pgup", "ctrl+u", "b":
		for range a.listRows() {
			a.cursor = a.step(a.cursor, -1)
		}
	}
	return a.clamp()
}

func (a answersScreen) view() string {
	s := a.c.Styles
	w := max(a.w, 20)
	lines := make([]string, 0, max(a.h, 1))
	head := s.Title.Render("Uploads and answers") + "  " + a.name
	if l := a.linked; l != nil {
		head += s.Muted.Render(fmt.Sprintf("  %d upload%s · %d answer%s stored · from the local store",
			len(l.Uploads), plural(len(l.Uploads), "", "s"), len(l.Index.Answers), plural(len(l.Index.Answers), "", "s")))
	}
	lines = append(lines, head)
	n := a.listRows()
	end := min(a.top+n, len(a.rows))
	for i := a.top; i < end; i++ {
		prefix := "  "
		if i == a.cursor {
			prefix = s.Marks.Cursor + " "
		}
		if a.marks[a.rows[i].id] {
			prefix = prefix[:len(prefix)-1] + table.MarkMark
		}
		l := prefix + a.rows[i].text
		if i == a.cursor {
			l = s.Selected.Render(ansi.Strip(l))
		}
		lines = append(lines, l)
	}
	for len(lines) < 1+n {
		lines = append(lines, "")
	}
	if a.detailHeight() > 0 {
		lines = append(lines, s.Muted.Render(strings.Repeat("─", w)))
		det := a.details()
		var wrapped []string
		for _, d := range det {
			wrapped = append(wrapped, wrap(d, w)...)
		}
		wrapped = common.Fill(wrapped, answersDetail-1)
		lines = append(lines, wrapped...)
	}
	pos := ""
	if len(a.rows) > n {
		pos = fmt.Sprintf("rows %d–%d of %d · ", a.top+1, end, len(a.rows))
	}
	lines = append(lines, s.Muted.Render(pos)+s.Key.Render("v")+s.Muted.Render(" view · ")+s.Key.Render("D")+
		s.Muted.Render(" diff ORDRSP vs ORDERS sent · ")+s.Key.Render("E")+s.Muted.Render(" fix a rejected one · ")+s.Key.Render("r")+s.Muted.Render(" reload · ")+
		s.Key.Render("esc/q")+s.Muted.Render(" back to the mailbox"))
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines[:min(len(lines), max(a.h, 1))], "\n")
}

// details describe the selected row in full.
func (a answersScreen) details() []string {
	s, l := a.c.Styles, a.linked
	r, ok := a.selected()
	if !ok || l == nil {
		return []string{s.Muted.Render("nothing selected")}
	}
	switch r.kind {
	case rowUpload:
		rec := l.Uploads[r.upload]
		status := strconv.Itoa(rec.HTTPStatus)
		if rec.Replay {
			status += " replay"
		}
		return []string{
			s.Header.Render("upload") + fmt.Sprintf(" key %s (n %d) · sent %s · HTTP %s", termsafe.String(rec.Key), rec.N,
				rec.Time.Local().Format("2006-01-02 15:04:05"), status),
			"  " + l.UploadText(r.upload),
			fmt.Sprintf("  interchange %s · %s → %s · orders %s", termsafe.String(rec.ControlRef), termsafe.String(rec.SenderID),
				termsafe.String(rec.RecipientID), termsafe.String(strings.Join(rec.DocNumbers, ", "))),
			fmt.Sprintf("  uploadId %s · interchangeId %s", termsafe.String(rec.UploadID), termsafe.String(rec.InterchangeID)),
			fmt.Sprintf("  file %s · %d bytes · sha256 %s", termsafe.String(rec.File), rec.Size, termsafe.String(rec.SHA256)),
		}
	case rowUnreadable:
		d, _ := l.Delivery(r.delivery)
		return []string{
			s.Header.Render(termsafe.String(d.Stored.Meta.MessageType)) + " in delivery " + termsafe.String(r.delivery) + " · not linked",
			"  " + capText(termsafe.String(d.Err.Error())),
		}
	default:
		an := l.Index.Answers[r.answer]
		out := []string{s.Header.Render(termsafe.String(an.Type)) + " in delivery " + termsafe.String(an.ID)}
		if d, ok := l.Delivery(an.ID); ok {
			out = append(out, "  stored "+termsafe.String(d.Stored.Path)+fmt.Sprintf(" · %d bytes", d.Stored.Meta.Size))
		}
		if !an.At.IsZero() {
			out = append(out, "  created "+an.At.Local().Format("2006-01-02 15:04:05"))
		}
		return append(out, "  "+an.Outcome()+" — "+l.Index.AnswerText(r.answer))
	}
}

func (a answersScreen) help() []key.Binding {
	return []key.Binding{answersMoveKey, viewKey, diffKey, fixKey, bundleKey, common.CopyKey, markKey, markAllKey, replayMarkedKey, resendMarkedKey, reloadKey}
}

// openAnswers is H: the uploads and their answers, read again from the
// local store.
func (m Model) openAnswers() (Model, tea.Cmd) {
	if m.links.store == nil {
		return m, infoErrCmd("this tab has no local store, so it knows no uploads or stored answers")
	}
	l := m.links.cur
	if m.links.of {
		l = nil // the rows' links only: the screen waits for every upload
	}
	push := m.stack.Push(newAnswersScreen(m.c, m.id, m.links.store, m.name, l, m.links.sla, m.links.by))
	m, load := m.wholeLinks()
	return m, tea.Batch(push, load)
}

// viewRow is v: the ORDERS as it was sent for an upload, the stored
// payload for an answer.
func (a answersScreen) viewRow() tea.Cmd {
	r, ok := a.selected()
	if !ok {
		return infoCmd("select an upload or an answer first")
	}
	l := a.linked
	id := r.delivery
	switch r.kind {
	case rowUpload:
		rec, store := l.Uploads[r.upload], a.store
		if _, rejected := fix.Rejection(l, rec); rejected {
			return send(fix.OpenMsg{Tab: a.tab, Upload: rec})
		}
		return send(viewReq{msgBase: msgBase{tab: a.tab}, resolve: func() (string, error) { return up.SentFile(store, rec) }, title: "ORDERS sent with key " + rec.Key})
	case rowAnswer, rowUnlinked:
		id = l.Index.Answers[r.answer].ID
	}
	d, stored := l.Delivery(id)
	if !stored {
		return infoErrCmd("delivery " + termsafe.String(id) + " is no longer in the local store (r reloads)")
	}
	path := d.Stored.Path
	return send(viewReq{msgBase: msgBase{tab: a.tab}, resolve: func() (string, error) { return path, nil }, title: deliveryTitle(id, d.Stored.Meta.MessageType)})
}

// fixRow is E: fix the selected rejected upload in the editor and
// resend it (fix.Model).
func (a answersScreen) fixRow() tea.Cmd {
	r, ok := a.selected()
	if !ok || r.kind != rowUpload {
		return infoCmd("E fixes a rejected upload: select one (its row says rejected)")
	}
	rec := a.linked.Uploads[r.upload]
	if _, rejected := fix.Rejection(a.linked, rec); !rejected {
		return infoCmd("no stored answer rejects this upload: E fixes rejected uploads only (v views it as sent)")
	}
	return send(fix.OpenMsg{Tab: a.tab, Upload: rec, Edit: true})
}

// bundleRow is T: a ticket bundle of the selected upload or answer.
func (a answersScreen) bundleRow() tea.Cmd {
	r, ok := a.selected()
	if !ok || a.linked == nil {
		return infoCmd("select an upload or an answer first")
	}
	l := a.linked
	id := r.delivery
	switch r.kind {
	case rowUpload:
		rec := l.Uploads[r.upload]
		id = rec.UploadID
		if id == "" {
			id = rec.Key
		}
	case rowAnswer, rowUnlinked:
		id = l.Index.Answers[r.answer].ID
	}
	return send(bundleReq{msgBase: msgBase{tab: a.tab}, id: id})
}

// send asks the tab for work only it can start.
func send(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// diffRow is D: the upload's latest ORDRSP, or the selected ORDRSP,
// against the ORDERS that was sent.
func (a answersScreen) diffRow() tea.Cmd {
	r, ok := a.selected()
	if !ok {
		return infoCmd("select an upload or an ORDRSP first")
	}
	l := a.linked
	var (
		upload int
		id     string
	)
	switch r.kind {
	case rowUpload:
		upload = r.upload
		if id, ok = l.LatestOrdrsp(upload); !ok {
			return infoCmd("no ORDRSP answers this upload among the stored deliveries yet: download the partner's answers from the mailbox (P or W), then r")
		}
	case rowAnswer:
		an := l.Index.Answers[r.answer]
		if an.Type != "ORDRSP" {
			return infoCmd("D compares an ORDRSP with the ORDERS it answers; this is a " + termsafe.String(an.Type) + " (v views it)")
		}
		upload, id = r.upload, an.ID
	case rowUnreadable:
		return infoCmd("this delivery could not be read, so it is linked to no upload (its details say why)")
	default:
		return infoCmd("this answer is linked to no upload of this connection, so there is no ORDERS to compare it with")
	}
	d, stored := l.Delivery(id)
	if !stored {
		return infoErrCmd("delivery " + termsafe.String(id) + " is no longer in the local store (r reloads)")
	}
	return send(diffReq{msgBase: msgBase{tab: a.tab}, rec: l.Uploads[upload], path: d.Stored.Path, what: "ORDRSP " + termsafe.String(id)})
}
