package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// The Runner's steps on its current claim (Begin, Claim, Fetch, Ack,
// Drop, Clear) and the runs that chain them (Process, All).

// Begin makes e the current claim, in PhaseClaiming, unless Refuse
// refuses it; Claim then sends the claim. A finished claim still current
// is cleared first (its lease, if it may still run, stays blocked).
// Begin does no I/O: a face calls it before it starts the claim's work,
// so Active is true from that moment.
func (r *Runner) Begin(e apiclient.Entry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.refuseLocked(e); err != nil {
		return err
	}
	if r.cur != nil {
		r.clearLocked()
	}
	r.cur = &current{entry: e, phase: PhaseClaiming}
	return nil
}

// Claim sends the claim Begin prepared. When ctx ended while the claim
// was answered (esc, the face closed), nobody will use the lease: its
// token is forgotten at once and the claim counts as failed. The error is
// the claim's (a *StepError from a Worker backend).
func (r *Runner) Claim(ctx context.Context, opts ClaimOptions) (Held, error) {
	r.mu.Lock()
	c := r.cur
	if c == nil || c.phase != PhaseClaiming {
		r.mu.Unlock()
		return nil, fmt.Errorf("claim: %w: nothing to claim (Begin first)", ErrNoClaim)
	}
	e := c.entry
	r.mu.Unlock()

	held, err := r.be.Claim(ctx, e, opts)
	defer r.FlushSeen() // after the unlock: the step is over
	r.mu.Lock()
	defer r.mu.Unlock()
	// A lease nobody will use: its token is forgotten at once, and the
	// entry stays blocked while the lease may still run.
	unused := func() {
		held.Release()
		if left := held.Remaining(); left > 0 {
			r.blocked[e.DeliveryAttemptID] = r.now().Add(left)
		}
	}
	if err == nil && ctx.Err() != nil {
		unused()
		held, err = nil, fmt.Errorf("claim %s: answered after it was cancelled; the token is forgotten and the lease runs out unused: %w",
			termsafe.String(e.DeliveryAttemptID), context.Cause(ctx))
	}
	if r.cur != c {
		// Cleared (or replaced) while the claim was on its way: nobody
		// waits for it.
		if held != nil {
			unused()
		}
		return nil, fmt.Errorf("claim %s: the claim was given up while it was answered; the token is forgotten", termsafe.String(e.DeliveryAttemptID))
	}
	if err != nil {
		c.phase, c.err = PhaseClaimFailed, err
		var se *StepError
		if errors.As(err, &se) {
			c.res = &Result{Entry: e, CorrelationID: se.CorrelationID, FailedStep: se.Step, Err: err}
		} else {
			c.res = &Result{Entry: e, FailedStep: StepClaim, Err: err}
		}
		r.noteSeenLocked(c.res)
		return nil, err
	}
	c.held, c.phase, c.err = held, PhaseClaimed, nil
	return held, nil
}

// CanFetch is nil when Fetch may run now: a claimed lease, not fetched
// yet, with time left. Else the error wraps ErrNoClaim (nothing claimed,
// or dropped), ErrBusy, ErrFetched (a lease is fetched once) or
// ErrLeaseExpired.
func (r *Runner) CanFetch() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.canFetchLocked()
}

func (r *Runner) canFetchLocked() error {
	c := r.cur
	switch {
	case c == nil || c.held == nil || c.phase == PhaseReleased:
		return fmt.Errorf("fetch: %w: claim an entry first", ErrNoClaim)
	case c.phase == PhaseFetching || c.phase == PhaseAcking:
		return fmt.Errorf("fetch: %w", ErrBusy)
	case c.phase != PhaseClaimed:
		return fmt.Errorf("fetch %s: %w: a lease is fetched once; claim the entry again after its lease ends", termsafe.String(c.entry.DeliveryAttemptID), ErrFetched)
	case c.held.Remaining() <= 0:
		return fmt.Errorf("fetch %s: %w; the entry becomes due again: claim it again then", termsafe.String(c.entry.DeliveryAttemptID), ErrLeaseExpired)
	}
	return nil
}

// Fetch downloads, checks and stores the current claim's payload (see
// Lease.Fetch), bounded by the lease: work still running when the lease
// ends is stopped then. It refuses without a claimed, unfetched lease
// with time left.
func (r *Runner) Fetch(ctx context.Context, opts FetchOptions) (*Result, error) {
	r.mu.Lock()
	c := r.cur
	if err := r.canFetchLocked(); err != nil {
		r.mu.Unlock()
		return nil, err
	}
	c.phase = PhaseFetching
	held := c.held
	r.mu.Unlock()

	ctx, cancel := context.WithTimeoutCause(ctx, held.Remaining(), fmt.Errorf("%w (at %s)", ErrLeaseExpired, clockText(held.Deadline())))
	defer cancel()
	res, err := held.Fetch(ctx, opts)

	defer r.FlushSeen()
	r.mu.Lock()
	defer r.mu.Unlock()
	c.res, c.err = res, err
	if err != nil {
		c.phase = PhaseFetchFailed
		r.noteSeenLocked(res)
		return res, err
	}
	c.phase = PhaseFetched
	return res, nil
}

// Ack acknowledges the current claim with its token, only when CanAck
// allows it (every check and the store passed, the lease runs). After a
// failed acknowledge it may be called again (the same token; the server
// replays the receipt). An acknowledged entry joins the run's done set:
// it is never claimed again in this run.
func (r *Runner) Ack(ctx context.Context) (*Result, error) {
	r.mu.Lock()
	c := r.cur
	switch {
	case c == nil || c.held == nil || c.phase == PhaseReleased:
		r.mu.Unlock()
		return nil, fmt.Errorf("acknowledge: %w: claim and download an entry first", ErrNoClaim)
	case c.phase == PhaseFetching || c.phase == PhaseAcking:
		r.mu.Unlock()
		return nil, fmt.Errorf("acknowledge: %w", ErrBusy)
	case c.phase == PhaseAcked:
		res := c.res
		r.mu.Unlock()
		return res, nil
	}
	held := c.held
	if err := held.CanAck(); err != nil {
		r.mu.Unlock()
		return c.res, err
	}
	c.phase = PhaseAcking
	r.mu.Unlock()

	ctx, cancel := context.WithTimeoutCause(ctx, held.Remaining(), fmt.Errorf("%w (at %s)", ErrLeaseExpired, clockText(held.Deadline())))
	defer cancel()
	res, err := held.Ack(ctx)

	defer r.FlushSeen()
	r.mu.Lock()
	defer r.mu.Unlock()
	if res != nil {
		c.res = res
	}
	c.err = err
	if res == nil || !res.Acknowledged {
		c.phase = PhaseAckFailed
		r.noteSeenLocked(res)
		return res, err
	}
	c.phase = PhaseAcked
	rcpt := ""
	if res.Receipt != nil {
		rcpt = res.Receipt.ReceiptID
	}
	r.done[c.entry.DeliveryAttemptID] = rcpt
	return res, err // err: acknowledged, but the receipt could not be recorded locally
}

// GoOn reports whether a run may take the next entry: only after the
// current one was acknowledged and its receipt recorded. A failed entry
// stops the run; it is never skipped.
func (r *Runner) GoOn() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur != nil && r.cur.phase == PhaseAcked && r.cur.err == nil
}

// Drop forgets the current claim's token (nothing is acknowledged; the
// server has no release call, so the lease runs out). While it may still
// run the entry stays blocked: Refuse refuses it and Head passes over it.
// The claim stays current (PhaseReleased) until Clear.
func (r *Runner) Drop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropLocked()
}

func (r *Runner) dropLocked() {
	c := r.cur
	if c == nil || c.held == nil {
		return
	}
	c.held.Release()
	if c.phase == PhaseClaimed {
		// Claimed and never downloaded: the lease runs out unused.
		r.noteSeenLocked(unusedLease(c.entry, c.held))
	}
	if left := c.held.Remaining(); left > 0 && c.phase != PhaseAcked {
		r.blocked[c.entry.DeliveryAttemptID] = r.now().Add(left)
	}
	if c.phase != PhaseAcked {
		c.phase = PhaseReleased
	}
}

// Clear drops the current claim (see Drop) and forgets it.
func (r *Runner) Clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLocked()
}

func (r *Runner) clearLocked() {
	r.dropLocked()
	r.cur = nil
}

// Close forgets the current claim's token (see Drop): the connection
// closes, nothing will use it.
func (r *Runner) Close() { r.Drop() }

// ProcessOptions controls Process and All.
type ProcessOptions struct {
	// Ack requests the acknowledge step. Without it the entry is stored
	// and its lease left to expire.
	Ack bool
	// Claim and Fetch are passed to the steps.
	Claim ClaimOptions
	Fetch FetchOptions
}

// Process runs the worker order on e, which must come from the mailbox
// listing: Run with an OrderEntry — Begin, Claim, Fetch and (with
// opts.Ack) Ack. The Result is never nil; its Err (also returned) names
// the failed step. Without Ack the lease is released after the fetch (it
// runs out; the entry stays blocked).
func (r *Runner) Process(ctx context.Context, e apiclient.Entry, opts ProcessOptions) (*Result, error) {
	var res *Result
	err := r.Run(ctx, Order{Kind: OrderEntry, Entries: []apiclient.Entry{e}, NoAck: !opts.Ack},
		func(apiclient.Entry) ProcessOptions { return opts },
		func(_ Choice, got *Result, _ error) { res = got })
	if res == nil {
		// Start refused it (one claim per connection, an order runs).
		if err == nil {
			err = errors.New("not processed")
		}
		res = &Result{Entry: e, FailedStep: StepClaim, Err: &StepError{Step: StepClaim, DeliveryAttemptID: e.DeliveryAttemptID, Err: err}}
	}
	return res, res.Err
}

// All runs the worker order entry after entry (Run with an OrderWorker
// that takes the next entry from the page read): Head, then each entry
// with opts(entry) (nil: just Ack), until the mailbox has no due entry
// it may process (it returns nil) or an entry did not pass (GoOn is
// false; it returns that entry's error, or the listing's). each, if set,
// is called after every entry with its Result, and once at the end with
// a nil Result and the head search's error (ErrEmpty when the mailbox was
// emptied). Every entry's options must acknowledge: without it every
// entry would be claimed and left to its lease, so All refuses before
// claiming one.
//
// The mailbox is read again only when the last page read has no entry
// left to process: the entries after an acknowledged one on
// that page are the next ones in the order given, and listing the same
// page for each of them would cost a request per delivery (a quarter of
// the client's rate limit). One claim at a time and the order of the
// page stay as they were. An entry taken from a page read earlier may
// have been claimed by another client since: when its claim is answered
// 404 or 409, the mailbox is read again and the run goes on from its
// head (the same entry, if still listed, is claimed once more and a
// failure then stops the run as usual).
func (r *Runner) All(ctx context.Context, opts func(apiclient.Entry) ProcessOptions, each func(Choice, *Result, error)) error {
	return r.Run(ctx, Order{Kind: OrderWorker, FromPage: true}, opts, each)
}

// claimGone: the claim failed because the entry is no longer there to
// claim (404) or is claimed by someone else (409).
func claimGone(res *Result) bool {
	return res != nil && res.FailedStep == StepClaim &&
		(errors.Is(res.Err, apiclient.ErrNotFound) || errors.Is(res.Err, apiclient.ErrConflict))
}

// nextOnPageLocked is the head after prev's entry on the page prev's
// head search read: the first later entry on prev.Page that the head
// search would not pass over (see PassesOver). False when prev has no
// page or the page has no such entry: then the mailbox must be read again
// (Head). The Choice keeps prev's pages and relisted entries; Skipped are
// the page's refused entries listed before the new head.
func (r *Runner) nextOnPageLocked(prev Choice) (Choice, bool) {
	if prev.Page == nil || prev.Entry.DeliveryAttemptID == "" {
		return Choice{}, false
	}
	page := prev.Page
	c := Choice{Pages: prev.Pages, Page: page, Relisted: prev.Relisted}
	pos, skipped, after := 0, page.Skipped, false
	for _, e := range page.Entries {
		pos, skipped = passSkipped(pos, skipped, &c.Skipped)
		pos++
		if !after {
			after = e.DeliveryAttemptID == prev.Entry.DeliveryAttemptID
			continue
		}
		if !r.passesOverLocked(e.DeliveryAttemptID) {
			c.Entry = e
			return c, true
		}
	}
	return Choice{}, false
}

// passSkipped moves the refused entries listed at or before pos (the
// place of the next entry in the page's data array) from skipped to
// *out, and returns that entry's place past them and the rest.
func passSkipped(pos int, skipped []apiclient.SkippedEntry, out *[]apiclient.SkippedEntry) (int, []apiclient.SkippedEntry) {
	for len(skipped) > 0 && skipped[0].Index <= pos {
		if skipped[0].Index == pos {
			pos++
		}
		*out = append(*out, skipped[0])
		skipped = skipped[1:]
	}
	return pos, skipped
}
