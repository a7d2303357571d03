package track

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PostgreSQL is the team's index: the same queries as SQLite (see
// sqlStore), its own DDL (BIGSERIAL ids, byte-ordered "C" collation for
// the range scans of prefixes, an index of keys by item so a replaced
// item's keys go with it) and its own migrations, versioned in
// track_meta like SQLite's.

// pgMigrations bring a PostgreSQL index from version i to i+1.
var pgMigrations = [][]string{
	{ // 0 → 1: the schema of SQLite's version 3
		`CREATE TABLE track_meta (name TEXT COLLATE "C" PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE track_sources (id BIGSERIAL PRIMARY KEY, path TEXT COLLATE "C" NOT NULL UNIQUE, conn TEXT NOT NULL, size BIGINT NOT NULL, mtime BIGINT NOT NULL)`,
		`CREATE TABLE track_items (id BIGSERIAL PRIMARY KEY, source BIGINT NOT NULL, conn TEXT NOT NULL, kind TEXT NOT NULL, ref TEXT NOT NULL,
			type TEXT NOT NULL, at BIGINT NOT NULL, state TEXT NOT NULL, status TEXT NOT NULL, note TEXT NOT NULL, detail TEXT NOT NULL, convs TEXT NOT NULL,
			part BIGINT NOT NULL DEFAULT 0, who TEXT NOT NULL DEFAULT '')`,
		`CREATE INDEX track_items_source ON track_items (source)`,
		`CREATE INDEX track_items_kind ON track_items (kind, at)`,
		`CREATE INDEX track_items_type ON track_items (type, at)`,
		`CREATE TABLE track_keys (value TEXT COLLATE "C" NOT NULL, at BIGINT NOT NULL, item BIGINT NOT NULL, kind TEXT NOT NULL,
			PRIMARY KEY (value, at, item, kind))`,
		`CREATE INDEX track_keys_item ON track_keys (item)`,
	},
}

// PGSchemaVersion is the PostgreSQL index schema this b2bx writes.
var PGSchemaVersion = len(pgMigrations)

// ErrNewerSchema: the database was written by a newer b2bx; this one
// refuses it rather than guess (upgrade b2bx).
var ErrNewerSchema = errors.New("track: the database has a newer schema than this b2bx knows: upgrade b2bx")

// ErrNoSchema: the database has no (or an older) b2bx schema; `b2bx
// store init` creates or migrates it.
var ErrNoSchema = errors.New("track: the team store has no current schema: run `b2bx store init`")

// migrateLock is the advisory lock two `store init` runs take, so one
// migrates and the other then finds it done.
const migrateLock = 0x6232_7862_7472_6b // "b2bxtrk"

// Postgres is the Backend on a PostgreSQL database.
type Postgres struct {
	sqlStore
	owns bool
}

// NewPostgres uses db (driver "pgx"), whose index schema must be the
// current one (ErrNoSchema: run MigratePostgres; ErrNewerSchema: upgrade
// b2bx). Close leaves db open: the caller owns it.
func NewPostgres(ctx context.Context, db *sql.DB) (*Postgres, error) {
	p := &Postgres{sqlStore: sqlStore{db: db, pg: true}}
	v, err := p.version(ctx, p.db)
	if err != nil {
		return nil, err
	}
	if v != PGSchemaVersion {
		return nil, fmt.Errorf("%w (the index schema is version %d, this b2bx writes %d)", ErrNoSchema, v, PGSchemaVersion)
	}
	return p, nil
}

// PGVersion reads the index schema version of db: 0 when it has none.
func PGVersion(ctx context.Context, db *sql.DB) (int, error) {
	return (&Postgres{sqlStore: sqlStore{db: db, pg: true}}).version(ctx, db)
}

type pgQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (p *Postgres) version(ctx context.Context, q pgQuerier) (int, error) {
	var exists bool
	if err := q.QueryRowContext(ctx, `SELECT to_regclass('track_meta') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, err
	}
	if !exists {
		return 0, nil
	}
	var name, v string
	err := q.QueryRowContext(ctx, `SELECT value FROM track_meta WHERE name = $1`, "schema").Scan(&name)
	if err == nil {
		err = q.QueryRowContext(ctx, `SELECT value FROM track_meta WHERE name = $1`, "version").Scan(&v)
	}
	if err != nil {
		return 0, fmt.Errorf("%w: no b2bx schema marker (%v)", ErrForeign, err)
	}
	if name != SchemaName {
		return 0, fmt.Errorf("%w: schema %q", ErrForeign, name)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%w: version %q", ErrForeign, v)
	}
	if n > PGSchemaVersion {
		return 0, fmt.Errorf("%w (the index schema is version %d, this b2bx knows up to %d)", ErrNewerSchema, n, PGSchemaVersion)
	}
	return n, nil
}

// MigratePostgres creates or migrates the index schema of db in one
// transaction (idempotent; concurrent runs wait for each other) and
// returns the version it is at.
func MigratePostgres(ctx context.Context, db *sql.DB) (int, error) {
	p := &Postgres{sqlStore: sqlStore{db: db, pg: true}}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrateLock)); err != nil {
		return 0, err
	}
	v, err := p.version(ctx, tx)
	if err != nil {
		return 0, err
	}
	if v == PGSchemaVersion {
		return v, nil
	}
	for i, m := range pgMigrations[v:] {
		for _, stmt := range m {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return 0, fmt.Errorf("track: migrate the team index to version %d: %w", v+i+1, err)
			}
		}
		if v+i == 0 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO track_meta (name, value) VALUES ($1, $2), ($3, $4)`, "schema", SchemaName, "version", "0"); err != nil {
				return 0, err
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE track_meta SET value = $1 WHERE name = $2`, strconv.Itoa(PGSchemaVersion), "version"); err != nil {
		return 0, err
	}
	return PGSchemaVersion, tx.Commit()
}

// Close implements Backend (the database stays open when the caller owns it).
func (p *Postgres) Close() error {
	if p.owns {
		return p.db.Close()
	}
	return nil
}

// DB is the database.
func (p *Postgres) DB() *sql.DB { return p.db }

// SetMeta implements Backend: one upsert (two writers of the same name at
// once must not collide on its key).
func (p *Postgres) SetMeta(ctx context.Context, name, value string) error {
	_, err := p.db.ExecContext(ctx, `INSERT INTO track_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`,
		PGText(name), PGText(value))
	return err
}

// rebind turns ? placeholders into $1, $2, …
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// PGText is s as PostgreSQL text holds it: valid UTF-8 without NUL
// (invalid bytes and NUL become U+FFFD, as in the keys of either engine).
func PGText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// pgArgs applies PGText to the text parameters.
func pgArgs(a []any) []any {
	var out []any
	for i, v := range a {
		s, ok := v.(string)
		if !ok || PGText(s) == s {
			continue
		}
		if out == nil {
			out = append([]any(nil), a...)
		}
		out[i] = PGText(s)
	}
	if out == nil {
		return a
	}
	return out
}

// TxHandle is a transaction on a Postgres backend: the team store writes
// its own rows (Tx) and the index's (ApplyTx) in it, committed as one.
type TxHandle struct{ t *sqlTx }

// Begin starts a transaction.
func (p *Postgres) Begin(ctx context.Context) (*TxHandle, error) {
	t, err := p.begin(ctx)
	if err != nil {
		return nil, err
	}
	return &TxHandle{t: t}, nil
}

// Tx is the transaction for statements of the caller's own ($n placeholders).
func (h *TxHandle) Tx() *sql.Tx { return h.t.Tx }
