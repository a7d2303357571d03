package apiclient

import (
	"context"
	"time"
)

// DefaultSchedule is the contract's retry schedule: the delay before each
// attempt. The first attempt runs immediately, then 30 s, 2 min, 10 min,
// 1 h, 6 h and 24 h later — seven attempts in all, after which the
// operation gives up (seed 000: "after 7 failed attempts").
var DefaultSchedule = []time.Duration{0, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}

// RetryPolicy controls retries of transient failures (network errors where
// repeating is safe, 503, 429). 4xx answers are never retried.
type RetryPolicy struct {
	// Schedule is the delay before attempt i+1 (Schedule[0] is normally
	// 0). nil or empty → DefaultSchedule. When attempts outnumber entries the last
	// delay repeats. A Retry-After from the server wins when it is longer.
	Schedule []time.Duration
	// MaxAttempts is the total number of attempts including the first.
	// 0 → len(Schedule); 1 disables retries.
	MaxAttempts int
	// Notify, if set, is called before each wait so a UI can show the next
	// attempt time and offer "retry now" (WithRetryNow) or "give up"
	// (cancel the context). It runs on the caller's goroutine.
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
}

type retryNowKey struct{}

// WithRetryNow returns a context whose retry waits end early whenever a
// value is received from ch ("retry now"). Cancel the context to give up.
func WithRetryNow(ctx context.Context, ch <-chan struct{}) context.Context {
	return context.WithValue(ctx, retryNowKey{}, ch)
}
