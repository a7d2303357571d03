package conntab

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/fix"
	"github.com/nutrab2b/b2bx/tui/upload"
)

// Update handles keys and the tab's own async results. A result owned
// by another tab is dropped (and let go of) here, once; one answering a
// request the tab no longer waits for is dropped by its handler (the
// job's or the stack's request id).
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if o, ok := msg.(common.Owned); ok && o.Owner() != m.id {
		if d, ok := msg.(common.Dropped); ok {
			d.Drop()
		}
		return m, nil
	}
	m, cmd, _ := m.indexMsg(msg) // the tracking index (index.go)
	switch msg := msg.(type) {
	case tea.KeyMsg:
		m, cmd = m.onKey(msg)
	case pageMsg:
		m, cmd = m.onPage(msg)
	case backlogMsg:
		m, cmd = m.onBacklog(msg)
	case headMsg:
		m, cmd = m.onHeadLookup(msg)
	case claimMsg:
		m, cmd = m.onClaim(msg)
	case fetchMsg:
		m, cmd = m.onFetch(msg)
	case ackMsg:
		m, cmd = m.onAck(msg)
	case retryMsg:
		m, cmd = m.onRetry(msg)
	case linksMsg:
		m, cmd = m.onLinks(msg)
	case common.Opened:
		m, cmd = m.onOpened(msg)
	case common.ScreenMsg:
		m, cmd = m.afterScreen(m.stack.Deliver(msg))
	case viewReq:
		m, cmd = m.openViewer(msg.resolve, msg.title)
	case diffReq:
		m, cmd = m.startDiff(msg.rec, msg.path, msg.what)
	case reloadReq:
		m, cmd = m.loadLinks()
	case ViewMsg:
		m, cmd = m.openPath(msg.Path)
	case SelectMsg:
		m, cmd = m.onSelect(msg)
	case upload.OpenMsg:
		m, cmd = m.openUpload(msg.Path)
	case bulkUploadReq:
		m, cmd = m.runBulkUploads(msg)
	case bulkRunReq:
		m, cmd = m.runBulk(msg)
	case bundleReq:
		m, cmd = m.startBundle(msg.id)
	case bundleMsg:
		m, cmd = m.onBundle(msg)
	case common.ExportMsg:
		m, cmd = m.onExport(msg)
	case fix.OpenMsg:
		m, cmd = m.openFix(msg)
	case tickMsg:
		if msg.req == m.tickGen {
			m.tickEvery = 0 // this loop ended; scheduleTick starts the next if needed
			m = m.onTick()
		}
	}
	m, tick := m.scheduleTick()
	m, links := m.flushLinks()
	m, index := m.flushIndex()
	m, sel := m.flushSelect()
	return m.layout(), tea.Batch(cmd, tick, links, index, sel)
}

// Drop implements common.Dropped: a claim that reaches no tab (its tab
// closed, or another tab's) releases its lease, so the token is
// forgotten at once.
func (m claimMsg) Drop() {
	if m.lease != nil {
		m.lease.Release()
	}
}

// onTick refreshes what the tick polls: download progress and stage.
func (m Model) onTick() Model {
	if j, cl := m.work, m.claim; j != nil && j.progress != nil && cl != nil {
		cl.snap, cl.stage = j.progress.Snapshot(), j.stage.Load()
	}
	return m
}

// onRetry shows a scheduled retry of a running job (code, action and
// correlation in the tab, next to R and esc) and watches for the next one.
// It sends nothing to the footer: there esc would dismiss the note instead
// of giving up; the footer gets the failure if the job ends with it.
func (m Model) onRetry(msg retryMsg) (Model, tea.Cmd) {
	var j *job
	switch {
	case m.work.is(msg.msgBase):
		j = m.work
	case m.list.is(msg.msgBase):
		j = m.list
	default:
		return m, nil
	}
	ev := msg.ev
	j.retry, j.nowSent = &ev, false
	return m, j.watch(m.id)
}

func (m Model) onKey(k tea.KeyMsg) (Model, tea.Cmd) {
	if m.stack.Len() > 0 {
		return m.stackKey(k)
	}
	km := m.keys
	switch {
	case key.Matches(k, km.Up):
		m.table.Move(-1)
	case key.Matches(k, km.Down):
		m.table.Move(1)
	case key.Matches(k, km.PageUp):
		m.table.Move(-m.table.PageRows())
	case key.Matches(k, km.PageDown):
		m.table.Move(m.table.PageRows())
	case key.Matches(k, km.Top):
		m.table.Top()
	case key.Matches(k, km.Bottom):
		m.table.Bottom()
	case key.Matches(k, km.Next):
		return m.nextPage()
	case key.Matches(k, km.Prev):
		return m.prevPage()
	case key.Matches(k, km.Refresh):
		return m.refresh()
	case key.Matches(k, km.Bigger):
		return m.stepPageSize(1)
	case key.Matches(k, km.Smaller):
		return m.stepPageSize(-1)
	case key.Matches(k, km.Filter):
		return m, m.stack.Push(newFilter(m.table.Filter(), m.keys))
	case key.Matches(k, km.Backlog):
		return m.toggleBacklog()
	case key.Matches(k, km.Claim):
		return m.claimSelected()
	case key.Matches(k, km.Download):
		return m.startFetch()
	case key.Matches(k, km.Ack):
		return m.startAck()
	case key.Matches(k, km.Process):
		return m.process()
	case key.Matches(k, km.Enter):
		if id, ok := m.table.SelectedID(); ok && m.isHead(id) {
			return m.process()
		}
		return m, infoCmd("enter processes the head entry (the one P takes, shown as the head of the mailbox); c claims the selected one")
	case key.Matches(k, km.Worker):
		return m.toggleWorker()
	case key.Matches(k, km.Drop):
		return m.dropClaim()
	case key.Matches(k, km.View):
		return m.viewSelected()
	case key.Matches(k, km.Diff):
		return m.diffSelected()
	case key.Matches(k, km.Answers):
		return m.openAnswers()
	case key.Matches(k, km.Upload):
		return m.openUpload("")
	case key.Matches(k, km.Mark):
		return m.toggleMark()
	case key.Matches(k, km.MarkAll):
		return m.markAll()
	case key.Matches(k, km.Bundle):
		return m.bundleSelected()
	case key.Matches(k, km.Copy):
		return m.copySelected()
	case key.Matches(k, km.RetryNow):
		return m.retryNow()
	case key.Matches(k, km.Cancel):
		return m.escape()
	}
	return m, nil
}

// toggleBacklog is A: load the backlog, or go back to the page view.
func (m Model) toggleBacklog() (Model, tea.Cmd) {
	switch {
	case m.list != nil && m.list.what == whatBacklog:
		return m, infoCmd("the backlog is loading (esc cancels)")
	case m.view == viewBacklog:
		m.view, m.back = viewPage, nil
		return m.loadPage(m.pager.stack, thenNothing)
	}
	return m.loadBacklog()
}

// retryNow is R: the running job's retry wait ends now.
func (m Model) retryNow() (Model, tea.Cmd) {
	for _, j := range []*job{m.work, m.list} {
		if j != nil && j.retry != nil {
			j.retryNow()
			return m, nil
		}
	}
	return m, infoCmd("nothing is waiting to be retried")
}

// escape is esc: stop opening a viewer or a diff, cancel the running
// work (a download, a retry wait), then
// a running load, then the filter, then the backlog view.
func (m Model) escape() (Model, tea.Cmd) {
	switch {
	case m.stack.Preparing() != "":
		what := m.stack.StopPreparing()
		return m, infoCmd("stopped " + what)
	case m.work != nil:
		return m.cancelJob(m.work), nil
	case m.list != nil:
		return m.cancelJob(m.list), nil
	case m.table.Filter() != "":
		m.table.SetFilter("")
		return m, nil
	case m.view == viewBacklog:
		return m.toggleBacklog()
	}
	return m, nil
}

// answer does what a prompt was answered y to.
func (m Model) answer(p prompt) (Model, tea.Cmd) {
	switch p.kind {
	case promptClaim:
		if cmd := m.refuseClaim(p.entry); cmd != nil {
			return m, cmd
		}
		return m.launchClaim(p.entry)
	case promptDrop:
		if m.claim == nil || m.claim.entry.DeliveryAttemptID != p.entry.DeliveryAttemptID {
			return m, nil
		}
		m = m.release()
		return m, tea.Batch(m.flushSeen(), infoCmd("claim dropped: the token is forgotten; the entry becomes due again when its lease runs out"))
	}
	return m, nil
}

// markClaimed shows the claimed entry's state in freshly loaded rows.
func (m *Model) markClaimed() {
	cur, ok := m.run.Current()
	if !ok || cur.Held == nil {
		return
	}
	switch cur.Phase {
	case worker.PhaseClaimed, worker.PhaseFetching, worker.PhaseAcking, worker.PhaseAckFailed:
		m.table.SetStatus(cur.Entry.DeliveryAttemptID, "claimed")
	case worker.PhaseFetched:
		m.table.SetStatus(cur.Entry.DeliveryAttemptID, "verified")
	case worker.PhaseFetchFailed:
		m.table.SetStatus(cur.Entry.DeliveryAttemptID, "refused")
	}
}
