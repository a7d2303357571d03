//go:build unix

package orders

import (
	"syscall"
	"time"
)

// cpuTime is the process's user plus system time so far (every thread:
// the parse's goroutines and the garbage collector count).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
