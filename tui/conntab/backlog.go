package conntab

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/conntab/table"
)

// backlogState is the loaded backlog: every due entry, with totals.
type backlogState struct {
	pages    int
	entries  int
	skipped  int
	bytes    int64
	byType   []count
	byStatus []count
	oldest   time.Time
	loadedAt time.Time
	repeat   string // the server listed entries again ("" when not)
	// cut: the load stopped at the page cap (apiclient.MaxPages) while
	// the server still listed more; the totals count what was read.
	cut bool
}

type count struct {
	name string // sanitised
	n    int
}

// loadBacklog reads every page (limit 100) through Client.Pages, which
// waits for the client's rate limiter before each request and stops on a
// cursor that does not end. Progress is polled on the tick; esc cancels.
func (m Model) loadBacklog() (Model, tea.Cmd) {
	m.list.finish()
	j := m.newJob(whatBacklog)
	m.list = j
	be, tab := m.be, m.id
	return m, j.run(tab, func(ctx context.Context) tea.Msg {
		msg := backlogMsg{msgBase: msgBase{tab, j.req}}
		for p, err := range be.Pages(ctx, apiclient.MaxListLimit) {
			if err != nil {
				msg.err = err
				break
			}
			msg.pages++
			msg.entries = append(msg.entries, p.Entries...)
			msg.skipped = append(msg.skipped, p.Skipped...)
			msg.repeat.Add(p.Repeated)
			j.pages.Store(int64(msg.pages))
			j.entries.Store(int64(len(msg.entries)))
		}
		return msg
	})
}

func (m Model) onBacklog(msg backlogMsg) (Model, tea.Cmd) {
	j := answered(&m.list, msg.msgBase)
	if j == nil {
		return m, nil
	}
	// Stopped at the page cap: what was read is a real backlog (100,000
	// entries at 1000 pages), shown with the error instead of dropped.
	cut := errors.Is(msg.err, apiclient.ErrPageCap)
	if msg.err != nil && !cut {
		if j.cancelled && j.retry == nil {
			return m, infoCmd(fmt.Sprintf("backlog load cancelled after %d pages; the page view is unchanged", msg.pages))
		}
		return m.listFailed(j, msg.err, false)
	}
	m.view = viewBacklog
	m.back = totals(msg, m.c.Now())
	m.back.cut = cut
	m.table.SetRows(msg.entries, nil)
	m.markClaimed()
	m.run.NoteListing(msg.entries, cut) // the whole listing: the head is among it
	m, links := m.rowsChanged()
	cmds := []tea.Cmd{links}
	if cut {
		_, c := m.listFailed(j, msg.err, false)
		cmds = append(cmds, c)
	}
	if len(msg.skipped) > 0 {
		cmds = append(cmds, m.skippedNote(msg.skipped, ""))
	}
	return m, tea.Batch(cmds...)
}

// totals counts the backlog by type and status and finds the oldest entry.
func totals(msg backlogMsg, now time.Time) *backlogState {
	b := &backlogState{pages: msg.pages, entries: len(msg.entries), skipped: len(msg.skipped), loadedAt: now, repeat: msg.repeat.Note()}
	types, statuses := map[string]int{}, map[string]int{}
	for _, e := range msg.entries {
		types[e.MessageType]++
		statuses[e.Status]++
		b.bytes += e.PayloadSize
		if !e.CreatedAt.IsZero() && (b.oldest.IsZero() || e.CreatedAt.Before(b.oldest)) {
			b.oldest = e.CreatedAt
		}
	}
	b.byType, b.byStatus = sorted(types), sorted(statuses)
	return b
}

// sorted lists counts, largest first, then by name.
func sorted(m map[string]int) []count {
	out := make([]count, 0, len(m))
	for k, n := range m {
		name := termsafe.String(k)
		if name == "" {
			name = "(none)"
		}
		out = append(out, count{name, n})
	}
	slices.SortFunc(out, func(a, b count) int {
		return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.name, b.name))
	})
	return out
}

func joinCounts(cs []count) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s %d", c.name, c.n)
	}
	return strings.Join(parts, " · ")
}

// backlogLines is the backlog pane: totals, or the load's progress.
func (m Model) backlogLines() []string {
	s := m.c.Styles
	if j := m.list; j != nil && j.what == whatBacklog {
		return []string{s.Title.Render("backlog") + fmt.Sprintf("  loading every page: %d pages, %d entries so far (rate-limited) — esc cancels",
			j.pages.Load(), j.entries.Load())}
	}
	b := m.back
	if b == nil {
		return nil
	}
	lines := []string{
		s.Title.Render("backlog") + fmt.Sprintf("  %d due entries in %d page%s, %s in all, read %s",
			b.entries, b.pages, plural(b.pages, "", "s"), table.HumanSize(b.bytes), clock(b.loadedAt)),
		"  by type    " + joinCounts(b.byType),
		"  by status  " + joinCounts(b.byStatus),
	}
	if !b.oldest.IsZero() {
		lines = append(lines, fmt.Sprintf("  oldest     %s ago (created %s)", longAge(m.c.Now().Sub(b.oldest)), b.oldest.Local().Format("2006-01-02 15:04")))
	}
	if b.skipped > 0 {
		lines = append(lines, s.Warn.Render(fmt.Sprintf("  %s %d listed entries could not be used and are not shown", s.Marks.Warn, b.skipped)))
	}
	if b.repeat != "" {
		lines = append(lines, s.Warn.Render(fmt.Sprintf("  %s %s", s.Marks.Warn, b.repeat)))
	}
	if b.cut {
		lines = append(lines, s.Warn.Render(fmt.Sprintf("  %s stopped after %d pages: the server lists more; these totals count the entries read", s.Marks.Warn, b.pages)))
	}
	return lines
}

// longAge formats an age as "3d 4h", "5h 12m" or "42m".
func longAge(d time.Duration) string {
	d = max(d, 0)
	days, hours, mins := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case days > 0:
		return fmt.Sprintf("%dd %dh", days, hours)
	case hours > 0:
		return fmt.Sprintf("%dh %dm", hours, mins)
	}
	return fmt.Sprintf("%dm", mins)
}
