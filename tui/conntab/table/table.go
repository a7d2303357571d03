// Package table is the mailbox table of a connection tab: rows keyed by
// delivery attempt ID in delivered order, a cursor, a filter, and a View
// that renders only the visible window. Each row's cells are sanitised and
// formatted once when the rows are set; the padded, truncated text of a
// row is cached per column layout, so a keypress with 10,000 rows loaded
// costs the same as with ten.
package table

import (
	"strconv"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// Row is one mailbox entry with its position in delivered order and its
// display cells, sanitised once.
type Row struct {
	Entry apiclient.Entry
	Pos   int // 1-based position in the mailbox as listed

	created, typ, ic, size, sha, status string
	hay                                 string // lower-cased text the filter searches

	// cache of the padded cells for layout gen
	gen         int
	left, right string
}

// ID is the row's key.
func (r *Row) ID() string { return r.Entry.DeliveryAttemptID }

// Model is the table. The zero value is not usable; use New.
type Model struct {
	styles *common.Styles
	now    func() time.Time

	rows   []Row
	index  map[string]int // ID → index in rows
	view   []int          // indexes into rows that pass the filter, in order
	filter []string       // lower-cased terms, all must match

	cursor int // index into view
	offset int // first visible index into view

	width, height int // height counts the header line
	lay           layout
	gen           int // bumped whenever lay or a row's cells change

	status map[string]string // ID → status override (e.g. "claimed")
	marked map[string]bool   // ID → marked for a bulk action (space, *); read-only here
}

// MarkMark is the sign of a marked row, beside the cursor's marker.
const MarkMark = "●"

// SetMarked shows the rows whose IDs are in set as marked (the map is
// the caller's and is not changed here).
func (m *Model) SetMarked(set map[string]bool) { m.marked = set }

// New returns an empty table.
func New(styles *common.Styles, now func() time.Time) Model {
	if now == nil {
		now = time.Now
	}
	m := Model{styles: styles, now: now, index: map[string]int{}, status: map[string]string{}, gen: 1}
	m.lay = newLayout(80, 3)
	return m
}

// SetRows replaces the rows with entries; pos[i] is entry i's position in
// the listing (nil: 1, 2, 3, ...). The cursor stays on the same ID when it
// is still there, else at the same index (clamped).
func (m *Model) SetRows(entries []apiclient.Entry, pos []int) {
	keep, hadSel := m.SelectedID()
	oldCursor := m.cursor
	rows := make([]Row, len(entries))
	index := make(map[string]int, len(entries))
	maxPos := 0
	for i, e := range entries {
		p := i + 1
		if i < len(pos) {
			p = pos[i]
		}
		rows[i] = makeRow(e, p)
		index[e.DeliveryAttemptID] = i
		maxPos = max(maxPos, p)
	}
	m.rows, m.index = rows, index
	m.lay = newLayout(m.width, len(strconv.Itoa(max(maxPos, 1))))
	m.gen++
	m.refilter()
	m.cursor = oldCursor
	if i, ok := m.viewIndexOf(keep); hadSel && ok {
		m.cursor = i
	}
	m.clamp()
}

// Remove drops the row with id (e.g. an acknowledged entry leaves the
// list). Positions of the rows after it are not renumbered: they are the
// positions the server listed.
func (m *Model) Remove(id string) {
	i, ok := m.index[id]
	if !ok {
		return
	}
	rows := make([]Row, 0, len(m.rows)-1)
	rows = append(rows, m.rows[:i]...)
	rows = append(rows, m.rows[i+1:]...)
	index := make(map[string]int, len(rows))
	for j := range rows {
		index[rows[j].ID()] = j
	}
	m.rows, m.index = rows, index
	delete(m.status, id)
	m.refilter()
	m.clamp()
}

// SetStatus overrides the status cell of id ("" restores the listing's).
func (m *Model) SetStatus(id, status string) {
	if status == "" {
		delete(m.status, id)
	} else {
		m.status[id] = status
	}
	if i, ok := m.index[id]; ok {
		m.rows[i].gen = 0 // re-render that row
	}
}

// SetFilter keeps only the rows whose type, interchange ID, delivery
// attempt ID, status or SHA-256 contain every space-separated term
// (case-insensitive). "" shows every row.
func (m *Model) SetFilter(q string) {
	keep, hadSel := m.SelectedID()
	m.filter = strings.Fields(strings.ToLower(q))
	m.refilter()
	if i, ok := m.viewIndexOf(keep); hadSel && ok {
		m.cursor = i
	} else {
		m.cursor = 0
	}
	m.clamp()
}

// Filter is the active filter text ("" for none).
func (m Model) Filter() string { return strings.Join(m.filter, " ") }

func (m *Model) refilter() {
	view := make([]int, 0, len(m.rows))
	for i := range m.rows {
		if m.matches(&m.rows[i]) {
			view = append(view, i)
		}
	}
	m.view = view
}

func (m *Model) matches(r *Row) bool {
	for _, t := range m.filter {
		if !strings.Contains(r.hay, t) {
			return false
		}
	}
	return true
}

func (m Model) viewIndexOf(id string) (int, bool) {
	ri, ok := m.index[id]
	if !ok {
		return 0, false
	}
	for vi, r := range m.view {
		if r == ri {
			return vi, true
		}
	}
	return 0, false
}

// Select puts the cursor on the row of delivery id; false when no shown
// row has it.
func (m *Model) Select(id string) bool {
	i, ok := m.viewIndexOf(id)
	if ok {
		m.cursor = i
		m.clamp()
	}
	return ok
}

// SetSize sets the table's area; height includes the header line.
func (m *Model) SetSize(width, height int) {
	if width != m.width {
		m.width = width
		m.lay = newLayout(width, m.lay.pos)
		m.gen++
	}
	m.height = max(height, 2)
	m.clamp()
}

// Len is the number of rows loaded; Shown the number passing the filter.
func (m Model) Len() int   { return len(m.rows) }
func (m Model) Shown() int { return len(m.view) }

// Rows gives the loaded rows (read-only).
func (m Model) Rows() []Row { return m.rows }

// Cursor is the cursor's index among the shown rows.
func (m Model) Cursor() int { return m.cursor }

// Selected is the row under the cursor.
func (m Model) Selected() (Row, bool) {
	if len(m.view) == 0 {
		return Row{}, false
	}
	return m.rows[m.view[m.cursor]], true
}

// SelectedID is the ID under the cursor.
func (m Model) SelectedID() (string, bool) {
	r, ok := m.Selected()
	return r.ID(), ok
}

// Move moves the cursor by n rows (negative: up).
func (m *Model) Move(n int) {
	m.cursor += n
	m.clamp()
}

// Top and Bottom jump to the first and last shown row.
func (m *Model) Top()    { m.cursor = 0; m.clamp() }
func (m *Model) Bottom() { m.cursor = len(m.view) - 1; m.clamp() }

// PageRows is how many rows one screen shows.
func (m Model) PageRows() int { return max(m.height-1, 1) }

// clamp keeps the cursor in range and visible.
func (m *Model) clamp() {
	m.cursor = min(max(m.cursor, 0), max(len(m.view)-1, 0))
	rows := m.PageRows()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+rows {
		m.offset = m.cursor - rows + 1
	}
	m.offset = min(max(m.offset, 0), max(len(m.view)-rows, 0))
}

// View renders the header and the visible rows only.
func (m Model) View() string {
	var b strings.Builder
	b.Grow((m.width + 16) * m.height)
	b.WriteString(m.styles.Header.Render(m.lay.header()))
	end := min(m.offset+m.PageRows(), len(m.view))
	now := m.now()
	for vi := m.offset; vi < end; vi++ {
		b.WriteByte('\n')
		r := &m.rows[m.view[vi]]
		if r.gen != m.gen {
			r.left, r.right = m.lay.cells(r, m.status[r.ID()])
			r.gen = m.gen
		}
		line := m.lay.line(r, now)
		mark := " "
		if len(m.marked) > 0 && m.marked[r.ID()] {
			mark = MarkMark
		}
		if vi == m.cursor {
			b.WriteString(m.styles.Selected.Render(m.styles.Marks.Cursor + mark + line))
		} else {
			b.WriteByte(' ')
			b.WriteString(mark)
			b.WriteString(line)
		}
	}
	shown := end - m.offset
	if len(m.view) == 0 {
		b.WriteByte('\n')
		if len(m.rows) == 0 {
			b.WriteString(m.styles.Muted.Render("  (no due entries)"))
		} else {
			b.WriteString(m.styles.Muted.Render("  (no entry matches the filter)"))
		}
		shown = 1
	}
	for ; shown < m.PageRows(); shown++ { // keep the height: what follows stays put
		b.WriteByte('\n')
	}
	return b.String()
}

// makeRow formats and sanitises an entry's cells once.
func makeRow(e apiclient.Entry, pos int) Row {
	r := Row{Entry: e, Pos: pos}
	r.created = "—"
	if !e.CreatedAt.IsZero() {
		r.created = e.CreatedAt.Local().Format("2006-01-02 15:04")
	}
	r.typ = termsafe.String(e.MessageType)
	r.ic = termsafe.String(e.InterchangeID)
	r.size = HumanSize(e.PayloadSize)
	r.sha = ShortSHA(e.PayloadSHA256)
	r.status = termsafe.String(e.Status)
	r.hay = strings.ToLower(strings.Join([]string{r.typ, r.ic, termsafe.String(e.DeliveryAttemptID), r.status, termsafe.String(e.PayloadSHA256)}, "\x00"))
	return r
}

// ShortSHA is the first 12 hex digits of a SHA-256 (sanitised).
func ShortSHA(h string) string {
	h = termsafe.String(h)
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Age formats how long ago t was: "45s", "12m", "5h", "3d"; "—" for the
// zero time; a time in the future (clock skew) counts as "0s".
func Age(now, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	d := max(now.Sub(t), 0)
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}

// HumanSize formats a byte count as the CLI does: "512 B", "12.3 KiB",
// "15.0 MiB".
var HumanSize = human.Bytes

// Visible is the rows that pass the filter, in the table's order (a
// copy of the row headers; the cells stay shared).
func (m Model) Visible() []Row {
	out := make([]Row, len(m.view))
	for i, k := range m.view {
		out[i] = m.rows[k]
	}
	return out
}
