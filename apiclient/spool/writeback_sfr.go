//go:build linux && (amd64 || arm64)

package spool

import (
	"os"
	"syscall"
)

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE: start writeback of dirty
// pages in the range without waiting for it.
const syncFileRangeWrite = 2

// startWriteback asks the kernel to begin writing [off, off+n) to disk
// now, so most of a payload is already on its way while the rest still
// streams in and the final fsync has little left to do. It is only a
// hint: errors are ignored, durability still comes from fsync.
func startWriteback(f *os.File, off, n int64) {
	_, _, _ = syscall.Syscall6(syscall.SYS_SYNC_FILE_RANGE, f.Fd(), uintptr(off), uintptr(n), syncFileRangeWrite, 0, 0)
}
