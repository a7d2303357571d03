package track

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
)

// SchemaName marks a database as b2bx's tracking index; a database
// without it (another program's file at our path) is foreign and rebuilt.
const SchemaName = "b2bx-track"

// busyTimeout is how long a statement waits for another process's write
// transaction before failing: far above any one batch (batches are kept
// small so a rebuild never holds the lock for long), so two b2bx
// processes never see "database is locked".
const busyTimeout = 30 * time.Second

// migrations bring a database from version i to i+1 (migrations[i]); the
// schema version is len(migrations). The index is derived data, so a
// migration that cannot carry rows over may simply empty them (a sync
// refills). The DDL uses types both SQLite and PostgreSQL accept; only
// "INTEGER PRIMARY KEY" would be "BIGSERIAL PRIMARY KEY" there.
var migrations = [][]string{
	{ // 0 → 1: the first schema
		`CREATE TABLE track_sources (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, conn TEXT NOT NULL, size BIGINT NOT NULL, mtime BIGINT NOT NULL)`,
		`CREATE TABLE track_items (id INTEGER PRIMARY KEY AUTOINCREMENT, source BIGINT NOT NULL, conn TEXT NOT NULL, kind TEXT NOT NULL, ref TEXT NOT NULL,
			type TEXT NOT NULL, at BIGINT NOT NULL, state TEXT NOT NULL, status TEXT NOT NULL, note TEXT NOT NULL, detail TEXT NOT NULL, convs TEXT NOT NULL)`,
		`CREATE INDEX track_items_source ON track_items (source)`,
		`CREATE INDEX track_items_kind ON track_items (kind, at)`,
		// the keys are one b-tree ordered by value and time (no rowid, no
		// second index): a lookup walks it newest first. Keys of a
		// replaced item are left behind (items ids are never reused, the
		// join drops them) and swept in bulk (sweepOrphans).
		`CREATE TABLE track_keys (value TEXT NOT NULL, at BIGINT NOT NULL, item BIGINT NOT NULL, kind TEXT NOT NULL,
			PRIMARY KEY (value, at, item, kind)) WITHOUT ROWID`,
	},
	{ // 1 → 2: a wide delivery is a head and parts (see wideConvs); type: queries walk an index;
		// details carry the upload's server time and the parties the linking needs (issue 23).
		// The rows of version 1 held such a delivery as one item: they are emptied and the
		// next sync rebuilds (no "built" mark).
		`DELETE FROM track_keys`,
		`DELETE FROM track_items`,
		`DELETE FROM track_sources`,
		`DELETE FROM track_meta WHERE name IN ('built', 'orphans') OR name >= 'dirsig:' AND name < 'dirsig;'`,
		`ALTER TABLE track_items ADD COLUMN part BIGINT NOT NULL DEFAULT 0`,
		`CREATE INDEX track_items_type ON track_items (type, at)`,
	},
	{ // 2 → 3: who stored or sent an item (a team store's items say "by alice on host-3");
		// the rows are kept, local items have no author
		`ALTER TABLE track_items ADD COLUMN who TEXT NOT NULL DEFAULT ''`,
	},
	{ // 3 → 4: what changed since a verdict was kept (verdicts.go): items are never
		// updated, their ids never reused, so the items added since are those of
		// higher ids, and a removed item's conversations are logged here
		`CREATE TABLE track_gone (seq INTEGER PRIMARY KEY AUTOINCREMENT, conn TEXT NOT NULL, convs TEXT NOT NULL)`,
		`CREATE TRIGGER track_items_gone AFTER DELETE ON track_items BEGIN
			INSERT INTO track_gone (conn, convs) VALUES (OLD.conn, OLD.convs); END`,
	},
}

// cacheKiB is each connection's page cache.
const cacheKiB = 32 << 10

// keysPerItem bounds the keys of one item: a hostile file cannot flood
// the index.
const keysPerItem = 4096

// orphanSweep is how many left-behind keys trigger a sweep.
const orphanSweep = 20000

// SchemaVersion is the version this b2bx writes.
var SchemaVersion = len(migrations)

// Errors the index tells apart with errors.Is.
var (
	// ErrCorrupt: the database file is damaged or not a database.
	ErrCorrupt = errors.New("track: the index database is damaged")
	// ErrForeign: the file is a database, but not b2bx's index, or of a
	// schema version this b2bx does not know.
	ErrForeign = errors.New("track: the index database has another schema")
	// ErrFull: the disk (or quota) is full.
	ErrFull = errors.New("track: no space left for the index")
	// ErrBusy: another process held the database longer than the wait.
	ErrBusy = errors.New("track: another process is writing the index")
)

// classify maps SQLite's result codes to the errors above.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 11, 26: // SQLITE_CORRUPT, SQLITE_NOTADB
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		case 13: // SQLITE_FULL
			return fmt.Errorf("%w: %w", ErrFull, err)
		case 5: // SQLITE_BUSY
			return fmt.Errorf("%w: %w", ErrBusy, err)
		}
	}
	if strings.Contains(err.Error(), "no space left on device") {
		return fmt.Errorf("%w: %w", ErrFull, err)
	}
	return err
}

// SQLite is the Backend on an SQLite file.
type SQLite struct {
	sqlStore
}

// sqlStore is the SQL both engines share (the queries of a Backend, with
// ? placeholders rebound to $n for PostgreSQL).
type sqlStore struct {
	db *sql.DB
	pg bool // PostgreSQL: $n placeholders, text made valid UTF-8 without NUL

	statsMu sync.Mutex
	stats   QueryStats
}

// bind rewrites q's ? placeholders for the engine (no query here holds a
// literal '?').
func (s *sqlStore) bind(q string) string {
	if !s.pg {
		return q
	}
	return rebind(q)
}

// args makes text parameters storable for the engine.
func (s *sqlStore) args(a []any) []any {
	if !s.pg {
		return a
	}
	return pgArgs(a)
}

func (s *sqlStore) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return s.db.QueryContext(ctx, s.bind(q), s.args(args)...)
}

func (s *sqlStore) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return s.db.QueryRowContext(ctx, s.bind(q), s.args(args)...)
}

func (s *sqlStore) begin(ctx context.Context) (*sqlTx, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &sqlTx{Tx: tx, s: s}, nil
}

// sqlTx is a transaction whose statements are bound for the engine.
type sqlTx struct {
	*sql.Tx
	s *sqlStore
}

func (t *sqlTx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return t.ExecContext(ctx, t.s.bind(q), t.s.args(args)...)
}

func (t *sqlTx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.QueryContext(ctx, t.s.bind(q), t.s.args(args)...)
}

func (t *sqlTx) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return t.QueryRowContext(ctx, t.s.bind(q), t.s.args(args)...)
}

// QueryStats count the work of the queries so far: statements on the key
// b-tree, statements reading items, item rows decoded. Tests bound a
// query's work by its answer with them (a timing would be flaky).
type QueryStats struct {
	KeyQueries, ItemQueries, ItemsRead int
	SourcesRead                        int // rows of Sources: what a sync compares with the files
}

// Stats returns the counts so far.
func (s *sqlStore) Stats() QueryStats {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	return s.stats
}

func (s *sqlStore) count(f *int, n ...int) {
	s.statsMu.Lock()
	if len(n) == 0 {
		*f++
	} else {
		*f += n[0]
	}
	s.statsMu.Unlock()
}

// OpenSQLite opens (creating) the database at path in WAL mode with a
// busy timeout, and brings its schema to SchemaVersion. It fails with
// ErrCorrupt or ErrForeign when the file is not a usable index; the caller
// (Open) moves such a file aside and starts afresh.
func OpenSQLite(ctx context.Context, path string) (*SQLite, error) {
	return openSQLite(ctx, "file:"+path, busyTimeout, 4)
}

// OpenSQLiteWait is OpenSQLite whose statements wait at most wait for
// another process's write (a query's bounded wait; see QueryWait).
func OpenSQLiteWait(ctx context.Context, path string, wait time.Duration) (*SQLite, error) {
	return openSQLite(ctx, "file:"+path, wait, 4)
}

// OpenMemory is an index in memory (the answer when the file cannot be
// used: see OpenQuery). One connection: each has its own memory database.
func OpenMemory(ctx context.Context) (*SQLite, error) {
	return openSQLite(ctx, "file::memory:", busyTimeout, 1)
}

func openSQLite(ctx context.Context, name string, wait time.Duration, conns int) (*SQLite, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(int(wait/time.Millisecond))+")")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)") // derived data: a power cut may lose the last batch, a sync redoes it
	q.Add("_pragma", "foreign_keys(OFF)")
	// a rebuild of 100,000 deliveries touches more b-tree pages than
	// SQLite's default cache (2 MB) holds, and slows down as it grows
	q.Add("_pragma", "cache_size(-"+strconv.Itoa(cacheKiB)+")")
	q.Set("_txlock", "immediate") // take the write lock at BEGIN: no deadlock upgrading a read
	db, err := sql.Open("sqlite", name+"?"+q.Encode())
	if err != nil {
		return nil, classify(err)
	}
	db.SetMaxOpenConns(conns)
	if conns == 1 {
		db.SetConnMaxLifetime(0)
		db.SetMaxIdleConns(1) // the one connection is the database: never closed while open
	}
	s := &SQLite{sqlStore{db: db}}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// querier is a database or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// schemaVersion reads the schema marker and version: 0 for an empty
// database, ErrForeign or ErrCorrupt for a file that is not our index.
func schemaVersion(ctx context.Context, q querier) (int, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'`).Scan(&n); err != nil {
		return 0, classify(err)
	}
	if n == 0 {
		return 0, nil
	}
	var name, v string
	err := q.QueryRowContext(ctx, `SELECT value FROM track_meta WHERE name = ?`, "schema").Scan(&name)
	if err == nil {
		err = q.QueryRowContext(ctx, `SELECT value FROM track_meta WHERE name = ?`, "version").Scan(&v)
	}
	if err != nil {
		if c := classify(err); errors.Is(c, ErrCorrupt) || errors.Is(c, ErrBusy) {
			return 0, c
		}
		return 0, fmt.Errorf("%w: no b2bx schema marker (%v)", ErrForeign, err)
	}
	if name != SchemaName {
		return 0, fmt.Errorf("%w: schema %q", ErrForeign, name)
	}
	version, err := strconv.Atoi(v)
	if err != nil || version < 1 || version > SchemaVersion {
		return 0, fmt.Errorf("%w: version %q (this b2bx writes %d)", ErrForeign, v, SchemaVersion)
	}
	return version, nil
}

// migrate checks the schema marker and version and applies the missing
// migrations in one transaction. An index of the current version is only
// read (no write lock is taken to open it).
func (s *SQLite) migrate(ctx context.Context) error {
	if v, err := schemaVersion(ctx, s.db); err != nil || v == SchemaVersion {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback()
	version, err := schemaVersion(ctx, tx) // again: another process may have migrated meanwhile
	if err != nil {
		return err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'`).Scan(&n); err != nil {
		return classify(err)
	}
	if n == 0 {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE track_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`); err != nil {
			return classify(err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO track_meta (name, value) VALUES (?, ?), (?, ?)`, "schema", SchemaName, "version", "0"); err != nil {
			return classify(err)
		}
	}
	if version == SchemaVersion {
		return nil
	}
	for _, m := range migrations[version:] {
		for _, stmt := range m {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return classify(fmt.Errorf("track: migrate to version %d: %w", SchemaVersion, err))
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE track_meta SET value = ? WHERE name = ?`, strconv.Itoa(SchemaVersion), "version"); err != nil {
		return classify(err)
	}
	return classify(tx.Commit())
}

// Close closes the database.
func (s *SQLite) Close() error { return s.db.Close() }

// Busy says whether another process holds the write lock now (asked
// without waiting).
func (s *SQLite) Busy(ctx context.Context) bool {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return false
	}
	defer c.Close()
	var wait int
	if c.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&wait) != nil {
		return false
	}
	if _, err := c.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
		return false
	}
	defer c.ExecContext(context.WithoutCancel(ctx), `PRAGMA busy_timeout = `+strconv.Itoa(wait))
	if _, err := c.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return errors.Is(classify(err), ErrBusy)
	}
	_, _ = c.ExecContext(ctx, `ROLLBACK`)
	return false
}

// Meta implements Backend.
func (s *sqlStore) Meta(ctx context.Context, name string) (string, error) {
	var v string
	err := s.queryRow(ctx, `SELECT value FROM track_meta WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, classify(err)
}

// SetMeta implements Backend.
func (s *sqlStore) SetMeta(ctx context.Context, name, value string) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback()
	if _, err := tx.exec(ctx, `DELETE FROM track_meta WHERE name = ?`, name); err != nil {
		return classify(err)
	}
	if _, err := tx.exec(ctx, `INSERT INTO track_meta (name, value) VALUES (?, ?)`, name, value); err != nil {
		return classify(err)
	}
	return classify(tx.Commit())
}

// Metas implements Backend.
func (s *sqlStore) Metas(ctx context.Context, prefix string) (map[string]string, error) {
	rows, err := s.query(ctx, `SELECT name, value FROM track_meta WHERE name >= ? AND name < ?`, prefix, prefix+"\U0010FFFF")
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var n, v string
		if err := rows.Scan(&n, &v); err != nil {
			return nil, classify(err)
		}
		out[n] = v
	}
	return out, classify(rows.Err())
}

// Reset implements Backend.
func (s *sqlStore) Reset(ctx context.Context) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback()
	tables := []string{"track_keys", "track_items", "track_sources"}
	if !s.pg {
		tables = append(tables, "track_gone") // after the items, whose removal it logs
	}
	for _, t := range tables {
		if _, err := tx.exec(ctx, `DELETE FROM `+t); err != nil {
			return classify(err)
		}
	}
	// the schema marker and the root numbering (paths are stored relative
	// to numbered roots) stay
	if _, err := tx.exec(ctx, `DELETE FROM track_meta WHERE name NOT IN (?, ?) AND (name < ? OR name >= ?)`, "schema", "version", rootPrefix, rootPrefix+"\U0010FFFF"); err != nil {
		return classify(err)
	}
	return classify(tx.Commit())
}

// Counts implements Backend.
func (s *sqlStore) Counts(ctx context.Context) (sources, items, keys int64, err error) {
	err = s.queryRow(ctx, `SELECT (SELECT COUNT(*) FROM track_sources WHERE size >= 0), (SELECT COUNT(*) FROM track_items), (SELECT COUNT(*) FROM track_keys)`).
		Scan(&sources, &items, &keys)
	return sources, items, keys, classify(err)
}
