package apiclient

import (
	"sync/atomic"
	"time"
)

// Progress is a live view of one download, updated with atomics by the
// transfer goroutine and read with Snapshot from any goroutine (a UI polls
// it on a tick; there are no per-chunk callbacks). The zero value is ready.
type Progress struct {
	bytes    atomic.Int64
	expected atomic.Int64
	startNs  atomic.Int64 // monotonic nanoseconds since clockBase; 0 = not started
	endNs    atomic.Int64 // set when done
}

// ProgressSnapshot is a consistent-enough copy of a Progress.
type ProgressSnapshot struct {
	Bytes       int64         // bytes received so far
	Expected    int64         // expected total (header, else listing); 0 if unknown
	Elapsed     time.Duration // since the body started
	BytesPerSec float64       // average rate
	Done        bool          // the download ended (successfully or not)
}

// Snapshot reads the current state.
func (p *Progress) Snapshot() ProgressSnapshot { return ProgressSnapshot{} }
