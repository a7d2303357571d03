package conntab

import (
	"context"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// phase is where the current claim stands in the worker order.
type phase int

const (
	phClaiming    phase = iota
	phClaimFailed       // no lease
	phClaimed           // leased, not fetched
	phFetching          // download → verify → store running
	phFetchFailed       // a check, the download or the store failed: never acknowledged
	phFetched           // verified and stored durably: may be acknowledged
	phAcking            // acknowledge running
	phAckFailed         // acknowledge failed; may be tried again with the same token
	phAcked             // acknowledged: receipt shown, entry left the list
	phReleased          // dropped by the operator: token forgotten
)

// claimState is the tab's one claim (at most one per connection).
type claimState struct {
	entry     apiclient.Entry
	lease     lease // nil until the claim answered
	expiresAt time.Time
	phase     phase
	progress  *apiclient.Progress
	snap      apiclient.ProgressSnapshot
	stage     int32
	res       *worker.Result
	err       error // the last failure
	cancelled bool  // the download was cancelled with esc
}

// hasActiveClaim: a claim is being made, or a lease is held that was
// neither acknowledged nor dropped and has not run out.
func (m Model) hasActiveClaim() bool {
	cl := m.claim
	if cl == nil {
		return false
	}
	switch cl.phase {
	case phClaiming:
		return true
	case phClaimFailed, phAcked, phReleased:
		return false
	}
	return cl.lease != nil && cl.lease.Remaining() > 0
}

// isHead reports whether id is the first due entry of the mailbox as
// loaded: the first row of the first page, or of the backlog, passing
// over rows whose lease this tab holds or dropped (the server lists
// those as due only once the lease ran out; the table keeps them to
// show what happened).
func (m Model) isHead(id string) bool {
	if m.view == viewPage && len(m.pager.stack) != 1 {
		return false
	}
	for _, r := range m.table.Rows() {
		if !m.leased(r.ID()) {
			return r.ID() == id
		}
	}
	return false
}

// leased reports whether this tab holds the lease of id, or dropped one
// that may still run.
func (m Model) leased(id string) bool {
	if cl := m.claim; cl != nil && cl.entry.DeliveryAttemptID == id && cl.lease != nil &&
		cl.phase != phAcked && cl.lease.Remaining() > 0 {
		return true
	}
	until, ok := m.blocked[id]
	return ok && m.c.Now().Before(until)
}

// claimSelected is the c key.
func (m Model) claimSelected() (Model, tea.Cmd) {
	row, ok := m.table.Selected()
	if !ok {
		return m, infoCmd("no entry selected")
	}
	if cmd := m.refuseClaim(row.Entry); cmd != nil {
		return m, cmd
	}
	if !m.isHead(row.ID()) {
		return m.ask(prompt{kind: promptClaim, entry: row.Entry, text: fmt.Sprintf(
			"%s (#%d) is not the head of the mailbox; the contract processes entries in order. Claim it anyway?",
			termsafe.String(row.ID()), row.Pos)}), nil
	}
	return m.launchClaim(row.Entry)
}

// refuseClaim enforces one claim per connection and never a second claim
// on an entry during its lease; nil when a claim may start.
func (m Model) refuseClaim(e apiclient.Entry) tea.Cmd {
	switch {
	case m.work != nil:
		return infoErrCmd("wait: a " + m.work.what + " is running (esc cancels it)")
	case m.hasActiveClaim():
		cl := m.claim
		return infoErrCmd(fmt.Sprintf("one claim per connection: %s is claimed until %s; acknowledge it (a) or drop it (x) first",
			termsafe.String(cl.entry.DeliveryAttemptID), clock(cl.expiresAt)))
	}
	if until, ok := m.blocked[e.DeliveryAttemptID]; ok && m.c.Now().Before(until) {
		return infoErrCmd(fmt.Sprintf("%s has a lease of ours until about %s; it cannot be claimed again before that",
			termsafe.String(e.DeliveryAttemptID), clock(until)))
	}
	return nil
}

func (m Model) launchClaim(e apiclient.Entry) (Model, tea.Cmd) {
	j := m.newJob(whatClaim)
	m.work = j
	m.claim = &claimState{entry: e, phase: phClaiming}
	be, tab := m.be, m.id
	return m, j.run(tab, func(ctx context.Context) tea.Msg {
		l, err := be.Claim(ctx, e)
		if err == nil && ctx.Err() != nil {
			// Cancelled (esc, or the tab closed) while the claim was
			// answered: nobody will use the lease, forget its token now.
			l.Release()
			l, err = nil, fmt.Errorf("claim %s: answered after it was cancelled; the token is forgotten and the lease runs out unused: %w",
				termsafe.String(e.DeliveryAttemptID), context.Cause(ctx))
		}
		return claimMsg{msgBase{tab, j.req}, e, l, err}
	})
}

func (m Model) onClaim(msg claimMsg) (Model, tea.Cmd) {
	if !m.work.is(msg.msgBase) {
		if msg.lease != nil {
			msg.lease.Release() // nobody waits for it: forget the token at once
		}
		return m, nil
	}
	j := m.work
	j.finish()
	m.work = nil
	cl := m.claim
	if msg.err != nil {
		cl.phase, cl.err = phClaimFailed, msg.err
		return m.stopWork(m.jobFailed(j, msg.err, ""))
	}
	cl.lease, cl.phase, cl.expiresAt = msg.lease, phClaimed, msg.lease.ExpiresAt()
	m.table.SetStatus(cl.entry.DeliveryAttemptID, "claimed")
	if m.auto {
		return m.startFetch()
	}
	return m, nil
}

// startFetch is the d key (and the next step of P): download, verify and
// store with a live panel.
func (m Model) startFetch() (Model, tea.Cmd) {
	cl := m.claim
	switch {
	case cl == nil || cl.lease == nil || cl.phase == phReleased:
		return m, infoErrCmd("claim an entry first (c), or process the head (P)")
	case m.work != nil:
		return m, infoErrCmd("wait: a " + m.work.what + " is running")
	case cl.phase != phClaimed:
		return m, infoErrCmd("this claim was already downloaded; a lease is fetched once (claim the entry again after its lease ends)")
	case cl.lease.Remaining() <= 0:
		return m, infoErrCmd("the lease has expired; the entry becomes due again: refresh (r) and claim it again")
	}
	j := m.newJob(whatFetch)
	j.progress = &apiclient.Progress{}
	m.work = j
	cl.phase, cl.progress, cl.stage, cl.cancelled = phFetching, j.progress, stageDownloading, false
	l, export, tab := cl.lease, m.export, m.id
	opts := worker.FetchOptions{Progress: j.progress, Export: export, OnEvent: func(ev worker.Event) {
		switch ev.(type) { // on the job goroutine: only an atomic store
		case worker.Verified:
			j.stage.Store(stageVerified)
		case worker.Stored:
			j.stage.Store(stageStored)
		}
	}}
	return m, j.run(tab, func(ctx context.Context) tea.Msg {
		res, err := l.Fetch(ctx, opts)
		return fetchMsg{msgBase{tab, j.req}, res, err}
	})
}

func (m Model) onFetch(msg fetchMsg) (Model, tea.Cmd) {
	if !m.work.is(msg.msgBase) {
		return m, nil
	}
	j := m.work
	j.finish()
	m.work = nil
	cl := m.claim
	cl.res, cl.snap, cl.stage = msg.res, cl.progress.Snapshot(), j.stage.Load()
	id := cl.entry.DeliveryAttemptID
	if msg.err != nil {
		cl.phase, cl.err, cl.cancelled = phFetchFailed, msg.err, j.cancelled
		m.table.SetStatus(id, "refused")
		return m.stopWork(m.jobFailed(j, msg.err, cl.lease.CorrelationID()))
	}
	cl.phase = phFetched
	m.table.SetStatus(id, "verified")
	// The payload is in the store now: link it (an answer to an upload).
	m, links := m.storedNow(cl.res.Stored)
	if m.auto {
		m, cmd := m.startAck()
		return m, tea.Batch(cmd, links)
	}
	return m, links
}

// startAck is the a key (and the last step of P). It runs only when the
// lease says every check and the durable store passed (CanAck).
func (m Model) startAck() (Model, tea.Cmd) {
	cl := m.claim
	switch {
	case cl == nil || cl.lease == nil || cl.phase == phReleased:
		return m, infoErrCmd("nothing to acknowledge: claim (c) and download (d) an entry first")
	case m.work != nil:
		return m, infoErrCmd("wait: a " + m.work.what + " is running")
	case cl.phase == phAcked:
		return m, infoCmd("already acknowledged (receipt " + termsafe.String(cl.res.Receipt.ReceiptID) + ")")
	}
	if err := cl.lease.CanAck(); err != nil {
		return m.stopWork(infoErrCmd("not acknowledged: " + termsafe.String(err.Error())))
	}
	j := m.newJob(whatAck)
	m.work = j
	cl.phase = phAcking
	l, tab := cl.lease, m.id
	return m, j.run(tab, func(ctx context.Context) tea.Msg {
		res, err := l.Ack(ctx)
		return ackMsg{msgBase{tab, j.req}, res, err}
	})
}

func (m Model) onAck(msg ackMsg) (Model, tea.Cmd) {
	if !m.work.is(msg.msgBase) {
		return m, nil
	}
	j := m.work
	j.finish()
	m.work = nil
	cl := m.claim
	if msg.res != nil {
		cl.res = msg.res
	}
	if msg.err != nil && (msg.res == nil || !msg.res.Acknowledged) {
		cl.phase, cl.err = phAckFailed, msg.err
		return m.stopWork(m.jobFailed(j, msg.err, cl.lease.CorrelationID()))
	}
	cl.phase, cl.err = phAcked, nil
	m.table.Remove(cl.entry.DeliveryAttemptID)
	var note tea.Cmd
	if msg.err != nil { // acknowledged, but the receipt could not be recorded locally
		note = m.errorCmd(msg.err, cl.lease.CorrelationID())
	}
	if m.workerMode && !m.stopAfter && note == nil {
		m2, cmd := m.loadPage(firstPage(), thenProcessHead)
		return m2, tea.Batch(note, cmd)
	}
	if m.workerMode {
		note = tea.Batch(note, infoCmd("worker mode paused"))
	}
	m.auto, m.workerMode, m.stopAfter = false, false, false
	return m, note
}

// stopWork ends P and W after a failure: a failed entry is never skipped.
// In worker mode the note (one Info or ErrorMsg) says so, in the same
// message so the footer cannot show one without the other.
func (m Model) stopWork(note tea.Cmd) (Model, tea.Cmd) {
	if m.workerMode && note != nil {
		inner := note
		note = func() tea.Msg {
			const stopped = " — worker mode stopped: this entry did not pass; it is not skipped"
			switch msg := inner().(type) {
			case common.ErrorMsg:
				msg.Text += stopped
				return msg
			case common.Info:
				msg.Text += stopped
				msg.Err = true
				return msg
			default:
				return msg
			}
		}
	}
	m.auto, m.workerMode, m.stopAfter = false, false, false
	return m, note
}

// dropClaim is the x key: asks before forgetting an active lease's token;
// clears a finished claim's panel at once.
func (m Model) dropClaim() (Model, tea.Cmd) {
	cl := m.claim
	switch {
	case cl == nil:
		return m, infoCmd("no claim to drop")
	case m.work != nil:
		return m, infoErrCmd("wait: a " + m.work.what + " is running (esc cancels it)")
	case m.hasActiveClaim():
		return m.ask(prompt{kind: promptDrop, entry: cl.entry, text: fmt.Sprintf(
			"Drop the claim on %s? The token is forgotten and nothing is acknowledged; the lease expires at %s, uses a delivery attempt, and the entry becomes due again.",
			termsafe.String(cl.entry.DeliveryAttemptID), clock(cl.expiresAt))}), nil
	}
	m = m.release()
	m.claim = nil
	return m, nil
}

// release forgets the lease's token; while the lease may still run, the
// entry is remembered so it is not claimed again during it.
func (m Model) release() Model {
	cl := m.claim
	if cl == nil || cl.lease == nil {
		return m
	}
	cl.lease.Release()
	if left := cl.lease.Remaining(); left > 0 && cl.phase != phAcked {
		if m.blocked == nil {
			m.blocked = map[string]time.Time{}
		}
		m.blocked[cl.entry.DeliveryAttemptID] = m.c.Now().Add(left)
		m.table.SetStatus(cl.entry.DeliveryAttemptID, "dropped")
	}
	if cl.phase != phAcked {
		cl.phase = phReleased
	}
	return m
}

// process is P (and enter on the head): read the first page, then claim,
// download, verify, store and acknowledge its head entry.
func (m Model) process() (Model, tea.Cmd) {
	switch {
	case m.work != nil:
		return m, infoErrCmd("wait: a " + m.work.what + " is running")
	case m.hasActiveClaim():
		return m, infoErrCmd("finish the current claim first: a acknowledges it, x drops it")
	case m.auto:
		return m, infoCmd("already processing")
	}
	m = m.release()
	m.claim = nil
	m.auto = true
	return m.loadPage(firstPage(), thenProcessHead)
}

// processHead claims the first row of the page that just arrived.
func (m Model) processHead() (Model, tea.Cmd) {
	if m.table.Len() == 0 {
		note := "no due entries"
		if m.workerMode {
			note += ": worker mode stopped"
		}
		m.auto, m.workerMode, m.stopAfter = false, false, false
		return m, infoCmd(note)
	}
	head := m.table.Rows()[0].Entry
	m.table.SetFilter("")
	m.table.Top()
	if cmd := m.refuseClaim(head); cmd != nil {
		m.auto, m.workerMode, m.stopAfter = false, false, false
		return m, cmd
	}
	return m.launchClaim(head)
}

// toggleWorker is W: start worker mode, or stop it after the current
// entry.
func (m Model) toggleWorker() (Model, tea.Cmd) {
	if m.workerMode {
		if m.auto {
			m.stopAfter = true
			return m, infoCmd("worker mode pauses after this entry")
		}
		m.workerMode, m.stopAfter = false, false
		return m, infoCmd("worker mode paused")
	}
	if m.auto { // P is running: go on after it
		m.workerMode = true
		return m, infoCmd("worker mode on: entry by entry until W or a failure")
	}
	m2, cmd := m.process()
	if !m2.auto {
		return m2, cmd
	}
	m2.workerMode = true
	return m2, cmd
}

// cancelJob is esc on a running job: a download is cancelled (nothing is
// acknowledged), a retry wait is given up.
func (m Model) cancelJob(j *job) Model {
	j.cancelled = true
	j.cancel()
	return m
}
