package conntab

import (
	"context"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// claimState is what the tab shows of the runner's current claim that
// the runner does not keep: the download's progress as last polled, and
// whether esc cancelled it. Where the claim stands (worker.Phase), its
// lease and the rules on it are the runner's (m.run).
type claimState struct {
	entry     apiclient.Entry
	progress  *apiclient.Progress
	snap      apiclient.ProgressSnapshot
	stage     int32
	res       *worker.Result // the last result shown (the runner's Current has the same)
	cancelled bool           // the download was cancelled with esc
}

// cur is the runner's current claim (zero Phase without one).
func (m Model) cur() worker.Claim {
	c, _ := m.run.Current()
	return c
}

// hasActiveClaim: a claim is being made, or a lease is held that was
// neither acknowledged nor dropped and has not run out.
func (m Model) hasActiveClaim() bool { return m.run.Active() }

// isHead reports whether id is the runner's head (worker.Runner.HeadID):
// the entry P takes. It is the first entry of page 1 (or of the backlog)
// the runner does not pass over (rows whose lease this tab holds or
// dropped — the server lists those as due only once the lease ran out;
// the table keeps them to show what happened — and rows acknowledged in
// this session), or, when page 1 holds none, the one the runner's head
// search found on a later page. The marker and enter follow it, so they
// never disagree with P. It allocates nothing: View asks it on every
// frame.
func (m Model) isHead(id string) bool {
	head, ok := m.run.HeadID()
	return ok && head == id
}

// lookupHead runs the runner's head search in the background, as a list
// job, without changing the page shown: the runner keeps the head it
// finds (HeadID), and the marker shows on the page it is on.
func (m Model) lookupHead() (Model, tea.Cmd) {
	m.list.finish()
	j := m.newJob(whatHead)
	m.list = j
	m.run.SetPageSize(m.pager.limit)
	run, tab := m.run, m.id
	return m, j.run(tab, func(ctx context.Context) tea.Msg {
		_, err := run.Head(ctx)
		if errors.Is(err, worker.ErrEmpty) {
			err = nil
		}
		return headMsg{msgBase{tab, j.req}, err}
	})
}

func (m Model) onHeadLookup(msg headMsg) (Model, tea.Cmd) {
	if !m.list.is(msg.msgBase) {
		return m, nil
	}
	j := m.list
	j.finish()
	m.list = nil
	if msg.err != nil {
		return m, m.jobFailed(j, msg.err, "")
	}
	return m, nil
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
// on an entry during its lease (the runner's rules); nil when a claim may
// start.
func (m Model) refuseClaim(e apiclient.Entry) tea.Cmd {
	if m.work != nil {
		return infoErrCmd("wait: a " + m.work.what + " is running (esc cancels it)")
	}
	err := m.run.Refuse(e)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, worker.ErrOneClaim):
		return infoErrCmd(termsafe.String(err.Error()) + " (a acknowledges, x drops)")
	}
	return infoErrCmd(termsafe.String(err.Error()))
}

func (m Model) launchClaim(e apiclient.Entry) (Model, tea.Cmd) {
	if err := m.run.Begin(e); err != nil {
		return m.stopWork(infoErrCmd(termsafe.String(err.Error())))
	}
	j := m.newJob(whatClaim)
	m.work = j
	m.claim = &claimState{entry: e}
	run, tab := m.run, m.id
	return m, j.run(tab, func(ctx context.Context) tea.Msg {
		l, err := run.Claim(ctx, worker.ClaimOptions{})
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
	if msg.err != nil {
		return m.stopWork(m.jobFailed(j, msg.err, ""))
	}
	m.table.SetStatus(m.claim.entry.DeliveryAttemptID, "claimed")
	var note tea.Cmd
	if skew := msg.lease.ClockSkew(); skew != 0 {
		note = infoCmd(worker.SkewNote(skew) + ": the lease is counted on the server's clock")
	}
	if m.auto {
		m, cmd := m.startFetch()
		return m, tea.Batch(note, cmd)
	}
	return m, note
}

// startFetch is the d key (and the next step of P): download, verify and
// store with a live panel.
func (m Model) startFetch() (Model, tea.Cmd) {
	switch err := m.run.CanFetch(); {
	case errors.Is(err, worker.ErrNoClaim):
		return m, infoErrCmd("claim an entry first (c), or process the head (P)")
	case m.work != nil:
		return m, infoErrCmd("wait: a " + m.work.what + " is running")
	case errors.Is(err, worker.ErrBusy):
		return m, infoErrCmd("wait: a step of this claim is running")
	case errors.Is(err, worker.ErrFetched):
		return m, infoErrCmd("this claim was already downloaded; a lease is fetched once (claim the entry again after its lease ends)")
	case errors.Is(err, worker.ErrLeaseExpired):
		return m.stopWork(infoErrCmd("the lease has expired; the entry becomes due again: refresh (r) and claim it again"))
	case err != nil:
		return m.stopWork(infoErrCmd(termsafe.String(err.Error())))
	}
	cl := m.claim
	j := m.newJob(whatFetch)
	j.progress = &apiclient.Progress{}
	m.work = j
	cl.progress, cl.stage, cl.cancelled = j.progress, stageDownloading, false
	run, export, tab := m.run, m.export, m.id
	opts := worker.FetchOptions{Progress: j.progress, Export: export, OnEvent: func(ev worker.Event) {
		switch ev.(type) { // on the job goroutine: only an atomic store
		case worker.Verified:
			j.stage.Store(stageVerified)
		case worker.Stored:
			j.stage.Store(stageStored)
		}
	}}
	return m, j.run(tab, func(ctx context.Context) tea.Msg {
		res, err := run.Fetch(ctx, opts)
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
		cl.cancelled = j.cancelled
		m.table.SetStatus(id, "refused")
		corr := ""
		if h := m.cur().Held; h != nil {
			corr = h.CorrelationID()
		}
		return m.stopWork(m.jobFailed(j, msg.err, corr))
	}
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
// runner says every check and the durable store passed within the lease
// (CanAck).
func (m Model) startAck() (Model, tea.Cmd) {
	cur := m.cur()
	switch {
	case cur.Held == nil || cur.Phase == worker.PhaseReleased:
		return m, infoErrCmd("nothing to acknowledge: claim (c) and download (d) an entry first")
	case m.work != nil:
		return m, infoErrCmd("wait: a " + m.work.what + " is running")
	case cur.Phase == worker.PhaseAcked:
		return m, infoCmd("already acknowledged (receipt " + termsafe.String(cur.Result.Receipt.ReceiptID) + ")")
	}
	if err := m.run.CanAck(); err != nil {
		return m.stopWork(infoErrCmd("not acknowledged: " + termsafe.String(err.Error())))
	}
	j := m.newJob(whatAck)
	m.work = j
	run, tab := m.run, m.id
	return m, j.run(tab, func(ctx context.Context) tea.Msg {
		res, err := run.Ack(ctx)
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
	corr := ""
	if h := m.cur().Held; h != nil {
		corr = h.CorrelationID()
	}
	if m.run.Phase() != worker.PhaseAcked {
		return m.stopWork(m.jobFailed(j, msg.err, corr))
	}
	m.table.Remove(cl.entry.DeliveryAttemptID)
	if cl.res != nil {
		m = m.noteStored(cl.res.Stored) // the sidecar now holds the receipt
	}
	var note tea.Cmd
	if msg.err != nil { // acknowledged, but the receipt could not be recorded locally
		note = m.errorCmd(msg.err, corr)
	}
	if m.workerMode && !m.stopAfter && m.run.GoOn() {
		return m.loadHead()
	}
	if next, cmd, ok := m.bulkNext(); ok {
		return next, tea.Batch(note, cmd)
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
	m.auto, m.workerMode, m.stopAfter, m.bulk = false, false, false, nil
	return m, note
}

// dropClaim is the x key: asks before forgetting an active lease's token;
// clears a finished claim's panel at once.
func (m Model) dropClaim() (Model, tea.Cmd) {
	cur, ok := m.run.Current()
	switch {
	case !ok:
		return m, infoCmd("no claim to drop")
	case m.work != nil:
		return m, infoErrCmd("wait: a " + m.work.what + " is running (esc cancels it)")
	case m.hasActiveClaim():
		return m.ask(prompt{kind: promptDrop, entry: cur.Entry, text: fmt.Sprintf(
			"Drop the claim on %s? The token is forgotten and nothing is acknowledged; the lease expires at %s, uses a delivery attempt, and the entry becomes due again.",
			termsafe.String(cur.Entry.DeliveryAttemptID), clock(cur.Deadline()))}), nil
	}
	m.run.Clear()
	m.claim = nil
	return m, nil
}

// release forgets the lease's token (the runner's Drop); while the lease
// may still run, the runner keeps the entry blocked so it is not claimed
// again during it.
func (m Model) release() Model {
	cur, ok := m.run.Current()
	if !ok || cur.Held == nil {
		return m
	}
	m.run.Drop()
	if cur.Phase != worker.PhaseAcked && cur.Held.Remaining() > 0 {
		m.table.SetStatus(cur.Entry.DeliveryAttemptID, "dropped")
	}
	return m
}

// flushSeen writes the seen-journal lines the runner queued in a step
// that does no I/O (Drop, Clear), off Update.
func (m Model) flushSeen() tea.Cmd {
	run := m.run
	return func() tea.Msg { run.FlushSeen(); return nil }
}

// process is P (and enter on the head): find the runner's head from the
// mailbox's first page on, then claim, download, verify, store and
// acknowledge it.
func (m Model) process() (Model, tea.Cmd) {
	switch {
	case m.work != nil:
		return m, infoErrCmd("wait: a " + m.work.what + " is running")
	case m.hasActiveClaim():
		return m, infoErrCmd("finish the current claim first: a acknowledges it, x drops it")
	case m.auto:
		return m, infoCmd("already processing")
	case len(m.marks) > 0:
		return m.previewProcess()
	}
	m = m.release()
	m.run.Clear()
	m.claim = nil
	m.auto = true
	return m.loadHead()
}

// loadHead runs the runner's head search (worker.Runner.Head) as the
// tab's page load: it pages past pages made only of refused entries, and
// its answer shows the page the head is on.
func (m Model) loadHead() (Model, tea.Cmd) {
	m.list.finish()
	j := m.newJob(whatPage)
	m.list = j
	m.run.SetPageSize(m.pager.limit)
	run, tab := m.run, m.id
	return m, j.run(tab, func(ctx context.Context) tea.Msg {
		c, err := run.Head(ctx)
		h := &headResult{choice: c}
		if errors.Is(err, worker.ErrEmpty) {
			h.empty, err = true, nil
		}
		first := 1
		var stack []pageRef
		for _, p := range c.Pages {
			stack = append(stack, pageRef{cursor: p.Cursor, first: first})
			first += p.Listed
		}
		if len(stack) == 0 {
			stack = firstPage()
		}
		return pageMsg{msgBase{tab, j.req}, stack, thenProcessHead, c.Page, err, h}
	})
}

// headResult is what the head search found (a pageMsg's head).
type headResult struct {
	choice worker.Choice
	empty  bool // nothing processable is due
}

// processHead claims the head the search found, on the page now shown.
func (m Model) processHead(h *headResult) (Model, tea.Cmd) {
	relisted := m.relistedNote(h.choice.Relisted)
	if h.empty {
		note := "no due entries"
		if m.workerMode {
			note += ": worker mode stopped"
		}
		m.auto, m.workerMode, m.stopAfter = false, false, false
		return m, tea.Batch(relisted, infoCmd(note))
	}
	head := h.choice.Entry
	m.table.SetFilter("")
	m.table.Top()
	if cmd := m.refuseClaim(head); cmd != nil {
		m.auto, m.workerMode, m.stopAfter = false, false, false
		return m, cmd
	}
	m, cmd := m.launchClaim(head)
	return m, tea.Batch(relisted, cmd)
}

// relistedNote says that the server still lists entries acknowledged in
// this session; the runner passes over them, never processing one twice.
func (m Model) relistedNote(ids []string) tea.Cmd {
	if len(ids) == 0 {
		return nil
	}
	rcpt, _ := m.run.Acknowledged(ids[0])
	text := fmt.Sprintf("the server still lists %s, acknowledged in this session (receipt %s)", termsafe.String(ids[0]), termsafe.String(rcpt))
	if len(ids) > 1 {
		text += fmt.Sprintf(", and %d more like it", len(ids)-1)
	}
	text += ": passed over, not processed again"
	return m.errorMsgCmd(apiErrorMsg{text: text, action: "tell the partner's operator: an acknowledged delivery must leave the mailbox"})
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
