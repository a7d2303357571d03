package webhook

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver ("sqlite")

	"github.com/nutrab2b/b2bx/apiclient/events"
)

// State file and retention.
const (
	// StateFile is the receiver's state in the capture directory: every
	// idempotency key with its original result for the retention, every
	// stream for good. It is derived from the captures: delete it and
	// the next start rebuilds it from them.
	StateFile = "state.db"
	// DefaultRetention is how long a key is kept from when it was first
	// seen: longer than the delivery rules' retry schedule (immediately,
	// 30 s, 2 min, 10 min, 1 h, 6 h, 24 h: about 31 hours).
	DefaultRetention = 48 * time.Hour
	// MinRetention is the shortest retention accepted: the retry
	// schedule's length.
	MinRetention = 32 * time.Hour
	// expireBatch bounds the rows one Apply deletes (expiry is spread
	// over the batches, never one long stall).
	expireBatch = 2000
	stateSchema = 1
)

// ErrStateFile matches a state file that cannot be used.
var ErrStateFile = errors.New("receiver state file")

// State is an events.StateStore in SQLite (WAL, synchronous NORMAL: the
// captures are the durable copy; a power cut may lose the last batches
// of state, which a restart replays from the captures after Last).
// Memory is bounded by SQLite's page cache.
type State struct {
	db        *sql.DB
	retention time.Duration
	get       *sql.Stmt
	// expired is when expiry last ran: at most once a second, so that a
	// busy receiver's batches do not each pay for it.
	expired time.Time
}

// OpenState opens (creating it) the state file at path; keys and ids
// older than retention (DefaultRetention when 0) are forgotten.
func OpenState(path string, retention time.Duration) (*State, error) {
	if retention <= 0 {
		retention = DefaultRetention
	}
	if err := privateFile(path); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStateFile, err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "cache_size(-16384)") // 16 MiB of pages
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStateFile, err)
	}
	db.SetMaxOpenConns(1)
	s := &State{db: db, retention: retention}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, err
	}
	if s.get, err = db.Prepare(`SELECT v FROM kv WHERE kind = ? AND k = ?`); err != nil {
		db.Close()
		return nil, fmt.Errorf("%w: %w", ErrStateFile, err)
	}
	return s, nil
}

// privateFile makes the state file readable by its owner only, like the
// captures it indexes (0600): created empty with that mode when missing
// (SQLite gives its -wal and -shm files the database file's mode), its
// mode narrowed when an older b2bx left it wider. A symlink or anything
// but a regular file is refused.
func privateFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600) // O_EXCL: never through a link
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, os.ErrExist) {
		return err
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s): move it away", path, fi.Mode().Type())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return os.Chmod(path, 0o600)
	}
	return nil
}

func (s *State) migrate() error {
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS kv (kind INTEGER NOT NULL, k TEXT NOT NULL, v BLOB NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (kind, k)) WITHOUT ROWID`,
		`CREATE INDEX IF NOT EXISTS kv_at ON kv (kind, at)`,
		`CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)`,
	}
	for _, q := range stmts {
		if _, err := s.db.Exec(q); err != nil {
			return fmt.Errorf("%w: %w", ErrStateFile, err)
		}
	}
	var v string
	switch err := s.db.QueryRow(`SELECT v FROM meta WHERE k = 'schema'`).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
		_, err = s.db.Exec(`INSERT INTO meta (k, v) VALUES ('schema', ?)`, fmt.Sprint(stateSchema))
		if err != nil {
			return fmt.Errorf("%w: %w", ErrStateFile, err)
		}
	case err != nil:
		return fmt.Errorf("%w: %w", ErrStateFile, err)
	case v != fmt.Sprint(stateSchema):
		return fmt.Errorf("%w: schema %s, this b2bx reads %d", ErrStateFile, v, stateSchema)
	}
	return nil
}

// Close closes the state file.
func (s *State) Close() error { return s.db.Close() }

// Get implements events.StateStore.
func (s *State) Get(kind events.StateKind, key string) ([]byte, bool, error) {
	var v []byte
	err := s.get.QueryRow(int(kind), key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// Apply implements events.StateStore: the entries and counters in one
// transaction, and the oldest expired keys and ids deleted.
func (s *State) Apply(entries []events.StateEntry, meta events.StateMeta, now time.Time) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	put, err := tx.Prepare(`INSERT INTO kv (kind, k, v, at) VALUES (?, ?, ?, ?) ON CONFLICT (kind, k) DO UPDATE SET v = excluded.v`)
	if err != nil {
		return err
	}
	defer put.Close()
	del, err := tx.Prepare(`DELETE FROM kv WHERE kind = ? AND k = ?`)
	if err != nil {
		return err
	}
	defer del.Close()
	for _, e := range entries {
		if e.Value == nil {
			_, err = del.Exec(int(e.Kind), e.Key)
		} else {
			_, err = put.Exec(int(e.Kind), e.Key, e.Value, e.At)
		}
		if err != nil {
			return err
		}
	}
	m, _ := json.Marshal(meta)
	if _, err := tx.Exec(`INSERT INTO meta (k, v) VALUES ('receiver', ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, string(m)); err != nil {
		return err
	}
	cutoff := now.Add(-s.retention).Unix()
	for _, kind := range []events.StateKind{events.StateKey, events.StateID} {
		if now.IsZero() || now.Sub(s.expired) < time.Second {
			break
		}
		if _, err := tx.Exec(`DELETE FROM kv WHERE kind = ?1 AND k IN (SELECT k FROM kv WHERE kind = ?1 AND at < ?2 LIMIT ?3)`, int(kind), cutoff, expireBatch); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if !now.IsZero() && now.Sub(s.expired) >= time.Second {
		s.expired = now
	}
	return nil
}

// Meta implements events.StateStore.
func (s *State) Meta() (events.StateMeta, error) {
	var m events.StateMeta
	var v string
	err := s.db.QueryRow(`SELECT v FROM meta WHERE k = 'receiver'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return m, nil
	}
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal([]byte(v), &m); err != nil {
		return m, fmt.Errorf("%w: the counters: %w", ErrStateFile, err)
	}
	return m, nil
}

// Each implements events.StateStore.
func (s *State) Each(kind events.StateKind, fn func(string, []byte) error) error {
	rows, err := s.db.Query(`SELECT k, v FROM kv WHERE kind = ?`, int(kind))
	if err != nil {
		return err
	}
	defer rows.Close()
	var all [][2][]byte // the one connection is busy while rows are open: read, then call fn
	for rows.Next() {
		var k string
		var v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		all = append(all, [2][]byte{[]byte(k), v})
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	for _, kv := range all {
		if err := fn(string(kv[0]), kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// Count implements events.StateStore.
func (s *State) Count(kind events.StateKind) (int, error) {
	var n int
	err := s.db.QueryRow(`SELECT count(*) FROM kv WHERE kind = ?`, int(kind)).Scan(&n)
	return n, err
}

// openStateIn opens dir's state file; one that cannot be used is moved
// aside (NAME.broken-TIME) and a new one rebuilt from the captures.
func openStateIn(dir string, retention time.Duration) (*State, bool, string, error) {
	path := dir + string(os.PathSeparator) + StateFile
	_, statErr := os.Stat(path)
	fresh := errors.Is(statErr, os.ErrNotExist)
	st, err := OpenState(path, retention)
	if err == nil {
		if _, err = st.Meta(); err == nil {
			return st, fresh, "", nil
		}
		st.Close()
	}
	aside := fmt.Sprintf("%s.broken-%s", path, time.Now().UTC().Format("20060102T150405"))
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Rename(path+suffix, aside+suffix)
	}
	st, err2 := OpenState(path, retention)
	if err2 != nil {
		return nil, false, "", fmt.Errorf("%w: %w (and a new one: %w)", ErrStateFile, err, err2)
	}
	return st, true, fmt.Sprintf("the state file could not be read (%v): moved it to %s and rebuilt it from the captures", err, aside), nil
}
