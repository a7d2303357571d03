//go:build !unix

package viewer

import "time"

// cpuTime is not measured here; the benchmark then reports no CPU time.
func cpuTime() time.Duration { return 0 }
