package conntab

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Status is what the shell's status bar shows for the active tab.
type Status struct {
	Connection string // the tab's title (sanitised)
	Page       int    // page number shown, from 1; 0 in the backlog view
	Backlog    bool   // the table holds every page (A)
	Entries    int    // rows loaded
	HasMore    bool   // the server has pages after this one

	Claim        string        // the claimed delivery attempt ID (sanitised); "" when none
	LeaseLeft    time.Duration // time left on the lease; 0 when none or expired
	LeaseExpired bool          // the claim's lease ran out unacknowledged

	Transfer string // "", "claiming", "downloading 42%", "verified", "refused: hash vs header", "acknowledged", ...
	Worker   string // "", "on", "pausing"
	Busy     string // a running load or job, with a retry countdown if one waits
}

// String is a compact one-line form.
func (s Status) String() string {
	parts := []string{s.Connection}
	if s.Backlog {
		parts = append(parts, fmt.Sprintf("backlog %d", s.Entries))
	} else {
		p := fmt.Sprintf("page %d", s.Page)
		if s.HasMore {
			p += "+"
		}
		parts = append(parts, p)
	}
	if s.Claim != "" {
		c := "claim " + s.Claim
		switch {
		case s.LeaseExpired:
			c += " (lease expired)"
		case s.LeaseLeft > 0:
			c += " (lease " + countdown(s.LeaseLeft) + ")"
		}
		parts = append(parts, c)
	}
	for _, p := range []string{s.Transfer, s.Busy} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if s.Worker != "" {
		parts = append(parts, "worker "+s.Worker)
	}
	return strings.Join(parts, " · ")
}

// Status reports the tab's state for the status bar.
func (m Model) Status() Status {
	st := Status{Connection: m.name, Page: m.pager.page(), Entries: m.table.Len(), HasMore: m.pager.hasMore}
	if m.view == viewBacklog {
		st.Page, st.Backlog, st.HasMore = 0, true, false
	}
	if cl := m.claim; cl != nil {
		st.Claim = termsafe.String(cl.entry.DeliveryAttemptID)
		if cur := m.cur(); cur.Held != nil && cur.Phase != worker.PhaseAcked && cur.Phase != worker.PhaseReleased {
			st.LeaseLeft = m.run.LeaseLeft()
			st.LeaseExpired = st.LeaseLeft <= 0
		}
		st.Transfer = m.transferWord()
	}
	switch {
	case m.workerMode && m.stopAfter:
		st.Worker = "pausing"
	case m.workerMode:
		st.Worker = "on"
	}
	if m.over.waiting != 0 {
		st.Busy = m.over.what + "…"
	}
	for _, j := range []*job{m.work, m.list} {
		if j == nil {
			continue
		}
		st.Busy = j.what
		if j.retry != nil {
			st.Busy += " retry in " + countdown(j.retry.NextAt.Sub(m.c.Now()))
		}
		break
	}
	return st
}

func (m Model) transferWord() string {
	cl := m.claim
	switch m.run.Phase() {
	case worker.PhaseClaiming:
		return "claiming"
	case worker.PhaseClaimFailed:
		return "claim failed"
	case worker.PhaseClaimed:
		return "claimed"
	case worker.PhaseFetching:
		return fmt.Sprintf("downloading %d%%", int(cl.snap.Fraction()*100))
	case worker.PhaseFetchFailed:
		if cl.res.NotRunCause() != "" { // no check ran: nothing was refused
			return "download stopped here"
		}
		if f := failedChecks(cl.res); len(f) > 0 {
			return "refused: " + strings.Join(f, ", ")
		}
		return "download failed"
	case worker.PhaseFetched:
		return "verified"
	case worker.PhaseAcking:
		return "acknowledging"
	case worker.PhaseAckFailed:
		return "acknowledge failed"
	case worker.PhaseAcked:
		return "acknowledged"
	case worker.PhaseReleased:
		return "dropped"
	}
	return ""
}

// ShortHelp is the one-line help: the keys that act now.
func (m Model) ShortHelp() []key.Binding {
	k := m.keys
	switch {
	case m.prompt != nil:
		return []key.Binding{k.Yes, k.No}
	case m.over.open():
		return m.overlayHelp()
	case m.filtering:
		return []key.Binding{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		}
	}
	out := []key.Binding{k.Claim, k.Download, k.Ack, k.Process, k.Worker, k.Filter, k.Next, k.Prev, k.Backlog}
	if (m.work != nil && m.work.retry != nil) || (m.list != nil && m.list.retry != nil) {
		out = append([]key.Binding{k.RetryNow, k.Cancel}, out...)
	}
	return out
}

// FullHelp is every key of the tab, grouped.
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys
	if m.over.open() {
		return m.overlayFullHelp()
	}
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Next, k.Prev, k.Refresh, k.Bigger, k.Smaller, k.Filter, k.Backlog},
		{k.Claim, k.Download, k.Ack, k.Process, k.Enter, k.Worker, k.Drop},
		{k.View, k.Diff, k.Answers, k.RetryNow, k.Cancel},
	}
}
