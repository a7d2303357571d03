//go:build !(linux && (amd64 || arm64))

package spool

import "os"

// startWriteback is a no-op where sync_file_range is not wired up (other
// systems, 32-bit and sync_file_range2 architectures); the
// final fsync does all the work.
func startWriteback(*os.File, int64, int64) {}
