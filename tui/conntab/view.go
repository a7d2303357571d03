package conntab

import (
	"fmt"
	"github.com/nutrab2b/b2bx/tui/common"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/conntab/table"
)

// minTable is the fewest lines the table keeps (header and two rows).
const minTable = 3

// layout renders everything but the table rows (title, bottom pane) and
// sizes the table to what is left. It runs at the end of every Update and
// SetSize, so View only joins strings and renders the visible rows.
func (m Model) layout() Model {
	w, h := max(m.width, 20), max(m.height, 6)
	var lines []string
	for _, l := range m.paneLines() {
		lines = append(lines, wrap(l, w)...)
	}
	room := h - 2 - minTable // title and separator
	if len(lines) > room {
		lines = lines[:max(room, 0)]
	}
	m.pane = strings.Join(lines, "\n")
	m.tabH = h - 2 - len(lines)
	m.table.SetSize(w, m.tabH)
	return m
}

// maxWrap is how many screen lines one pane line may take.
const maxWrap = 3

// wrap breaks a pane line at words to width w, at most maxWrap lines, the
// last one truncated.
func wrap(l string, w int) []string {
	if ansi.StringWidth(l) <= w {
		return []string{l}
	}
	// Wrapped 4 columns short of w, so the indented continuation lines
	// still fit and nothing in the middle is cut.
	// Broken at spaces only (common.Wrap): a stored path or an ID moves
	// whole to the next line, so a mouse selection copies it whole.
	parts := common.Wrap(l, max(w-4, 10))
	for i := 1; i < len(parts); i++ {
		parts[i] = "    " + parts[i] // continuation lines are indented
	}
	if len(parts) > maxWrap {
		parts = parts[:maxWrap]
		parts[maxWrap-1] = ansi.Truncate(parts[maxWrap-1]+" …", w, "…")
	}
	for i, p := range parts {
		parts[i] = ansi.Truncate(p, w, "…")
	}
	return parts
}

// View renders the tab: a title line, the table, a rule and the pane.
func (m Model) View() string {
	if top := m.stack.Top(); top != nil && !inPane(top) {
		return top.View()
	}
	w := max(m.width, 20)
	var b strings.Builder
	b.WriteString(ansi.Truncate(m.titleLine(), w, "…"))
	b.WriteByte('\n')
	b.WriteString(m.table.View())
	b.WriteByte('\n')
	b.WriteString(m.c.Styles.Muted.Render(strings.Repeat("─", w)))
	if m.pane != "" {
		b.WriteByte('\n')
		b.WriteString(m.pane)
	}
	return b.String()
}

// titleLine: connection, page or backlog, counts, hasMore, page size, filter.
func (m Model) titleLine() string {
	s := m.c.Styles
	parts := []string{s.Title.Render(m.name)}
	switch {
	case m.view == viewBacklog && m.back != nil:
		parts = append(parts, fmt.Sprintf("backlog: %d entries, %d page%s", m.back.entries, m.back.pages, plural(m.back.pages, "", "s")))
	case m.pager.loaded:
		top := m.pager.top()
		p := fmt.Sprintf("page %d", m.pager.page())
		if n := m.table.Len(); n > 0 {
			rows := m.table.Rows()
			p += fmt.Sprintf(" · #%d–%d · %d entries", rows[0].Pos, rows[n-1].Pos, n)
		} else {
			p += fmt.Sprintf(" · from #%d · no entries", top.first)
		}
		if m.pager.hasMore {
			p += " · more after this page (n)"
		} else {
			p += " · last page"
		}
		parts = append(parts, p)
	default:
		parts = append(parts, "page "+strconv.Itoa(m.pager.page()))
	}
	parts = append(parts, fmt.Sprintf("%d per page", m.pager.limit))
	if k := len(m.pager.skipped); k > 0 && m.view == viewPage {
		parts = append(parts, s.Warn.Render(fmt.Sprintf("%s %d skipped", s.Marks.Warn, k)))
	}
	if f := m.table.Filter(); f != "" {
		parts = append(parts, fmt.Sprintf("filter %q: %d of %d", f, m.table.Shown(), m.table.Len()))
	}
	if j := m.list; j != nil {
		parts = append(parts, s.Muted.Render(j.what+"…"))
	}
	if on, pausing := m.workerOn(); on {
		w := "WORKER MODE"
		if pausing {
			w += " (pausing)"
		}
		parts = append(parts, s.Warn.Render(w))
	}
	return strings.Join(parts, "  ")
}

// paneLines is the bottom pane: a prompt, the filter input, retry
// countdowns, then the claim panel, the backlog or the entry's details.
func (m Model) paneLines() []string {
	s := m.c.Styles
	var lines []string
	if top := m.stack.Top(); top != nil {
		lines = append(lines, common.InlineLines(top, s, m.width)...) // a prompt, the filter
	}
	for _, j := range []*job{m.work, m.list} {
		if j != nil && j.retry != nil {
			lines = append(lines, m.retryLines(j)...)
		}
	}
	switch {
	case m.claim != nil:
		lines = append(lines, m.claimLines()...)
	case m.view == viewBacklog || (m.list != nil && m.list.what == whatBacklog):
		lines = append(lines, m.backlogLines()...)
		lines = append(lines, m.detailLines()...)
	default:
		lines = append(lines, m.detailLines()...)
	}
	return lines
}

// retryLines: the failed attempt, the countdown to the next, R and esc.
func (m Model) retryLines(j *job) []string {
	s, ev := m.c.Styles, j.retry
	what := describe(ev.Err, ev.CorrelationID)
	code := what.code
	if code == "" {
		code = "network error"
	}
	next := "next attempt in " + countdown(ev.NextAt.Sub(m.c.Now())) + " (at " + clock(ev.NextAt) + ")"
	switch {
	case j.nowSent:
		next = "retrying now…"
	case !m.c.Now().Before(ev.NextAt):
		next = "retrying…"
	}
	lines := []string{
		s.Warn.Render(fmt.Sprintf("%s %s: attempt %d failed (%s); %s", s.Marks.Warn, termsafe.String(ev.Op), ev.Attempt, code, next)),
		"  " + s.Key.Render("R") + " retry now   " + s.Key.Render("esc") + " give up   " + s.Muted.Render("correlation "+ev.CorrelationID),
	}
	if what.action != "" {
		lines = append(lines, s.Muted.Render("  "+what.action))
	}
	return lines
}

// detailLines: the selected entry in full.
func (m Model) detailLines() []string {
	s := m.c.Styles
	r, ok := m.table.Selected()
	if !ok {
		return []string{s.Muted.Render("no entry selected")}
	}
	e, now := r.Entry, m.c.Now()
	created := "—"
	if !e.CreatedAt.IsZero() {
		created = fmt.Sprintf("%s (%s UTC), %s ago", e.CreatedAt.Local().Format("2006-01-02 15:04:05"),
			e.CreatedAt.UTC().Format("15:04:05"), longAge(now.Sub(e.CreatedAt)))
	}
	head := ""
	if m.isHead(r.ID()) {
		head = s.OK.Render("  head of the mailbox: P or enter processes it")
	}
	lines := []string{
		s.Header.Render("entry #"+strconv.Itoa(r.Pos)) + head,
		"  delivery     " + termsafe.String(e.DeliveryAttemptID),
		"  interchange  " + termsafe.String(e.InterchangeID),
		fmt.Sprintf("  type         %s · status %s · %d bytes (%s)", termsafe.String(e.MessageType), termsafe.String(e.Status), e.PayloadSize, table.HumanSize(e.PayloadSize)),
		"  sha256       " + termsafe.String(e.PayloadSHA256),
		"  created      " + created,
	}
	return append(lines, m.linkLines(e.DeliveryAttemptID, e.MessageType, true)...)
}

// bar draws a progress bar of width w for fraction f.
func (m Model) bar(f float64, w int) string {
	s := m.c.Styles
	n := min(max(int(f*float64(w)+0.5), 0), w)
	return "[" + s.OK.Render(strings.Repeat("█", n)) + s.Muted.Render(strings.Repeat("░", w-n)) + "]"
}

// rateText formats bytes per second.
func rateText(bps float64) string { return table.HumanSize(int64(bps)) + "/s" }

// progressLine: bar, bytes of expected, percentage and rate.
func (m Model) progressLine(p apiclient.ProgressSnapshot, listed int64) string {
	exp := p.Expected
	if exp <= 0 {
		exp = listed
	}
	f := 0.0
	if exp > 0 {
		f = min(float64(p.Bytes)/float64(exp), 1)
	}
	return fmt.Sprintf("%s %s / %s  %3d%%  %s", m.bar(f, 24), table.HumanSize(p.Bytes), table.HumanSize(exp), int(f*100), rateText(p.BytesPerSec))
}
