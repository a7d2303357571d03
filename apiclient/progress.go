package apiclient

import (
	"sync/atomic"
	"time"
)

// clockBase anchors Progress times on the monotonic clock.
var clockBase = time.Now()

func monoNow() int64 { return int64(time.Since(clockBase)) + 1 } // never 0

// Progress is a live view of one download, updated with atomics by the
// transfer goroutine and read with Snapshot from any goroutine (a UI polls
// it on a tick; there are no per-chunk callbacks). The zero value is ready;
// Download resets it when it starts.
type Progress struct {
	bytes    atomic.Int64
	expected atomic.Int64
	startNs  atomic.Int64 // monoNow at start; 0 = not started
	endNs    atomic.Int64 // monoNow at the end; 0 = running
}

// ProgressSnapshot is a copy of a Progress at one moment.
type ProgressSnapshot struct {
	Bytes       int64         `json:"bytes"`       // bytes received so far
	Expected    int64         `json:"expected"`    // expected total (header, else listing); 0 if unknown
	Elapsed     time.Duration `json:"elapsed"`     // since the body started
	BytesPerSec float64       `json:"bytesPerSec"` // average rate
	Done        bool          `json:"done"`        // the download ended (successfully or not)
}

// Fraction is Bytes/Expected in [0,1], or 0 when the total is unknown.
func (s ProgressSnapshot) Fraction() float64 {
	if s.Expected <= 0 {
		return 0
	}
	return min(float64(s.Bytes)/float64(s.Expected), 1)
}

// Snapshot reads the current state; safe for concurrent use.
func (p *Progress) Snapshot() ProgressSnapshot {
	start, end := p.startNs.Load(), p.endNs.Load()
	s := ProgressSnapshot{Bytes: p.bytes.Load(), Expected: p.expected.Load(), Done: end != 0}
	if start == 0 {
		return s
	}
	if end == 0 {
		end = monoNow()
	}
	s.Elapsed = time.Duration(end - start)
	if s.Elapsed > 0 {
		s.BytesPerSec = float64(s.Bytes) / s.Elapsed.Seconds()
	}
	return s
}

func (p *Progress) start(expected int64) {
	p.endNs.Store(0)
	p.bytes.Store(0)
	p.expected.Store(max(expected, 0))
	p.startNs.Store(monoNow())
}

func (p *Progress) finish() { p.endNs.Store(monoNow()) }
