// Package fakeclock is the one manually driven clock of the tests: time
// stands still until Advance, Set or After moves it. The simulator's
// FakeClock, a tab's clock, the client's retry waits and a lease's
// countdown all use it, so a test reads the same on every layer.
package fakeclock

import (
	"sync"
	"time"
)

// Start is where a clock made with a zero time stands, so test output
// is stable.
var Start = time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC)

// Clock is a fake clock, safe for concurrent use. The zero value stands
// at the zero time; New starts it somewhere.
type Clock struct {
	mu    sync.Mutex
	t     time.Time
	waits []time.Duration
}

// New returns a Clock showing t, or Start when t is zero.
func New(t time.Time) *Clock {
	if t.IsZero() {
		t = Start
	}
	return &Clock{t: t}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock by d (a negative d moves it back, which tests
// use to probe edge cases).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Set jumps the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// After is a wait that passes at once: it records d (see Waits), moves
// the clock by d, so whoever reads Now after the wait sees the time
// passed, and returns a channel that already holds the new time.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.t = c.t.Add(d)
	now := c.t
	c.mu.Unlock()
	ch := make(chan time.Time, 1)
	ch <- now
	return ch
}

// Waits returns a copy of every duration After was asked for, in order.
func (c *Clock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}
