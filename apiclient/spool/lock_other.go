//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package spool

import (
	"fmt"
	"os"
)

// lockConn has no cross-process lock on this platform: it only ensures the
// directory exists. Commits stay crash-safe (temp, fsync, rename) and the
// server's idempotency check still refuses a key reused for other bytes
// (409); only the race of two simultaneous b2bx processes numbering the
// same sender and business id is unguarded here.
func (s *Store) lockConn(connectionID string) (func(), error) {
	dir := s.connDir(connectionID)
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return nil, fmt.Errorf("spool: create %s: %w", dir, err)
	}
	return func() {}, nil
}
