package partnersim

import (
	"sync"
	"time"
)

// Clock is the simulator's notion of "now". Leases, createdAt, receipts and
// the delay before an answer to an upload appears all use it; faults that
// slow the wire (latency, bytes per second) use real time because they
// shape what the client's network stack sees.
type Clock interface {
	Now() time.Time
}

// systemClock is the real wall clock.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// FakeClock is a manually driven [Clock] for tests: time stands still until
// Advance or Set moves it. It is safe for concurrent use.
type FakeClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewFakeClock returns a FakeClock showing t. A zero t starts at
// 2025-06-02T08:00:00Z so that test output is stable.
func NewFakeClock(t time.Time) *FakeClock {
	if t.IsZero() {
		t = time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC)
	}
	return &FakeClock{t: t}
}

// Now returns the current fake time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d (a negative d moves it back, which
// tests may use to probe edge cases).
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Set jumps the clock to t.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}
