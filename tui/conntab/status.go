package conntab

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
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

// Bar is the tab's state as the shell's status bar shows it: a few
// words per field, "" for a field left out.
type Bar struct {
	Connection string // connection name and ID
	Page       string // e.g. "page 2: 50 entries, more (n)"
	Claim      string // e.g. "claim da-… lease 4:12"; "" when none
	ClaimWarn  bool   // the lease is short or expired
	Transfer   string // e.g. "downloading 45%", "verified", "acknowledged"
	Worker     string // e.g. "worker on"
}

// Bar is the status in the status bar's words.
func (s Status) Bar() Bar {
	out := Bar{Connection: s.Connection, Transfer: s.Transfer}
	if s.Backlog {
		out.Page = fmt.Sprintf("backlog: %d entries", s.Entries)
	} else {
		out.Page = fmt.Sprintf("page %d: %d entries", s.Page, s.Entries)
		if s.HasMore {
			out.Page += ", more (n)"
		}
	}
	if s.Claim != "" {
		out.Claim = "claim " + s.Claim
		switch {
		case s.LeaseExpired:
			out.Claim += " lease expired"
			out.ClaimWarn = true
		case s.LeaseLeft > 0:
			out.Claim += " lease " + countdown(s.LeaseLeft)
			out.ClaimWarn = s.LeaseLeft < leaseWarn
		}
	}
	if s.Busy != "" {
		out.Transfer = strings.TrimPrefix(out.Transfer+" · "+s.Busy, " · ")
	}
	if s.Worker != "" {
		out.Worker = "worker " + s.Worker
	}
	return out
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
	switch on, pausing := m.workerOn(); {
	case on && pausing:
		st.Worker = "pausing"
	case on:
		st.Worker = "on"
	}
	if b := m.uploadBusy(); b != "" {
		st.Transfer = strings.TrimPrefix(st.Transfer+" · "+b, " · ")
	}
	if p := m.stack.Preparing(); p != "" {
		st.Busy = p + "…"
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
	case m.stack.Len() > 0:
		return m.screenHelp()
	}
	out := []key.Binding{k.Claim, k.Download, k.Ack, k.Process, k.Worker, k.Filter, k.Next, k.Prev, k.Backlog, k.Upload}
	if (m.work != nil && m.work.retry != nil) || (m.list != nil && m.list.retry != nil) {
		out = append([]key.Binding{k.RetryNow, k.Cancel}, out...)
	}
	return out
}

// FullHelp is every key of the tab, grouped.
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys
	if top := m.stack.Top(); top != nil && !inPane(top) {
		return append(top.FullHelp(), []key.Binding{common.CloseKey})
	}
	return [][]key.Binding{
		k.Nav.Bindings(),
		{k.Next, k.Prev, k.Refresh, k.Bigger, k.Smaller, k.Filter, k.Backlog},
		{k.Claim, k.Download, k.Ack, k.Process, k.Enter, k.Worker, k.Drop},
		{k.View, k.Diff, k.Answers, k.Upload, k.RetryNow, k.Cancel},
		{k.Copy, k.Bundle, k.Mark, k.MarkAll},
	}
}
