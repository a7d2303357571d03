//go:build unix

package edi

import "syscall"

// cpuTime returns the process's user+system CPU time in nanoseconds: on a
// shared machine it measures the work, where wall time also counts waiting.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
