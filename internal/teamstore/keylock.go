package teamstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync"
	"time"
)

// keyLockWait bounds how long a key plan waits for a colleague's upload on
// the same connection to record its key.
var keyLockWait = 30 * time.Second

// keyLock is the team-wide lock of one connection's key plans: a
// PostgreSQL session advisory lock on a connection of its own, taken on
// the first read of the team's upload history for a key decision and
// held until the key reserved is in the team store (ReleaseKeys, or
// Close). Two machines planning the same order at once thus pick :1 and
// :2, never the same key.
type keyLock struct {
	mu    sync.Mutex
	conn  *sql.Conn
	names map[string]bool
}

func keyLockName(conn string) string { return "keyplan\x1f" + conn }

// lockKeys takes the key-plan lock of conn (once per Store and conn).
func (s *Store) lockKeys(ctx context.Context, conn string) error {
	s.keys.mu.Lock()
	defer s.keys.mu.Unlock()
	if s.keys.names[conn] {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, keyLockWait)
	defer cancel()
	if s.keys.conn == nil {
		c, err := s.db.Conn(ctx)
		if err != nil {
			return s.wrap(err)
		}
		s.keys.conn, s.keys.names = c, map[string]bool{}
	}
	if _, err := s.keys.conn.ExecContext(ctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, t(keyLockName(conn))); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("a colleague's upload on this connection held the team's key plan for more than %s; try again: %w", keyLockWait, err)
		}
		s.dropKeyConn()
		return s.wrap(err)
	}
	s.keys.names[conn] = true
	return nil
}

// ReleaseKeys lets the next machine plan keys: call it once the key
// reserved is in the team store (pushed), or when no upload follows.
// Close releases too.
func (s *Store) ReleaseKeys() {
	s.keys.mu.Lock()
	defer s.keys.mu.Unlock()
	if s.keys.conn == nil {
		return
	}
	ctx, cancel := ctxOp(context.Background())
	defer cancel()
	if _, err := s.keys.conn.ExecContext(ctx, `SELECT pg_advisory_unlock_all()`); err != nil {
		s.dropKeyConn() // a session we cannot unlock is not given back to the pool
		return
	}
	_ = s.keys.conn.Close()
	s.keys.conn, s.keys.names = nil, nil
}

// releaseKey lets the next machine plan keys on conn alone (the app holds
// the locks of several connections' tabs on one Store); ReleaseKeys
// releases all. Releasing a lock not held does nothing.
func (s *Store) releaseKey(conn string) {
	s.keys.mu.Lock()
	defer s.keys.mu.Unlock()
	if s.keys.conn == nil || !s.keys.names[conn] {
		return
	}
	ctx, cancel := ctxOp(context.Background())
	defer cancel()
	if _, err := s.keys.conn.ExecContext(ctx, `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, t(keyLockName(conn))); err != nil {
		s.dropKeyConn() // its session ends, and with it every lock it held
		return
	}
	delete(s.keys.names, conn)
	if len(s.keys.names) == 0 {
		_ = s.keys.conn.Close()
		s.keys.conn, s.keys.names = nil, nil
	}
}

// dropKeyConn discards the lock's connection (its session, and so its
// locks, end with it). s.keys.mu is held.
func (s *Store) dropKeyConn() {
	if s.keys.conn == nil {
		return
	}
	_ = s.keys.conn.Raw(func(any) error { return driver.ErrBadConn })
	_ = s.keys.conn.Close()
	s.keys.conn, s.keys.names = nil, nil
}
