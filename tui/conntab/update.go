package conntab

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/worker"
)

// promptKind is what a y/N prompt confirms.
type promptKind int

const (
	promptClaim promptKind = iota // claim an entry that is not the head
	promptDrop                    // drop an active claim
)

// prompt is a y/N question; it takes every key until answered.
type prompt struct {
	kind  promptKind
	entry apiclient.Entry
	text  string
}

// Update handles keys and the tab's own async results. Results owned by
// another tab, or answering a request the tab no longer waits for, are
// dropped.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.KeyMsg:
		m, cmd = m.onKey(msg)
	case pageMsg:
		if msg.tab == m.id {
			m, cmd = m.onPage(msg)
		}
	case backlogMsg:
		if msg.tab == m.id {
			m, cmd = m.onBacklog(msg)
		}
	case claimMsg:
		if msg.tab == m.id {
			m, cmd = m.onClaim(msg)
		} else if msg.lease != nil {
			msg.lease.Release()
		}
	case fetchMsg:
		if msg.tab == m.id {
			m, cmd = m.onFetch(msg)
		}
	case ackMsg:
		if msg.tab == m.id {
			m, cmd = m.onAck(msg)
		}
	case retryMsg:
		if msg.tab == m.id {
			m, cmd = m.onRetry(msg)
		}
	case linksMsg:
		if msg.tab == m.id {
			m, cmd = m.onLinks(msg)
		}
	case openedViewMsg:
		if msg.tab == m.id {
			m, cmd = m.onOpenedView(msg)
		} else {
			msg.Drop()
		}
	case diffMsg:
		if msg.tab == m.id {
			m, cmd = m.onDiff(msg)
		}
	case viewerMsg:
		if msg.tab == m.id {
			m, cmd = m.onViewerMsg(msg)
		}
	case ViewMsg:
		if msg.Tab == m.id {
			m, cmd = m.openPath(msg.Path)
		}
	case tickMsg:
		if msg.tab == m.id && msg.req == m.tickGen {
			m.tickEvery = 0 // this loop ended; scheduleTick starts the next if needed
			m = m.onTick()
		}
	default:
		if m.filtering { // e.g. the text input's cursor blink
			m.filter, cmd = m.filter.Update(msg)
		}
	}
	m, tick := m.scheduleTick()
	m, links := m.flushLinks()
	return m.layout(), tea.Batch(cmd, tick, links)
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
	switch {
	case m.prompt != nil:
		return m.onPromptKey(k)
	case m.over.open():
		return m.overlayKey(k)
	case m.filtering:
		return m.onFilterKey(k)
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
		m.filtering = true
		m.filter.SetValue(m.table.Filter())
		m.filter.CursorEnd()
		return m, m.filter.Focus()
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
		return m, infoCmd("enter processes the head entry (the first of page 1); c claims the selected one")
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
	case m.over.waiting != 0:
		what := m.over.what
		return m.stopPreparing(), infoCmd("stopped " + what)
	case m.work != nil:
		return m.cancelJob(m.work), nil
	case m.list != nil:
		return m.cancelJob(m.list), nil
	case m.table.Filter() != "":
		m.table.SetFilter("")
		m.filter.SetValue("")
		return m, nil
	case m.view == viewBacklog:
		return m.toggleBacklog()
	}
	return m, nil
}

func (m Model) onPromptKey(k tea.KeyMsg) (Model, tea.Cmd) {
	p := m.prompt
	m.prompt = nil
	if !key.Matches(k, m.keys.Yes) {
		return m, nil
	}
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
		return m, infoCmd("claim dropped: the token is forgotten; the entry becomes due again when its lease runs out")
	}
	return m, nil
}

func (m Model) onFilterKey(k tea.KeyMsg) (Model, tea.Cmd) {
	switch k.Type {
	case tea.KeyEnter:
		m.filtering = false
		m.filter.Blur()
		return m, nil
	case tea.KeyEsc:
		m.filtering = false
		m.filter.Blur()
		m.filter.SetValue("")
		m.table.SetFilter("")
		return m, nil
	}
	var cmd tea.Cmd
	m.filter, cmd = m.filter.Update(k)
	m.table.SetFilter(m.filter.Value())
	return m, cmd
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
