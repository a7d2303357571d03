//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package spool

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockConn takes the connection's exclusive flock and returns its release.
// The lock guards only short, local critical sections (the existence check
// plus rename of a commit, the read-decide-append of a key reservation);
// it is never held across network calls or prompts. flock is released by
// the kernel when the process dies, so a crash never leaves it stuck.
func (s *Store) lockConn(connectionID string) (func(), error) {
	dir := s.connDir(connectionID)
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return nil, fmt.Errorf("spool: create %s: %w", dir, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, filePerm)
	if err != nil {
		return nil, fmt.Errorf("spool: open lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("spool: lock %s: %w", f.Name(), err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
