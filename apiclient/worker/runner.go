package worker

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Held is what a Runner uses of a claimed entry: a *Lease, or a test's
// stand-in that follows the same rules.
type Held interface {
	Entry() apiclient.Entry
	ExpiresAt() time.Time
	Deadline() time.Time
	ClockSkew() time.Duration
	Remaining() time.Duration
	CorrelationID() string
	Fetch(ctx context.Context, opts FetchOptions) (*Result, error)
	CanAck() error
	Ack(ctx context.Context) (*Result, error)
	Release()
}

// Backend is what a Runner reads and claims through: the mailbox's pages
// and one claim. Worker.Backend is the real one.
type Backend interface {
	Pages(ctx context.Context, limit int) iter.Seq2[*apiclient.Page, error]
	Claim(ctx context.Context, e apiclient.Entry, opts ClaimOptions) (Held, error)
}

// Backend is the worker as a Runner's backend: the client's pages and
// Worker.Claim.
func (w *Worker) Backend() Backend { return workerBackend{w} }

type workerBackend struct{ w *Worker }

func (b workerBackend) Pages(ctx context.Context, limit int) iter.Seq2[*apiclient.Page, error] {
	return b.w.client.Pages(ctx, limit)
}

func (b workerBackend) Claim(ctx context.Context, e apiclient.Entry, opts ClaimOptions) (Held, error) {
	l, err := b.w.Claim(ctx, e, opts)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Phase is where the Runner's current claim stands in the worker order.
// It is the one record of it: faces render it, they keep no copy.
type Phase int

// The phases, in the order of the worker order.
const (
	PhaseNone        Phase = iota // no claim
	PhaseClaiming                 // the claim request is on its way
	PhaseClaimFailed              // no lease
	PhaseClaimed                  // leased, not fetched
	PhaseFetching                 // download → verify → store running
	PhaseFetchFailed              // the download, a check or the store failed: never acknowledged
	PhaseFetched                  // verified and stored durably: may be acknowledged within the lease
	PhaseAcking                   // the acknowledge is on its way
	PhaseAckFailed                // the acknowledge failed; it may be tried again with the same token
	PhaseAcked                    // acknowledged: the lease ended with it
	PhaseReleased                 // dropped: the token is forgotten, the lease runs out unused
)

// Errors of the Runner's refusals; each is wrapped in a message that
// names the entry and says what to do.
var (
	// ErrOneClaim: the connection already holds an active claim.
	ErrOneClaim = errors.New("one claim per connection")
	// ErrOwnLease: a lease of ours on the entry may still run (a dropped
	// or refused one); it must not be claimed again during it.
	ErrOwnLease = errors.New("a lease of ours may still run")
	// ErrDone: the entry was acknowledged in this run; it is never
	// processed twice, even when the server lists it again.
	ErrDone = errors.New("already acknowledged in this run")
	// ErrNoClaim: there is no claim to fetch or acknowledge.
	ErrNoClaim = errors.New("no claim")
	// ErrBusy: a step of the current claim is running.
	ErrBusy = errors.New("a step is running")
)

// RunnerOptions tune a Runner. The zero value is fine.
type RunnerOptions struct {
	// PageSize is the page size of the head search, 1..100; 0 →
	// apiclient.MaxListLimit. It changes which pages are read, never
	// which entry is the head.
	PageSize int
	// Now is the clock blocked leases are counted on (time.Now if nil);
	// it should be the leases' clock.
	Now func() time.Time
	// Journal, if set, gets the seen-journal line of every entry the
	// runner claimed or tried and did not store and acknowledge (see
	// SeenRecord), for ConnectionID, once the step is over: both faces
	// write it, so the timeline shows the app's claims and refusals too.
	Journal      Journal
	ConnectionID string
	// SeenError, if set, is told when the journal could not be written
	// (a line of the story is lost, nothing else).
	SeenError func(error)
}

// Runner is the contract's worker order for one connection, entry after
// entry: find the head, claim it, download and check it, store it,
// acknowledge it, then the next — the one implementation behind the
// app's P and W and the CLI's fetch --next and fetch --all. It holds the
// rules both faces need, so they never decide them on their own:
//
//   - the head is the first listed entry the client can process (refused
//     entries, apiclient.Page.Skipped, are passed over on every page),
//     passing over entries of ours that are leased (the current claim, a
//     dropped or refused lease that may still run) and entries
//     acknowledged in this run (Head, PassesOver);
//   - one claim per connection, and no second claim on an entry during a
//     lease of ours (Refuse);
//   - an entry acknowledged in this run is never claimed again: a server
//     that keeps listing it is reported (Choice.Relisted), not obeyed;
//   - the lease bounds the work in flight; nothing is acknowledged on an
//     expired lease (Lease);
//   - a run goes on only after an acknowledged entry and stops at the
//     first failure: a failed entry is never skipped (GoOn, Next);
//   - what comes next in a face's order (P, W, the marked entries, fetch
//     --next/ID/--all) is decided here (Start, Next; order.go).
//
// The steps are separate methods (Begin, Claim, Fetch, Ack, Drop,
// Clear) so an interactive face can run each move of its order in its
// own command and show it; Run performs them for a face that waits
// (Process and All are Run). Every
// method is safe for concurrent use: a face's display may read Current
// while a step runs on another goroutine. Per-chunk progress is never an
// event: the transfer counts into an apiclient.Progress that the face
// polls (about 10 Hz), and each step's end is one event or one result.
type Runner struct {
	be    Backend
	now   func() time.Time
	limit int

	journal Journal
	conn    string
	seenErr func(error)

	mu      sync.Mutex
	seen    []spool.SeenRecord // journal lines not written yet (FlushSeen)
	cur     *current
	blocked map[string]time.Time // our released leases that may still run: ID → local end
	done    map[string]string    // acknowledged in this run: ID → receipt ID
	view    headView             // what the runner knows of the head (HeadID)
	ord     *orderState          // the running order (Start, Next), nil without one
}

// headView is the runner's current view of the head: the mailbox's
// listing from its start as a face last read it (NoteListing), or the
// page the last head search found the head on, from the head on —
// whichever came last.
type headView struct {
	listed []apiclient.Entry
	more   bool // more pages follow listed
}

// current is the claim the runner works on (at most one).
type current struct {
	entry apiclient.Entry
	phase Phase
	held  Held
	res   *Result
	err   error
}

// NewRunner returns a runner over be with no claim.
func NewRunner(be Backend, opts RunnerOptions) *Runner {
	limit := opts.PageSize
	if limit <= 0 || limit > apiclient.MaxListLimit {
		limit = apiclient.MaxListLimit
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Runner{be: be, now: now, limit: limit, blocked: map[string]time.Time{}, done: map[string]string{},
		journal: opts.Journal, conn: opts.ConnectionID, seenErr: opts.SeenError}
}

// Claim is a snapshot of the runner's current claim, for display.
type Claim struct {
	Entry apiclient.Entry
	Phase Phase
	// Held is the lease once claimed (nil before, or after a failed
	// claim); read it, the runner drives it.
	Held Held
	// Result is the last Result of the fetch or the acknowledge; nil
	// before the fetch ended.
	Result *Result
	// Err is the last failure; nil when the last step passed.
	Err error
}

// ExpiresAt is the server's end of the lease (zero before the claim).
func (c Claim) ExpiresAt() time.Time {
	if c.Held == nil {
		return time.Time{}
	}
	return c.Held.ExpiresAt()
}

// Deadline is the lease's end on the local clock (zero before the claim).
func (c Claim) Deadline() time.Time {
	if c.Held == nil {
		return time.Time{}
	}
	return c.Held.Deadline()
}

// SetPageSize sets the head search's page size (1..100; others are
// ignored), e.g. to the face's, so the pages it reports can be shown.
func (r *Runner) SetPageSize(n int) {
	if n < 1 || n > apiclient.MaxListLimit {
		return
	}
	r.mu.Lock()
	r.limit = n
	r.mu.Unlock()
}

// Current is the current claim; false when there is none.
func (r *Runner) Current() (Claim, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.cur
	if c == nil {
		return Claim{}, false
	}
	return Claim{Entry: c.entry, Phase: c.phase, Held: c.held, Result: c.res, Err: c.err}, true
}

// Phase is the current claim's phase (PhaseNone without one).
func (r *Runner) Phase() Phase {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return PhaseNone
	}
	return r.cur.phase
}

// Active reports whether a claim is being made, or a lease is held that
// was neither acknowledged nor dropped and has not run out: what closing
// the connection would lose, and what blocks another claim.
func (r *Runner) Active() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.activeLocked()
}

func (r *Runner) activeLocked() bool {
	c := r.cur
	if c == nil {
		return false
	}
	switch c.phase {
	case PhaseClaiming:
		return true
	case PhaseNone, PhaseClaimFailed, PhaseAcked, PhaseReleased:
		return false
	}
	return c.held != nil && c.held.Remaining() > 0
}

// LeaseLeft is how much of the current claim's lease is left on the local
// clock; 0 without a running lease (none, acknowledged, dropped, expired).
func (r *Runner) LeaseLeft() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.cur
	if c == nil || c.held == nil || c.phase == PhaseAcked || c.phase == PhaseReleased {
		return 0
	}
	return c.held.Remaining()
}

// CanAck is nil when the current claim may be acknowledged now: fetched
// with every check and the store passed, within the lease, not dropped.
func (r *Runner) CanAck() error {
	r.mu.Lock()
	c := r.cur
	r.mu.Unlock()
	switch {
	case c == nil || c.held == nil:
		return fmt.Errorf("acknowledge: %w: claim and download an entry first", ErrNoClaim)
	}
	return c.held.CanAck()
}

// PassesOver reports whether the head search passes over id: a lease of
// ours on it may still run (the current claim, or a dropped or refused
// one), or it was acknowledged in this run. The head among listed entries
// (a face's page 1, its backlog) is the first one it is false for; Head
// applies the same rule to the mailbox itself.
func (r *Runner) PassesOver(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.passesOverLocked(id)
}

func (r *Runner) passesOverLocked(id string) bool {
	if _, ok := r.done[id]; ok {
		return true
	}
	if c := r.cur; c != nil && c.entry.DeliveryAttemptID == id {
		switch {
		case c.phase == PhaseClaiming:
			return true
		case c.held != nil && c.phase != PhaseAcked && c.held.Remaining() > 0:
			return true
		}
	}
	until, ok := r.blocked[id]
	return ok && r.now().Before(until)
}

// Acknowledged reports whether id was acknowledged in this run, with its
// receipt ID.
func (r *Runner) Acknowledged(id string) (receipt string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	receipt, ok = r.done[id]
	return receipt, ok
}

// NoteListing tells the runner what a face read of the mailbox from its
// start: the entries of page 1 (or of every page, the backlog) and
// whether more pages follow. It replaces the last head search's answer.
// search is true when the head is not among them (page 1 holds only
// refused entries, or only ones the runner passes over) while more pages
// follow: then only a head search (Head) can tell the head.
func (r *Runner) NoteListing(entries []apiclient.Entry, more bool) (search bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.view = headView{listed: slices.Clone(entries), more: more}
	_, ok := r.headIDLocked()
	return !ok && more
}

// HeadID is the head as the runner knows it now, the one P takes: the
// first entry of the listing a face read from the mailbox's start
// (NoteListing) that the runner does not pass over, or, after a head
// search, the first such entry on the head's page from the head on (so
// after the head is acknowledged, the next one on its page, as All takes
// it). False when it is not known (nothing listed yet, or a search is
// needed) or nothing is due. A face's head marker and its enter key
// follow it, so they agree with P.
func (r *Runner) HeadID() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.headIDLocked()
}

func (r *Runner) headIDLocked() (string, bool) {
	for _, e := range r.view.listed {
		if !r.passesOverLocked(e.DeliveryAttemptID) {
			return e.DeliveryAttemptID, true
		}
	}
	return "", false
}

// PageRef is one page a head search read: the cursor it was read with
// ("" for the first page) and how many entries it listed, refused ones
// included (so a face can number the entries of the next page).
type PageRef struct {
	Cursor string
	Listed int
}

// Head pages through the mailbox from its start until it finds the head
// (see PassesOver): the contract's "process in the order given", the same
// for every face. Entries the client refuses are passed over on every
// page (Choice.Skipped), so a page made only of refused entries does not
// hide the next page's head. Entries acknowledged in this run that the
// server still lists are passed over and named in Choice.Relisted. It
// fails with ErrEmpty when nothing processable is due; the Choice is
// filled on error too.
func (r *Runner) Head(ctx context.Context) (Choice, error) {
	var c Choice
	cursor := ""
	r.mu.Lock()
	limit := r.limit
	r.mu.Unlock()
	for page, err := range r.be.Pages(ctx, limit) {
		if err != nil {
			return c, err
		}
		c.Pages = append(c.Pages, PageRef{Cursor: cursor, Listed: len(page.Entries) + len(page.Skipped)})
		c.Page, cursor = page, page.NextCursor
		// Refused entries listed before the head are passed over; those
		// after it are not reported (the head search stops there). pos
		// is the place of the entry in the page's data array.
		pos, skipped := 0, page.Skipped
		for _, e := range page.Entries {
			pos, skipped = passSkipped(pos, skipped, &c.Skipped)
			pos++
			id := e.DeliveryAttemptID
			if !r.PassesOver(id) {
				c.Entry = e
				r.noteHead(page, e)
				return c, nil
			}
			if _, acked := r.Acknowledged(id); acked {
				c.Relisted = append(c.Relisted, id)
			}
		}
		c.Skipped = append(c.Skipped, skipped...)
	}
	r.noteHead(nil, apiclient.Entry{})
	return c, ErrEmpty
}

// noteHead makes a head search's answer the runner's view of the head:
// head's page from head on (none when nothing is due).
func (r *Runner) noteHead(page *apiclient.Page, head apiclient.Entry) {
	var v headView
	if page != nil {
		i := slices.IndexFunc(page.Entries, func(e apiclient.Entry) bool { return e.DeliveryAttemptID == head.DeliveryAttemptID })
		v = headView{listed: slices.Clone(page.Entries[max(i, 0):]), more: page.HasMore}
	}
	r.mu.Lock()
	r.view = v
	r.mu.Unlock()
}

// Refuse is nil when a claim on e may start now, else why not: one claim
// per connection (ErrOneClaim), a lease of ours on it may still run
// (ErrOwnLease), or it was acknowledged in this run (ErrDone).
func (r *Runner) Refuse(e apiclient.Entry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refuseLocked(e)
}

func (r *Runner) refuseLocked(e apiclient.Entry) error {
	id := e.DeliveryAttemptID
	if r.activeLocked() {
		c := r.cur
		if c.phase == PhaseClaiming {
			return fmt.Errorf("%w: a claim on %s is being made", ErrOneClaim, termsafe.String(c.entry.DeliveryAttemptID))
		}
		return fmt.Errorf("%w: %s is claimed until %s; acknowledge it or drop it first", ErrOneClaim,
			termsafe.String(c.entry.DeliveryAttemptID), clockText(c.held.Deadline()))
	}
	if rcpt, ok := r.done[id]; ok {
		return fmt.Errorf("%s: %w (receipt %s); the server should not list it any more — tell the partner's operator", termsafe.String(id), ErrDone, termsafe.String(rcpt))
	}
	if c := r.cur; c != nil && c.entry.DeliveryAttemptID == id && c.held != nil && c.phase != PhaseAcked && c.held.Remaining() > 0 {
		return fmt.Errorf("%s has a lease of ours until about %s; it cannot be claimed again before that: %w", termsafe.String(id), clockText(c.held.Deadline()), ErrOwnLease)
	}
	if until, ok := r.blocked[id]; ok && r.now().Before(until) {
		return fmt.Errorf("%s has a lease of ours until about %s; it cannot be claimed again before that: %w", termsafe.String(id), clockText(until), ErrOwnLease)
	}
	return nil
}

// clockText is a local time to the second, for messages.
func clockText(t time.Time) string { return t.Local().Format("15:04:05") }
