package partnersim

import (
	"time"

	"github.com/nutrab2b/b2bx/internal/fakeclock"
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
// Advance or Set moves it. It is the tests' one fake clock,
// [fakeclock.Clock]; it is safe for concurrent use.
type FakeClock = fakeclock.Clock

// NewFakeClock returns a FakeClock showing t. A zero t starts at
// 2025-06-02T08:00:00Z (fakeclock.Start) so that test output is stable.
func NewFakeClock(t time.Time) *FakeClock { return fakeclock.New(t) }
