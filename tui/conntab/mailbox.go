package conntab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Job names, shown in the status and in "busy" notes.
const (
	whatPage    = "page load"
	whatBacklog = "backlog load"
	whatHead    = "head search"
	whatClaim   = "claim"
	whatFetch   = "download"
	whatAck     = "acknowledge"
)

// pageRef is one page of the cursor stack: the cursor it was read with
// ("" for the first page) and the position of its first entry.
type pageRef struct {
	cursor string
	first  int
}

// pager is the page view's state. stack[len-1] is the page shown; p pops
// it, n pushes the next cursor. Cursors are opaque and sent back unchanged.
type pager struct {
	limit   int
	stack   []pageRef
	loaded  bool
	hasMore bool
	next    string
	count   int // listed entries of the shown page, skipped ones included
	skipped []apiclient.SkippedEntry
	corr    string
}

func (p pager) page() int { return len(p.stack) }
func (p pager) top() pageRef {
	return p.stack[len(p.stack)-1]
}

// then is what to do after a page arrives.
type then int

const (
	thenNothing     then = iota
	thenProcessHead      // P / W: the runner's head search; claim the head it found
)

// firstPage is the stack of the mailbox's first page.
func firstPage() []pageRef { return []pageRef{{first: 1}} }

// loadPage reads the page at the top of stack; a running page or backlog
// load is replaced (its answer becomes stale).
func (m Model) loadPage(stack []pageRef, th then) (Model, tea.Cmd) {
	m.list.finish()
	j := m.newJob(whatPage)
	j.stack = stack
	m.list = j
	be, tab, limit, top := m.be, m.id, m.pager.limit, stack[len(stack)-1]
	return m, j.run(tab, func(ctx context.Context) tea.Msg {
		p, err := be.List(ctx, limit, top.cursor)
		return pageMsg{msgBase{tab, j.req}, stack, th, p, err, nil}
	})
}

func (m Model) onPage(msg pageMsg) (Model, tea.Cmd) {
	j := answered(&m.list, msg.msgBase)
	if j == nil {
		return m, nil
	}
	if msg.err != nil {
		return m.listFailed(j, msg.err, msg.then == thenProcessHead)
	}
	p := msg.page
	if p == nil { // a head search that read no page
		p = &apiclient.Page{}
	}
	m.view, m.back = viewPage, nil
	m.pager.stack = msg.stack
	m.pager.loaded, m.pager.hasMore, m.pager.next = true, p.HasMore, p.NextCursor
	m.pager.count = len(p.Entries) + len(p.Skipped)
	m.pager.skipped, m.pager.corr = p.Skipped, p.CorrelationID
	m.table.SetRows(p.Entries, positions(m.pager.top().first, p))
	m.markClaimed()
	var cmds []tea.Cmd
	if m.links.loadOf != nil {
		var cmd tea.Cmd
		m, cmd = m.rowsChanged() // the new rows' links
		cmds = append(cmds, cmd)
	}
	if len(m.pager.stack) == 1 && m.run.NoteListing(p.Entries, p.HasMore) && msg.then != thenProcessHead {
		// Page 1 holds no head: the runner's head search finds it on a
		// later page, so the marker and enter agree with P.
		var cmd tea.Cmd
		m, cmd = m.lookupHead()
		cmds = append(cmds, cmd)
	}
	if len(p.Skipped) > 0 {
		cmds = append(cmds, m.skippedNote(p.Skipped, p.CorrelationID))
	}
	if msg.then == thenProcessHead && msg.head != nil {
		var cmd tea.Cmd
		m, cmd = m.processHead(msg.head)
		cmds = append(cmds, cmd)
	}
	return m, tea.Batch(cmds...)
}

// listFailed reports a failed or cancelled page/backlog load; it stops P
// and W when they were waiting for it.
func (m Model) listFailed(j *job, err error, stopsWork bool) (Model, tea.Cmd) {
	if stopsWork {
		m.run.StopOrder()
	}
	return m, m.jobFailed(j, err, "")
}

// jobFailed is the footer note for a job that ended with err: an ErrorMsg
// with code, action and correlation, or a note that esc cancelled it —
// naming the failure it gave up on when it was waiting to retry.
func (m Model) jobFailed(j *job, err error, corr string) tea.Cmd {
	cancelled := j.cancelled || errors.Is(err, context.Canceled)
	switch {
	case cancelled && j.retry != nil:
		e := describe(j.retry.Err, j.retry.CorrelationID)
		e.text = j.what + " given up after attempt " + strconv.Itoa(j.retry.Attempt) + ": " + e.text
		return m.errorMsgCmd(e)
	case cancelled:
		return infoCmd(j.what + " cancelled")
	}
	return m.errorCmd(err, corr)
}

// positions numbers a page's entries by their place in the listing,
// leaving out the places of entries the client skipped.
func positions(first int, p *apiclient.Page) []int {
	skip := make(map[int]bool, len(p.Skipped))
	for _, s := range p.Skipped {
		skip[s.Index] = true
	}
	out := make([]int, 0, len(p.Entries))
	i := 0
	for range p.Entries {
		for skip[i] {
			i++
		}
		out = append(out, first+i)
		i++
	}
	return out
}

// skippedNote tells the operator that listed entries are not shown.
func (m Model) skippedNote(sk []apiclient.SkippedEntry, corr string) tea.Cmd {
	id := termsafe.String(sk[0].DeliveryAttemptID)
	if id == "" {
		id = "(no ID)"
	}
	text := fmt.Sprintf("%d listed entr%s could not be used and %s not shown, e.g. #%d %s: %s",
		len(sk), plural(len(sk), "y", "ies"), plural(len(sk), "is", "are"), sk[0].Index+1, id, termsafe.String(sk[0].Reason))
	return m.errorMsgCmd(apiErrorMsg{text: text, action: "tell the partner's operator with the correlation ID", corr: corr})
}

// nextPage, prevPage, refresh and the page size keys.
func (m Model) nextPage() (Model, tea.Cmd) {
	switch {
	case m.view == viewBacklog:
		return m, infoCmd("the backlog shows every page; A goes back to the page view")
	case !m.pager.loaded:
		return m, infoCmd("the page is still loading")
	case !m.pager.hasMore:
		return m, infoCmd("this is the last page")
	}
	top := m.pager.top()
	stack := append(slices.Clone(m.pager.stack), pageRef{cursor: m.pager.next, first: top.first + m.pager.count})
	return m.loadPage(stack, thenNothing)
}

func (m Model) prevPage() (Model, tea.Cmd) {
	switch {
	case m.view == viewBacklog:
		return m, infoCmd("the backlog shows every page; A goes back to the page view")
	case len(m.pager.stack) <= 1:
		return m, infoCmd("this is the first page")
	}
	return m.loadPage(slices.Clone(m.pager.stack[:len(m.pager.stack)-1]), thenNothing)
}

func (m Model) refresh() (Model, tea.Cmd) {
	if m.view == viewBacklog {
		return m.loadBacklog()
	}
	return m.loadPage(slices.Clone(m.pager.stack), thenNothing)
}

// stepPageSize moves to the next larger (dir > 0) or smaller page size.
func (m Model) stepPageSize(dir int) (Model, tea.Cmd) {
	cur := m.pager.limit
	next := cur
	if dir > 0 {
		for _, s := range PageSizes {
			if s > cur {
				next = s
				break
			}
		}
	} else {
		for _, s := range slices.Backward(PageSizes) {
			if s < cur {
				next = s
				break
			}
		}
	}
	if next == cur {
		return m, infoCmd(fmt.Sprintf("page size stays %d (sizes: %v)", cur, PageSizes))
	}
	return m.SetPageSize(next)
}

// SetPageSize sets the mailbox page size (1..100) and reloads the first
// page (cursors belong to the page size they were read with).
func (m Model) SetPageSize(n int) (Model, tea.Cmd) {
	if n < 1 || n > apiclient.MaxListLimit {
		return m, infoErrCmd(fmt.Sprintf("page size %d is outside 1..%d", n, apiclient.MaxListLimit))
	}
	m.pager.limit = n
	m.pager.loaded = false
	if m.view == viewBacklog {
		return m, nil
	}
	return m.loadPage(firstPage(), thenNothing)
}

// PageSize is the current page size.
func (m Model) PageSize() int { return m.pager.limit }
