//go:build unix

package spool

import (
	"os"
	"syscall"
)

// openFlags open without blocking on a FIFO (or a device that waits for
// a peer) and, with nofollow, without following a symlink at the name.
func openFlags(nofollow bool) int {
	f := os.O_RDONLY | syscall.O_NONBLOCK
	if nofollow {
		f |= syscall.O_NOFOLLOW
	}
	return f
}
