//go:build !unix

package spool

import "os"

// openFlags: without O_NONBLOCK and O_NOFOLLOW the callers' Lstat/Stat
// checks before opening are what refuses FIFOs, devices and symlinks.
func openFlags(bool) int { return os.O_RDONLY }
