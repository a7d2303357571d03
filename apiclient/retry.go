package apiclient

import (
	"context"
	"errors"
	"time"
)

// defaultSchedule is the contract's retry schedule (seed 000); an array so
// nobody can change it, handed out as a copy by DefaultSchedule.
var defaultSchedule = [...]time.Duration{0, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}

// DefaultSchedule returns a copy of the contract's retry schedule: the
// delay before each attempt. The first attempt runs immediately, then 30 s,
// 2 min, 10 min, 1 h, 6 h and 24 h later — seven attempts in all, after
// which the operation gives up (seed 000: "after 7 failed attempts").
func DefaultSchedule() []time.Duration {
	s := defaultSchedule
	return s[:]
}

// MaxRetryAfter is the longest Retry-After the client waits for: the
// contract schedule's longest delay. A server asking for more is not
// waited for: the call fails at once and says when to try again.
const MaxRetryAfter = 24 * time.Hour

// LeaseMargin is how much of a claim's lease must be left after a retry's
// wait: time for the request itself (a 16 MiB payload, an acknowledge
// over a slow link). A retry that needs the claim token is not scheduled
// when now + wait + LeaseMargin passes the claim's ExpiresAt. ExpiresAt is
// the server's time and now is Config.Now, so the margin also absorbs a
// small clock difference.
const LeaseMargin = 30 * time.Second

// ErrLeaseTooShort matches a retry of a payload read or an acknowledge
// that was not scheduled because the claim's lease would run out first.
// Nothing was acknowledged; the entry becomes due again when the lease
// ends. The error also wraps the failure that would have been retried.
var ErrLeaseTooShort = errors.New("the claim's lease ends before the next attempt")

// ErrRetryTooLong matches a call that stopped instead of retrying because
// the wait would pass the context's deadline or the server's Retry-After
// exceeds MaxRetryAfter. It also wraps the failure that would have been
// retried (and context.DeadlineExceeded for the deadline case).
var ErrRetryTooLong = errors.New("the next attempt would come too late")

// RetryRefusedError is a retry that was not scheduled (it matches
// ErrRetryTooLong or ErrLeaseTooShort, and wraps the failure that would
// have been retried). Refusal is the sentence both faces show: what the
// wait was and when to try again.
type RetryRefusedError struct {
	Op string
	// Why says why there is no retry, e.g. "the server asks to wait 48h0m0s
	// (Retry-After), longer than the 24h0m0s the client waits; try again
	// after 2026-12-03T23:29:29Z".
	Why string
	// Wait is the wait that was refused; NextAt when the attempt would
	// have been (the server's Retry-After says to try again then).
	Wait   time.Duration
	NextAt time.Time
	errs   []error // the sentinels, then the failure
}

// Error is the CLI's text: "op: not retrying: why: sentinel: failure".
func (e *RetryRefusedError) Error() string {
	s := e.Op + ": " + e.Refusal()
	for _, err := range e.errs {
		s += ": " + err.Error()
	}
	return s
}

// Refusal is "not retrying: " + Why.
func (e *RetryRefusedError) Refusal() string { return "not retrying: " + e.Why }

// Unwrap gives the sentinels and the failure.
func (e *RetryRefusedError) Unwrap() []error { return e.errs }

// RetryPolicy controls retries of transient failures (network errors where
// repeating is safe, 503, 429). 4xx answers are never retried.
//
// The wait before a retry is the server's Retry-After when the answer has
// one (shorter or longer than the schedule, at most MaxRetryAfter), else
// the schedule's delay. A retry is not scheduled when its wait would pass
// the context's deadline (ErrRetryTooLong) or, for calls carrying a claim
// token, the lease (ErrLeaseTooShort): the call fails at once instead.
type RetryPolicy struct {
	// Schedule is the delay before attempt i+1 (Schedule[0] is normally
	// 0). nil or empty → DefaultSchedule(). When attempts outnumber entries
	// the last delay repeats. New copies it.
	Schedule []time.Duration
	// MaxAttempts is the total number of attempts including the first.
	// 0 → len(Schedule); 1 disables retries.
	MaxAttempts int
	// Notify, if set, is called before each wait so a UI can show the next
	// attempt time and offer "retry now" (WithRetryNow) or "give up"
	// (cancel the context). It runs on the caller's goroutine. A
	// notifier on the call's context (WithRetryNotify) replaces it for
	// that call.
	Notify func(RetryEvent)
}

// RetryEvent describes one scheduled retry.
type RetryEvent struct {
	Op            string        // operation, e.g. "claim"
	Attempt       int           // the attempt that just failed, from 1
	Err           error         // why it failed
	NextAt        time.Time     // when the next attempt starts
	Wait          time.Duration // how long until then
	CorrelationID string        // the operation's correlation ID
	// DeliveryAttemptID is the entry the call is about ("" for list and
	// upload); raw server text, sanitise before display.
	DeliveryAttemptID string
	// FromRetryAfter is true when Wait is the server's Retry-After rather
	// than the contract schedule.
	FromRetryAfter bool
	// LeaseExpiresAt is the claim's lease end for calls that carry the
	// claim token (payload, acknowledge); zero otherwise. The retry was
	// scheduled because it fits before it (with LeaseMargin).
	LeaseExpiresAt time.Time
}

type retryNowKey struct{}

// WithRetryNow returns a context whose retry waits end early whenever a
// value is received from ch ("retry now"). Cancel the context to give up.
func WithRetryNow(ctx context.Context, ch <-chan struct{}) context.Context {
	return context.WithValue(ctx, retryNowKey{}, ch)
}

type retryNotifyKey struct{}

// WithRetryNotify returns a context whose calls report each scheduled
// retry to fn, so a countdown lands on the job that owns the call. For
// calls on this context fn replaces the Client's RetryPolicy.Notify (which
// still serves calls without one); the innermost WithRetryNotify wins. fn
// runs on the caller's goroutine before the wait. A nil fn silences the
// Client's Notify for these calls.
func WithRetryNotify(ctx context.Context, fn func(RetryEvent)) context.Context {
	return context.WithValue(ctx, retryNotifyKey{}, notifyFunc{fn})
}

// notifyFunc wraps the callback so a nil fn is still "set".
type notifyFunc struct{ fn func(RetryEvent) }

// notifierFor picks the context's notifier, else the policy's.
func notifierFor(ctx context.Context, pol RetryPolicy) func(RetryEvent) {
	if n, ok := ctx.Value(retryNotifyKey{}).(notifyFunc); ok {
		return n.fn
	}
	return pol.Notify
}
