package conntab

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/tui/common"
)

// msgBase tags every async result with the tab (common.Owned) and the
// request it answers; the tab drops answers it no longer waits for.
type msgBase struct {
	tab common.TabID
	req uint64
}

// Owner implements common.Owned.
func (b msgBase) Owner() common.TabID { return b.tab }

// The async results of a tab.
type (
	pageMsg struct {
		msgBase
		stack []pageRef
		then  then
		page  *apiclient.Page
		err   error
		head  *headResult // thenProcessHead: what the head search found
	}
	// headMsg: the head lookup ended (the runner keeps what it found).
	headMsg struct {
		msgBase
		err error
	}
	backlogMsg struct {
		msgBase
		entries []apiclient.Entry
		skipped []apiclient.SkippedEntry
		pages   int
		repeat  apiclient.RepeatTally // entries a later page listed again (counted once)
		err     error
	}
	claimMsg struct {
		msgBase
		entry apiclient.Entry
		lease worker.Held
		err   error
	}
	fetchMsg struct {
		msgBase
		res *worker.Result
		err error
	}
	ackMsg struct {
		msgBase
		res *worker.Result
		err error
	}
	// retryMsg: a call of the job failed and is retried at ev.NextAt.
	retryMsg struct {
		msgBase
		ev apiclient.RetryEvent
	}
	// tickMsg drives countdowns and progress; req is the tick generation.
	tickMsg struct{ msgBase }
)

// Stages a download reports through worker events (read on the tick).
const (
	stageDownloading int32 = iota
	stageVerified
	stageStored
)

// job is one running piece of work: a page or backlog load (Model.list)
// or a claim, download or acknowledge (Model.work). Its context carries
// "retry now" and the retry notifier, so a 503 countdown lands on this
// job and R/esc act on it.
type job struct {
	req    uint64
	what   string
	ctx    context.Context
	cancel context.CancelFunc
	now    chan struct{}             // R: end the retry wait early
	events chan apiclient.RetryEvent // the latest retry event, never blocks the job
	done   chan struct{}             // closed when the job's function returned
	once   sync.Once

	stack []pageRef // a page load's cursor stack

	// written by the job goroutine, read on the tick
	pages, entries atomic.Int64 // backlog
	stage          atomic.Int32 // download
	progress       *apiclient.Progress

	// UI side only
	retry     *apiclient.RetryEvent // the retry being waited for
	nowSent   bool                  // R was pressed for it
	cancelled bool                  // esc was pressed
}

func (m *Model) newJob(what string) *job {
	ctx, cancel := context.WithCancel(context.Background())
	j := &job{req: m.nextReq(), what: what, cancel: cancel,
		now: make(chan struct{}, 1), events: make(chan apiclient.RetryEvent, 1), done: make(chan struct{})}
	ctx = apiclient.WithRetryNow(ctx, j.now)
	j.ctx = apiclient.WithRetryNotify(ctx, j.notify)
	return j
}

// notify runs on the job's goroutine: it leaves the newest event in the
// channel, dropping an unread older one, and never blocks.
func (j *job) notify(ev apiclient.RetryEvent) {
	for {
		select {
		case j.events <- ev:
			return
		default:
			select {
			case <-j.events:
			default:
			}
		}
	}
}

// run makes fn the job's Cmd together with the watcher of its retry
// events. fn runs at most once.
func (j *job) run(tab common.TabID, fn func(ctx context.Context) tea.Msg) tea.Cmd {
	work := func() tea.Msg {
		var msg tea.Msg
		j.once.Do(func() {
			defer close(j.done)
			msg = fn(j.ctx)
		})
		return msg
	}
	return tea.Batch(work, j.watch(tab))
}

// watch waits for the job's next retry event (or its end).
func (j *job) watch(tab common.TabID) tea.Cmd {
	return func() tea.Msg {
		select {
		case ev := <-j.events:
			return retryMsg{msgBase{tab, j.req}, ev}
		case <-j.done:
			return nil
		}
	}
}

// retryNow ends the job's retry wait early; it never blocks.
func (j *job) retryNow() {
	select {
	case j.now <- struct{}{}:
	default:
	}
	j.nowSent = true
}

// is reports whether msg answers this (running) job.
func (j *job) is(b msgBase) bool { return j != nil && j.req == b.req }

// answered takes the job *slot holds when b is its answer: finished
// (its context released) and the slot cleared; nil when b is stale.
func answered(slot **job, b msgBase) *job {
	j := *slot
	if !j.is(b) {
		return nil
	}
	j.finish()
	*slot = nil
	return j
}

// finish releases the job's context once its answer arrived.
func (j *job) finish() {
	if j != nil {
		j.cancel()
	}
}

// Tick rates: about 10 Hz while bytes move or pages load, 1 Hz while a
// countdown (lease, retry) is on screen, none otherwise.
const (
	fastTick = 100 * time.Millisecond
	slowTick = time.Second
)

// wantTick is the tick rate the current state needs (0: none).
func (m Model) wantTick() time.Duration {
	switch {
	case m.work != nil && m.work.progress != nil, m.list != nil && m.list.what == whatBacklog:
		return fastTick
	case m.hasActiveClaim(), m.list != nil && m.list.retry != nil, m.work != nil && m.work.retry != nil:
		return slowTick
	}
	return 0
}

// scheduleTick starts a tick loop when the state needs one and none is
// running at that rate or faster. An older, slower loop's tick is then
// stale (its generation no longer matches) and ends.
func (m Model) scheduleTick() (Model, tea.Cmd) {
	want := m.wantTick()
	if want == 0 || (m.tickEvery != 0 && m.tickEvery <= want) {
		return m, nil
	}
	m.tickGen++
	m.tickEvery = want
	b := msgBase{m.id, m.tickGen}
	return m, m.tick(want, func(time.Time) tea.Msg { return tickMsg{b} })
}
