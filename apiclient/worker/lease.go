package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// LeaseDuration is the contract's lease length. A Lease counts it on the
// local clock from just before the claim was sent. The server's own
// clock decides how much of it is left: when the claim answer has a Date
// header, the lease left is expiresAt − Date (both the server's clock),
// never more than LeaseDuration; without one, the server's expiresAt
// read on the local clock when that is sooner and plausible.
const LeaseDuration = 5 * time.Minute

// skewTolerance is how far the server's Date may be off the local clock
// (beyond the request's round trip) before a Lease reports the clocks
// disagree: the Date header has whole seconds.
const skewTolerance = 5 * time.Second

// Errors of the Lease methods that refuse to act. Each is wrapped in a
// message that says what to do.
var (
	// ErrNotVerified: the download, a check, the durable store or the
	// export did not pass (or did not run), so the entry must not be
	// acknowledged.
	ErrNotVerified = errors.New("not every check passed")
	// ErrLeaseExpired: the lease ran out; the entry becomes due again.
	ErrLeaseExpired = errors.New("the lease has expired")
	// ErrReleased: Release was called; the token is forgotten.
	ErrReleased = errors.New("the lease was released")
	// ErrFetched: Fetch runs once per lease.
	ErrFetched = errors.New("the lease was already fetched")
	// ErrTooLarge: the listing announces more than apiclient.MaxPayloadSize;
	// such an entry is refused before claiming.
	ErrTooLarge = errors.New("listed above the Partner API's 16 MiB payload limit")
)

// ClaimOptions controls Claim.
type ClaimOptions struct {
	// PreflightExport, if set, runs before claiming: e.g. checks that the
	// directory an Export will write to is usable. Its failure is a
	// StepExport failure and no lease is spent.
	PreflightExport func() error
	// OnEvent, if set, receives Claimed or Failed, and later every event
	// of Fetch and Ack unless FetchOptions.OnEvent replaces it.
	OnEvent func(Event)
}

// FetchOptions controls Lease.Fetch.
type FetchOptions struct {
	// Progress receives the download's progress; nil: a fresh one (still
	// reachable through the Downloading event).
	Progress *apiclient.Progress
	// OnEvent, if set, replaces ClaimOptions.OnEvent for this and later
	// calls on the lease. It runs on the caller's goroutine and must
	// return quickly.
	OnEvent func(Event)
	// Export, if set, runs after the durable store, e.g. to copy the
	// verified file where the operator's processing picks it up. Its
	// failure is a StepExport failure, and the lease cannot be
	// acknowledged.
	Export func(st *spool.Stored) error
}

// Lease is one claimed entry. The claim token lives only here, in memory:
// never in the Result, a log, a file or an error. A Lease is driven by one
// goroutine (Fetch, then optionally Ack, at any time within the lease,
// e.g. after the operator inspected the stored file); Entry, ExpiresAt,
// Remaining, CorrelationID, CanAck and Release may be called from any
// goroutine.
type Lease struct {
	w        *Worker
	corr     string
	deadline time.Time     // local clock
	expires  time.Time     // the server's expiresAt
	skew     time.Duration // the server's clock minus ours, when they disagree

	mu       sync.Mutex
	claim    *apiclient.Claim // nil after Release
	staged   *spool.Staged    // until Fetch commits or aborts
	onEvent  func(Event)
	res      *Result
	fetching bool
	fetched  bool
	verified bool // download, every check, durable store and export passed
	recorded bool // the receipt is in the sidecar
}

// Claim leases entry, which must come from the mailbox listing (Select):
// its size and hash are what the download is checked against. Before
// claiming, so that no lease or attempt is spent on an entry that cannot
// succeed, it refuses a listed size above apiclient.MaxPayloadSize, stages
// a spool file and runs opts.PreflightExport.
//
// The correlation ID on ctx (apiclient.WithCorrelationID) is kept for every
// step of the lease; without one a fresh ID is used. On failure the error
// is a *StepError and the Lease is nil.
func (w *Worker) Claim(ctx context.Context, entry apiclient.Entry, opts ClaimOptions) (*Lease, error) {
	l, res := w.claim(ctx, entry, opts)
	if l == nil {
		return nil, res.Err
	}
	return l, nil
}

// claim returns the lease, or nil and the failed Result.
func (w *Worker) claim(ctx context.Context, entry apiclient.Entry, opts ClaimOptions) (*Lease, *Result) {
	corr, ok := apiclient.CorrelationIDFrom(ctx)
	if !ok {
		corr = apiclient.NewCorrelationID()
		ctx = apiclient.WithCorrelationID(ctx, corr)
	}
	l := &Lease{w: w, corr: corr, onEvent: opts.OnEvent, res: &Result{Entry: entry, CorrelationID: corr}}
	if entry.PayloadSize > apiclient.MaxPayloadSize {
		return nil, l.fail(ctx, StepClaim, fmt.Errorf("%w: the mailbox lists %d bytes, more than %d; not claimed, so no lease or attempt was spent — tell the partner's operator, with the delivery attempt ID: %w",
			ErrTooLarge, entry.PayloadSize, apiclient.MaxPayloadSize, apiclient.ErrPayloadTooLarge))
	}
	// Stage before claiming: a spool that cannot even create a file must
	// not cost the entry a lease and an attempt.
	staged, err := w.store.Begin(w.client.ConnectionID(), entry.DeliveryAttemptID)
	if err != nil {
		return nil, l.fail(ctx, StepStore, err)
	}
	if opts.PreflightExport != nil {
		if err := opts.PreflightExport(); err != nil {
			_ = staged.Abort()
			return nil, l.fail(ctx, StepExport, fmt.Errorf("%w; not claimed, so no lease or attempt was spent", err))
		}
	}
	sent := w.now()
	claim, err := w.client.Claim(ctx, entry.DeliveryAttemptID)
	if err != nil {
		_ = staged.Abort()
		return nil, l.fail(ctx, StepClaim, err)
	}
	recv := w.now()
	l.expires = claim.ExpiresAt
	if claim.ServerDate.IsZero() {
		l.deadline = sent.Add(leaseLength(sent, claim.ExpiresAt))
	} else {
		left := claim.ExpiresAt.Sub(claim.ServerDate)
		if skew := claim.ServerDate.Sub(recv); skew > skewTolerance+recv.Sub(sent) || skew < -skewTolerance-recv.Sub(sent) {
			l.skew = skew.Round(time.Second)
		}
		if left <= 0 {
			// The server's own clock says the lease is over: the token
			// is useless, and nothing may be acknowledged with it.
			_ = staged.Abort()
			return nil, l.fail(ctx, StepClaim, fmt.Errorf("%w before it began: the answer's expiresAt %s is not after the server's own time %s (its Date header)%s; the token is forgotten, nothing is downloaded or acknowledged, and the entry becomes due again — tell the partner's operator",
				ErrLeaseExpired, claim.ExpiresAt.UTC().Format(time.RFC3339), claim.ServerDate.UTC().Format(time.RFC3339), l.skewText()))
		}
		l.deadline = sent.Add(min(left, LeaseDuration))
	}
	l.res.LeaseExpiresAt = claim.ExpiresAt
	l.claim, l.staged = claim, staged
	l.done(ctx, StepClaim)
	l.emit(Claimed{Entry: entry, ExpiresAt: claim.ExpiresAt, Deadline: l.deadline, ClockSkew: l.skew})
	return l, nil
}

// leaseLength is the contract's five minutes, or less when the server's
// expiresAt, read on our clock, says so (a skewed clock ahead of the
// server's only makes it shorter, never longer).
func leaseLength(sent, expires time.Time) time.Duration {
	if d := expires.Sub(sent); d > 0 && d < LeaseDuration {
		return d
	}
	return LeaseDuration
}

// ClockSkew is how far the server's clock (its claim answer's Date
// header) is ahead of this machine's (negative: behind), when the two
// disagree by more than a few seconds; 0 when they agree or the server
// sent no Date. The lease is counted on the server's clock either way.
func (l *Lease) ClockSkew() time.Duration { return l.skew }

// skewText is a note on the clocks for messages, "" when they agree.
func (l *Lease) skewText() string {
	if l.skew == 0 {
		return ""
	}
	return "; " + SkewNote(l.skew)
}

// SkewNote says how the server's clock disagrees with this machine's,
// "" when skew is 0. Both faces show it.
func SkewNote(skew time.Duration) string {
	switch {
	case skew > 0:
		return fmt.Sprintf("the server's clock is %s ahead of this machine's", skew)
	case skew < 0:
		return fmt.Sprintf("the server's clock is %s behind this machine's", -skew)
	}
	return ""
}

// Deadline is when the lease ends on the local clock: what Remaining
// counts down to, and when work in flight on it is stopped.
func (l *Lease) Deadline() time.Time { return l.deadline }

// Entry is the listing entry the lease is for.
func (l *Lease) Entry() apiclient.Entry { return l.res.Entry }

// ExpiresAt is the server's end of the lease (its clock): for display.
func (l *Lease) ExpiresAt() time.Time { return l.expires }

// Remaining is how much of the lease is left on the local clock; 0 once
// it ran out.
func (l *Lease) Remaining() time.Duration { return max(l.deadline.Sub(l.w.now()), 0) }

// CorrelationID ties the lease's requests and log lines together.
func (l *Lease) CorrelationID() string { return l.corr }

// ctxFor attaches the lease's correlation ID unless the caller set one.
func (l *Lease) ctxFor(ctx context.Context) context.Context {
	if _, ok := apiclient.CorrelationIDFrom(ctx); ok {
		return ctx
	}
	return apiclient.WithCorrelationID(ctx, l.corr)
}

// Fetch downloads the payload into the spool with progress, verifies it
// (byte count, both SHA-256 and both size comparisons, the trailer),
// stores it durably and runs opts.Export. It runs once per lease. The
// returned Result (never nil, shared with later Ack calls) tells which
// step failed; the error is then its *StepError. Cancelling ctx stops
// the current step.
func (l *Lease) Fetch(ctx context.Context, opts FetchOptions) (*Result, error) {
	l.mu.Lock()
	switch {
	case l.claim == nil:
		l.mu.Unlock()
		return l.res, fmt.Errorf("fetch %s: %w; claim the entry again", termsafe.String(l.res.Entry.DeliveryAttemptID), ErrReleased)
	case l.fetching || l.fetched:
		l.mu.Unlock()
		return l.res, fmt.Errorf("fetch %s: %w", termsafe.String(l.res.Entry.DeliveryAttemptID), ErrFetched)
	case l.Remaining() <= 0:
		l.mu.Unlock()
		return l.res, fmt.Errorf("fetch %s: %w (at %s): nothing was downloaded; the entry becomes due again: claim it again then", termsafe.String(l.res.Entry.DeliveryAttemptID), ErrLeaseExpired, l.expiresText())
	}
	l.fetching = true
	claim, staged := l.claim, l.staged
	if opts.OnEvent != nil {
		l.onEvent = opts.OnEvent
	}
	l.mu.Unlock()

	ctx = l.ctxFor(ctx)
	// The lease bounds the work in flight: a download still running when
	// it ends is stopped (its bytes could not be acknowledged anyway).
	ctx, cancel := context.WithTimeoutCause(ctx, l.Remaining(), fmt.Errorf("%w (at %s)", ErrLeaseExpired, l.expiresText()))
	defer cancel()
	verified := l.fetch(ctx, claim, staged, opts)
	_ = staged.Abort() // no-op after a successful Commit

	l.mu.Lock()
	l.fetching, l.fetched, l.staged = false, true, nil
	l.verified = verified
	l.mu.Unlock()
	return l.res, l.res.Err
}

// fetch runs download, verify, store and export; it reports whether all
// of them passed.
func (l *Lease) fetch(ctx context.Context, claim *apiclient.Claim, staged *spool.Staged, opts FetchOptions) bool {
	w, en := l.w, l.res.Entry
	if step, err := l.download(ctx, claim, staged, opts.Progress); err != nil {
		l.fail(ctx, step, err)
		return false
	}
	stored, err := staged.Commit(spool.Meta{
		ConnectionID:      w.client.ConnectionID(),
		DeliveryAttemptID: en.DeliveryAttemptID,
		InterchangeID:     en.InterchangeID,
		MessageType:       en.MessageType,
		CreatedAt:         en.CreatedAt,
		Size:              l.res.Report.Bytes,
		SHA256:            l.res.Report.SHA256,
		ReceivedAt:        w.now(),
	})
	if err != nil {
		l.fail(ctx, StepStore, err)
		return false
	}
	l.res.Stored = stored
	l.done(ctx, StepStore)
	l.emit(Stored{Stored: stored})
	if opts.Export != nil {
		if err := opts.Export(stored); err != nil {
			l.fail(ctx, StepExport, err)
			return false
		}
		l.done(ctx, StepExport)
	}
	return true
}

// download streams into the staged file and classifies a failure: a
// write error of the spool is a storage failure, a broken stream or
// missing answer a download failure, a mismatch a verify failure.
func (l *Lease) download(ctx context.Context, claim *apiclient.Claim, staged *spool.Staged, p *apiclient.Progress) (Step, error) {
	if p == nil {
		p = &apiclient.Progress{}
	}
	l.emit(Downloading{Entry: l.res.Entry, Progress: p})
	rep, err := l.w.client.Download(ctx, claim, l.res.Entry.Expect(), staged, p)
	l.res.Report = rep
	switch {
	case staged.Err() != nil:
		return StepStore, staged.Err()
	case err == nil && (rep == nil || !rep.OK()):
		// Download's contract says this cannot happen; refuse anyway,
		// acknowledging unverified bytes is the one unforgivable bug.
		return StepVerify, errors.New("download returned no error but the report is not OK")
	case err == nil:
		l.done(ctx, StepVerify)
		l.emit(Verified{Report: rep})
		return "", nil
	case rep == nil || rep.ReadErr != nil || rep.SinkErr != nil:
		return StepDownload, err
	}
	return StepVerify, err
}

// CanAck reports whether Ack may run: nil only when the download, every
// integrity check, the durable store and the export passed, the lease was
// not released and has not run out. The error wraps ErrNotVerified,
// ErrReleased or ErrLeaseExpired and says what to do.
func (l *Lease) CanAck() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.canAckLocked()
}

func (l *Lease) canAckLocked() error {
	id := termsafe.String(l.res.Entry.DeliveryAttemptID)
	switch {
	case l.res.Acknowledged:
		return nil
	case l.claim == nil:
		return fmt.Errorf("acknowledge %s: %w: the token is forgotten; the lease expires at %s and the entry becomes due again", id, ErrReleased, l.expiresText())
	case !l.verified || l.res.Report == nil || !l.res.Report.OK() || l.res.Stored == nil:
		return fmt.Errorf("acknowledge %s: %w%s; the lease expires at %s and the entry becomes due again", id, ErrNotVerified, l.notVerifiedDetail(), l.expiresText())
	case !l.w.now().Before(l.deadline):
		return fmt.Errorf("acknowledge %s: %w (at %s); the entry becomes due again: fetch it again to acknowledge it", id, ErrLeaseExpired, l.expiresText())
	}
	return nil
}

func (l *Lease) expiresText() string { return l.expires.UTC().Format(time.RFC3339) }

// notVerifiedDetail names what did not pass, for CanAck's message.
func (l *Lease) notVerifiedDetail() string {
	switch {
	case l.fetching:
		return " yet: the fetch is still running"
	case !l.fetched:
		return ": the payload was not fetched yet"
	case l.res.FailedStep != "":
		return fmt.Sprintf(" (the %s step failed)", l.res.FailedStep)
	}
	return ""
}

// Ack acknowledges the fetched entry with the lease's token, then records
// the receipt in the spool. It refuses (ErrNotVerified, ErrReleased,
// ErrLeaseExpired; see CanAck) without a request. After an unclear network
// failure it may be called again: the same token is sent and the server
// answers the receipt again (Receipt.Replay). After a failure to record
// the receipt locally, calling it again only retries the record.
func (l *Lease) Ack(ctx context.Context) (*Result, error) {
	l.mu.Lock()
	if l.fetching {
		l.mu.Unlock()
		return l.res, fmt.Errorf("acknowledge %s: %w yet: the fetch is still running", termsafe.String(l.res.Entry.DeliveryAttemptID), ErrNotVerified)
	}
	err := l.canAckLocked()
	claim := l.claim
	acked, recorded := l.res.Acknowledged, l.recorded
	l.mu.Unlock()
	ctx = l.ctxFor(ctx)
	switch {
	case acked && recorded:
		return l.res, nil
	case acked:
		return l.record(ctx)
	case errors.Is(err, ErrLeaseExpired):
		l.fail(ctx, StepAcknowledge, err)
		return l.res, l.res.Err
	case err != nil:
		return l.res, err
	}
	rcpt, err := l.w.client.Acknowledge(ctx, claim)
	if err != nil {
		l.fail(ctx, StepAcknowledge, err)
		return l.res, l.res.Err
	}
	l.mu.Lock()
	l.res.Receipt, l.res.Acknowledged = rcpt, true
	l.res.FailedStep, l.res.Err = "", nil
	l.mu.Unlock()
	l.done(ctx, StepAcknowledge)
	l.emit(Acknowledged{Receipt: rcpt})
	return l.record(ctx)
}

// record writes the receipt into the stored file's sidecar.
func (l *Lease) record(ctx context.Context) (*Result, error) {
	rcpt := l.res.Receipt
	at := rcpt.AcknowledgedAt
	if at.IsZero() {
		at = l.w.now()
	}
	st, err := l.w.store.MarkAcknowledged(l.w.client.ConnectionID(), l.res.Entry.DeliveryAttemptID, rcpt.ReceiptID, at)
	if err != nil {
		l.fail(ctx, StepRecord, err)
		return l.res, l.res.Err
	}
	l.mu.Lock()
	l.res.Stored.Meta = st.Meta
	l.res.FailedStep, l.res.Err = "", nil
	l.recorded = true
	l.mu.Unlock()
	return l.res, nil
}

// Release forgets the token and removes a staged file that was never
// fetched. The server is not told (the contract has no release call): the
// lease runs out and the entry becomes due again, unless it was
// acknowledged. Release is idempotent and safe during Fetch (which then
// finishes, but the lease can no longer be acknowledged).
func (l *Lease) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.claim = nil
	if l.staged != nil && !l.fetching {
		_ = l.staged.Abort()
		l.staged = nil
	}
}

func (l *Lease) emit(ev Event) {
	l.mu.Lock()
	f := l.onEvent
	l.mu.Unlock()
	if f != nil {
		f(ev)
	}
}

// fail records the failed step, emits Failed and returns the result.
func (l *Lease) fail(ctx context.Context, step Step, err error) *Result {
	l.mu.Lock()
	r := l.res
	se := &StepError{Step: step, DeliveryAttemptID: r.Entry.DeliveryAttemptID, Err: err, Acknowledged: r.Acknowledged, CorrelationID: r.CorrelationID}
	if !r.Acknowledged {
		se.LeaseExpiresAt = r.LeaseExpiresAt
	}
	r.FailedStep, r.Err = step, se
	l.mu.Unlock()
	l.w.log.LogAttrs(ctx, slog.LevelWarn, "worker step failed",
		slog.String("step", string(step)),
		slog.String("connectionId", l.w.client.ConnectionID()),
		slog.String("deliveryAttemptId", r.Entry.DeliveryAttemptID),
		slog.String("correlationId", r.CorrelationID),
		slog.Bool("acknowledged", r.Acknowledged))
	l.emit(Failed{Step: step, Err: se})
	return r
}

func (l *Lease) done(ctx context.Context, step Step) {
	l.w.log.LogAttrs(ctx, slog.LevelDebug, "worker step done",
		slog.String("step", string(step)),
		slog.String("connectionId", l.w.client.ConnectionID()),
		slog.String("deliveryAttemptId", l.res.Entry.DeliveryAttemptID),
		slog.String("correlationId", l.res.CorrelationID))
}
