//go:build !unix

package orders

import "time"

// cpuTime is not measured here: the cpu-ms/op metric reads 0.
func cpuTime() time.Duration { return 0 }
