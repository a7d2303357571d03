package track

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
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
		`CREATE TABLE track_items (id INTEGER PRIMARY KEY, source BIGINT NOT NULL, conn TEXT NOT NULL, kind TEXT NOT NULL, ref TEXT NOT NULL,
			type TEXT NOT NULL, at BIGINT NOT NULL, state TEXT NOT NULL, status TEXT NOT NULL, note TEXT NOT NULL, detail TEXT NOT NULL)`,
		`CREATE INDEX track_items_source ON track_items (source)`,
		`CREATE INDEX track_items_kind ON track_items (kind, at)`,
		`CREATE TABLE track_keys (item BIGINT NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL, at BIGINT NOT NULL)`,
		`CREATE INDEX track_keys_value ON track_keys (value, at)`,
		`CREATE INDEX track_keys_item ON track_keys (item)`,
	},
}

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
		}
	}
	if strings.Contains(err.Error(), "no space left on device") {
		return fmt.Errorf("%w: %w", ErrFull, err)
	}
	return err
}

// SQLite is the Backend on an SQLite file.
type SQLite struct {
	db *sql.DB
}

// OpenSQLite opens (creating) the database at path in WAL mode with a
// busy timeout, and brings its schema to SchemaVersion. It fails with
// ErrCorrupt or ErrForeign when the file is not a usable index; the caller
// (Open) moves such a file aside and starts afresh.
func OpenSQLite(ctx context.Context, path string) (*SQLite, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(int(busyTimeout/time.Millisecond))+")")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)") // derived data: a power cut may lose the last batch, a sync redoes it
	q.Add("_pragma", "foreign_keys(OFF)")
	q.Set("_txlock", "immediate") // take the write lock at BEGIN: no deadlock upgrading a read
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, classify(err)
	}
	db.SetMaxOpenConns(4)
	s := &SQLite{db: db}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// migrate checks the schema marker and version and applies the missing
// migrations in one transaction.
func (s *SQLite) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'`).Scan(&n); err != nil {
		return classify(err)
	}
	version := 0
	if n > 0 {
		var name, v string
		err := tx.QueryRowContext(ctx, `SELECT value FROM track_meta WHERE name = ?`, "schema").Scan(&name)
		if err == nil {
			err = tx.QueryRowContext(ctx, `SELECT value FROM track_meta WHERE name = ?`, "version").Scan(&v)
		}
		if err != nil {
			if c := classify(err); errors.Is(c, ErrCorrupt) {
				return c
			}
			return fmt.Errorf("%w: no b2bx schema marker (%v)", ErrForeign, err)
		}
		if name != SchemaName {
			return fmt.Errorf("%w: schema %q", ErrForeign, name)
		}
		if version, err = strconv.Atoi(v); err != nil || version < 1 || version > SchemaVersion {
			return fmt.Errorf("%w: version %q (this b2bx writes %d)", ErrForeign, v, SchemaVersion)
		}
	} else {
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

// Apply implements Backend.
func (s *SQLite) Apply(ctx context.Context, b Batch) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback()
	w := writer{ctx: ctx, tx: tx}
	for _, p := range b.Forget {
		w.forget(p)
	}
	for _, si := range b.Set {
		w.forget(si.Source.Path)
		w.set(si)
	}
	if w.err != nil {
		return classify(w.err)
	}
	return classify(tx.Commit())
}

// writer runs the statements of one batch, keeping the first error.
type writer struct {
	ctx context.Context
	tx  *sql.Tx
	err error

	insItem, insKey *sql.Stmt
}

func (w *writer) exec(q string, args ...any) sql.Result {
	if w.err != nil {
		return nil
	}
	r, err := w.tx.ExecContext(w.ctx, q, args...)
	w.err = err
	return r
}

func (w *writer) forget(path string) {
	w.exec(`DELETE FROM track_keys WHERE item IN (SELECT i.id FROM track_items i JOIN track_sources s ON s.id = i.source WHERE s.path = ?)`, path)
	w.exec(`DELETE FROM track_items WHERE source IN (SELECT id FROM track_sources WHERE path = ?)`, path)
	w.exec(`DELETE FROM track_sources WHERE path = ?`, path)
}

func (w *writer) set(si SourceItems) {
	if w.err != nil {
		return
	}
	var src int64
	w.err = w.tx.QueryRowContext(w.ctx, `INSERT INTO track_sources (path, conn, size, mtime) VALUES (?, ?, ?, ?) RETURNING id`,
		si.Source.Path, si.Source.Conn, si.Source.Size, si.Source.MTime).Scan(&src)
	if w.err != nil {
		return
	}
	if w.insItem == nil {
		if w.insItem, w.err = w.tx.PrepareContext(w.ctx, `INSERT INTO track_items (source, conn, kind, ref, type, at, state, status, note, detail)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`); w.err != nil {
			return
		}
		if w.insKey, w.err = w.tx.PrepareContext(w.ctx, `INSERT INTO track_keys (item, kind, value, at) VALUES (?, ?, ?, ?)`); w.err != nil {
			return
		}
	}
	for _, it := range si.Items {
		at := it.At.UnixMilli()
		var id int64
		if w.err = w.insItem.QueryRowContext(w.ctx, src, it.Conn, string(it.Kind), it.Ref, it.Type, at, it.State, it.Status, it.Note, it.Detail).Scan(&id); w.err != nil {
			return
		}
		for _, k := range it.Keys {
			if _, w.err = w.insKey.ExecContext(w.ctx, id, string(k.Kind), k.Value, at); w.err != nil {
				return
			}
		}
	}
}

// Sources implements Backend.
func (s *SQLite) Sources(ctx context.Context) (map[string]Source, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, conn, size, mtime FROM track_sources`)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	out := map[string]Source{}
	for rows.Next() {
		var src Source
		if err := rows.Scan(&src.Path, &src.Conn, &src.Size, &src.MTime); err != nil {
			return nil, classify(err)
		}
		out[src.Path] = src
	}
	return out, classify(rows.Err())
}

const itemCols = `i.id, i.conn, i.kind, i.ref, i.type, i.at, i.state, i.status, i.note, i.detail, s.path`

func scanItems(rows *sql.Rows) ([]Item, error) {
	defer rows.Close()
	var out []Item
	for rows.Next() {
		var it Item
		var kind string
		var at int64
		if err := rows.Scan(&it.ID, &it.Conn, &kind, &it.Ref, &it.Type, &at, &it.State, &it.Status, &it.Note, &it.Detail, &it.Path); err != nil {
			return nil, classify(err)
		}
		it.Kind, it.At = Kind(kind), time.UnixMilli(at).UTC()
		out = append(out, it)
	}
	return out, classify(rows.Err())
}

// Match implements Backend. The value is compared by equality or as a
// range (prefix), never with LIKE, so '%', '_' and '*' in it are plain
// characters.
func (s *SQLite) Match(ctx context.Context, m Match) ([]Item, error) {
	var where []string
	var args []any
	if m.Value == "" {
		return s.matchType(ctx, m)
	}
	if m.Prefix {
		where = append(where, `k.value >= ? AND k.value < ?`)
		args = append(args, m.Value, m.Value+"\U0010FFFF")
	} else {
		where = append(where, `k.value = ?`)
		args = append(args, m.Value)
	}
	if len(m.Kinds) > 0 {
		ph := make([]string, len(m.Kinds))
		for i, k := range m.Kinds {
			ph[i] = "?"
			args = append(args, string(k))
		}
		where = append(where, `k.kind IN (`+strings.Join(ph, ", ")+`)`)
	} else {
		where = append(where, `k.kind <> ?`)
		args = append(args, string(KeyConv))
	}
	if !m.Since.IsZero() {
		where = append(where, `k.at >= ?`)
		args = append(args, m.Since.UnixMilli())
	}
	if m.Conn != "" {
		where = append(where, `i.conn = ?`)
		args = append(args, m.Conn)
	}
	if m.Type != "" {
		where = append(where, `i.type = ?`)
		args = append(args, m.Type)
	}
	limit := m.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT `+itemCols+` FROM track_keys k
		JOIN track_items i ON i.id = k.item JOIN track_sources s ON s.id = i.source
		WHERE `+strings.Join(where, " AND ")+` ORDER BY i.at DESC, i.id DESC LIMIT ?`, args...)
	if err != nil {
		return nil, classify(err)
	}
	return scanItems(rows)
}

// matchType lists the items of one type (a type: query without value).
func (s *SQLite) matchType(ctx context.Context, m Match) ([]Item, error) {
	where, args := []string{`i.type = ?`, `i.at >= ?`}, []any{m.Type, m.Since.UnixMilli()}
	if m.Since.IsZero() {
		args[1] = int64(-1 << 62)
	}
	if m.Conn != "" {
		where = append(where, `i.conn = ?`)
		args = append(args, m.Conn)
	}
	limit := m.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+itemCols+` FROM track_items i JOIN track_sources s ON s.id = i.source
		WHERE `+strings.Join(where, " AND ")+` ORDER BY i.at DESC, i.id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, classify(err)
	}
	return scanItems(rows)
}

// inChunks runs fn over vals in slices small enough for any engine's
// parameter limit.
func inChunks[T any](vals []T, fn func(ph string, args []any) error) error {
	const chunk = 500
	for len(vals) > 0 {
		n := min(chunk, len(vals))
		ph := strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
		args := make([]any, n)
		for i, v := range vals[:n] {
			args[i] = v
		}
		if err := fn(ph, args); err != nil {
			return err
		}
		vals = vals[n:]
	}
	return nil
}

// ByConv implements Backend.
func (s *SQLite) ByConv(ctx context.Context, convs []string) ([]Item, error) {
	seen := map[int64]bool{}
	var out []Item
	err := inChunks(convs, func(ph string, args []any) error {
		rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT `+itemCols+` FROM track_keys k
			JOIN track_items i ON i.id = k.item JOIN track_sources s ON s.id = i.source
			WHERE k.kind = ? AND k.value IN (`+ph+`)`, append([]any{string(KeyConv)}, args...)...)
		if err != nil {
			return classify(err)
		}
		items, err := scanItems(rows)
		for _, it := range items {
			if !seen[it.ID] {
				seen[it.ID] = true
				out = append(out, it)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, s.withConvs(ctx, out)
}

// withConvs fills the conversation keys of items.
func (s *SQLite) withConvs(ctx context.Context, items []Item) error {
	ids := make([]int64, len(items))
	for i := range items {
		ids[i] = items[i].ID
	}
	convs, err := s.Convs(ctx, ids)
	if err != nil {
		return err
	}
	for i := range items {
		for _, c := range convs[items[i].ID] {
			items[i].Keys = append(items[i].Keys, Key{Kind: KeyConv, Value: c})
		}
	}
	return nil
}

// ByKind implements Backend.
func (s *SQLite) ByKind(ctx context.Context, kind Kind, since time.Time) ([]Item, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+itemCols+` FROM track_items i JOIN track_sources s ON s.id = i.source
		WHERE i.kind = ? AND i.at >= ? ORDER BY i.at, i.id`, string(kind), since.UnixMilli())
	if err != nil {
		return nil, classify(err)
	}
	items, err := scanItems(rows)
	if err != nil {
		return nil, err
	}
	return items, s.withConvs(ctx, items)
}

// Convs implements Backend.
func (s *SQLite) Convs(ctx context.Context, ids []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	err := inChunks(ids, func(ph string, args []any) error {
		rows, err := s.db.QueryContext(ctx, `SELECT item, value FROM track_keys WHERE kind = ? AND item IN (`+ph+`) ORDER BY item, value`,
			append([]any{string(KeyConv)}, args...)...)
		if err != nil {
			return classify(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var v string
			if err := rows.Scan(&id, &v); err != nil {
				return classify(err)
			}
			out[id] = append(out[id], v)
		}
		return classify(rows.Err())
	})
	return out, err
}

// Meta implements Backend.
func (s *SQLite) Meta(ctx context.Context, name string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM track_meta WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, classify(err)
}

// SetMeta implements Backend.
func (s *SQLite) SetMeta(ctx context.Context, name, value string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM track_meta WHERE name = ?`, name); err != nil {
		return classify(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO track_meta (name, value) VALUES (?, ?)`, name, value); err != nil {
		return classify(err)
	}
	return classify(tx.Commit())
}

// Reset implements Backend.
func (s *SQLite) Reset(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback()
	for _, t := range []string{"track_keys", "track_items", "track_sources"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t); err != nil {
			return classify(err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM track_meta WHERE name NOT IN (?, ?)`, "schema", "version"); err != nil {
		return classify(err)
	}
	return classify(tx.Commit())
}

// Counts implements Backend.
func (s *SQLite) Counts(ctx context.Context) (sources, items, keys int64, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM track_sources), (SELECT COUNT(*) FROM track_items), (SELECT COUNT(*) FROM track_keys)`).
		Scan(&sources, &items, &keys)
	return sources, items, keys, classify(err)
}
