//go:build unix

package edi

import "syscall"

// oNonblock opens a regular file that may have been swapped for a FIFO
// since it was looked at without waiting for a writer.
const oNonblock = syscall.O_NONBLOCK
