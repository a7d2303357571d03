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
	j := answered(&m.list, msg.msgBase)
	if j == nil {
		return m, nil
	}
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
	return refusal(m.run.Refuse(e))
}

// refusal is the note for a claim the runner refused (nil: none).
func refusal(err error) tea.Cmd {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, worker.ErrOneClaim):
		return infoErrCmd(termsafe.String(err.Error()) + " (a acknowledges, x drops)")
	}
	return infoErrCmd(termsafe.String(err.Error()))
}

// launchClaim is c (and its prompt): claim e, outside any order.
func (m Model) launchClaim(e apiclient.Entry) (Model, tea.Cmd) {
	if err := m.run.Begin(e); err != nil {
		return m.stopWork(infoErrCmd(termsafe.String(err.Error())))
	}
	return m.claimJob(e)
}

// claimJob sends the claim the runner began (Begin, or its order's
// MoveClaim).
func (m Model) claimJob(e apiclient.Entry) (Model, tea.Cmd) {
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
	if m.ordering() {
		m, cmd := m.step(m.run.Next())
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
	j := answered(&m.work, msg.msgBase)
	if j == nil {
		return m, nil
	}
	cl := m.claim
	cl.res, cl.snap, cl.stage = msg.res, cl.progress.Snapshot(), j.stage.Load()
	id := cl.entry.DeliveryAttemptID
	if msg.err != nil {
		cl.cancelled = j.cancelled
		m.table.SetStatus(id, "refused")
		return m.stopWork(m.jobFailed(j, msg.err, m.heldCorrelation()))
	}
	m.table.SetStatus(id, "verified")
	// The payload is in the store now: link it (an answer to an upload).
	m, links := m.storedNow(cl.res.Stored)
	if m.ordering() {
		m, cmd := m.step(m.run.Next())
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
	j := answered(&m.work, msg.msgBase)
	if j == nil {
		return m, nil
	}
	cl := m.claim
	if msg.res != nil {
		cl.res = msg.res
	}
	corr := m.heldCorrelation()
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
	if m.ordering() {
		m, cmd := m.step(m.run.Next())
		return m, tea.Batch(note, cmd)
	}
	return m, note
}

// ordering reports whether the runner carries out an order of this tab
// (P, W, the marked entries): the steps go on by themselves.
func (m Model) ordering() bool {
	_, _, ok := m.run.Order()
	return ok
}

// workerOn reports whether W's order runs, and whether it pauses after
// the current entry.
func (m Model) workerOn() (on, pausing bool) {
	o, pausing, ok := m.run.Order()
	return ok && o.Kind == worker.OrderWorker, pausing
}

// startOrder is P, W and y on the marked entries' preview: the runner
// takes the order and decides each move (step).
func (m Model) startOrder(o worker.Order) (Model, tea.Cmd) {
	switch {
	case m.work != nil:
		return m, infoErrCmd("wait: a " + m.work.what + " is running")
	case m.hasActiveClaim():
		return m, infoErrCmd("finish the current claim first: a acknowledges it, x drops it")
	case m.ordering():
		return m, infoCmd("already processing")
	case len(m.marks) > 0 && o.Kind != worker.OrderMarked:
		return m.previewProcess()
	}
	m = m.release()
	m.run.Clear()
	m.claim = nil
	if err := m.run.Start(o); err != nil {
		return m, infoErrCmd(termsafe.String(err.Error()))
	}
	return m.step(m.run.Next())
}

// step performs the runner's next move for its order: the tab runs each
// step in its own job to show it; what comes next is the runner's.
func (m Model) step(mv worker.Move) (Model, tea.Cmd) {
	switch mv.Kind {
	case worker.MoveHead:
		return m.loadHead()
	case worker.MoveClaim:
		return m.claimJob(mv.Entry)
	case worker.MoveFetch:
		return m.startFetch()
	case worker.MoveAck:
		return m.startAck()
	case worker.MoveWait:
		return m, nil
	}
	switch mv.End {
	case worker.EndEmpty:
		note := "no due entries"
		if mv.Order == worker.OrderWorker {
			note += ": worker mode stopped"
		}
		return m, infoCmd(note)
	case worker.EndPaused:
		return m, infoCmd("worker mode paused")
	case worker.EndFailed:
		if mv.Entry.DeliveryAttemptID != "" { // refused before its claim
			return m, stopNote(mv.Order, refusal(mv.Err))
		}
		if mv.Order == worker.OrderWorker { // acknowledged, but its receipt was not recorded
			return m, infoErrCmd("worker mode stopped: this entry did not pass; it is not skipped")
		}
	}
	return m, nil
}

// stopWork ends the runner's order after a failure: a failed entry is
// never skipped.
func (m Model) stopWork(note tea.Cmd) (Model, tea.Cmd) {
	o, _, ok := m.run.Order()
	m.run.StopOrder()
	if !ok {
		return m, note
	}
	return m, stopNote(o.Kind, note)
}

// stopNote: in worker mode the note (one Info or ErrorMsg) says that it
// stopped, in the same message so the footer cannot show one without the
// other.
func stopNote(kind worker.OrderKind, note tea.Cmd) tea.Cmd {
	if kind != worker.OrderWorker || note == nil {
		return note
	}
	return func() tea.Msg {
		const stopped = " — worker mode stopped: this entry did not pass; it is not skipped"
		switch msg := note().(type) {
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

// process is P (and enter on the head): the runner's OrderHead — find
// its head from the mailbox's first page on, then claim, download,
// verify, store and acknowledge it.
func (m Model) process() (Model, tea.Cmd) {
	return m.startOrder(worker.Order{Kind: worker.OrderHead})
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

// processHead hands the runner the head its search found, on the page
// now shown; the runner says what comes next (its claim, or the end).
func (m Model) processHead(h *headResult) (Model, tea.Cmd) {
	relisted := m.relistedNote(h.choice.Relisted)
	var err error
	if h.empty {
		err = worker.ErrEmpty
	} else {
		m.table.SetFilter("")
		m.table.Top()
	}
	m, cmd := m.step(m.run.Headed(h.choice, err))
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

// toggleWorker is W: start worker mode (the runner's OrderWorker), or
// pause it after the current entry; during P it goes on after it.
func (m Model) toggleWorker() (Model, tea.Cmd) {
	o, _, ok := m.run.Order()
	switch {
	case ok && o.Kind == worker.OrderWorker:
		m.run.Pause()
		return m, infoCmd("worker mode pauses after this entry")
	case ok && m.run.Extend(): // P is running: go on after it
		return m, infoCmd("worker mode on: entry by entry until W or a failure")
	case ok:
		return m, infoCmd("already processing the marked entries; W works once they are done")
	}
	return m.startOrder(worker.Order{Kind: worker.OrderWorker})
}

// cancelJob is esc on a running job: a download is cancelled (nothing is
// acknowledged), a retry wait is given up.
func (m Model) cancelJob(j *job) Model {
	j.cancelled = true
	j.cancel()
	return m
}

// heldCorrelation is the correlation ID of the entry the runner holds,
// "" when it holds none: what a failed step's message names.
func (m Model) heldCorrelation() string {
	if h := m.cur().Held; h != nil {
		return h.CorrelationID()
	}
	return ""
}
