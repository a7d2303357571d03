package teamstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nutrab2b/b2bx/internal/track"
)

// SchemaName marks the team store's own tables (track's are versioned in
// track_meta).
const SchemaName = "b2bx-team"

// migrations bring the team tables from version i to i+1. Text columns
// hold what the outbox pushed (PostgreSQL text: valid UTF-8, no NUL; the
// records themselves are kept as JSON, which escapes both).
var migrations = [][]string{
	{ // 0 → 1
		`CREATE TABLE team_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		// payload and sent-file bytes, once per SHA-256 (lower-case hex)
		`CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, size BIGINT NOT NULL, data BYTEA NOT NULL)`,
		`CREATE TABLE deliveries (conn TEXT NOT NULL, delivery_id TEXT NOT NULL, source TEXT NOT NULL UNIQUE, interchange_id TEXT NOT NULL, message_type TEXT NOT NULL,
			payload_sha256 TEXT NOT NULL REFERENCES blobs (sha256), sidecar TEXT NOT NULL,
			by_user TEXT NOT NULL, by_host TEXT NOT NULL, stored_at TIMESTAMPTZ NOT NULL,
			acknowledged_at TIMESTAMPTZ, receipt_id TEXT NOT NULL DEFAULT '', acknowledged_by_user TEXT NOT NULL DEFAULT '', acknowledged_by_host TEXT NOT NULL DEFAULT '',
			pushed_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (conn, delivery_id))`,
		// one row per history line pushed; attempt is the line's identity
		// within its key (time and outcome, see attemptOf)
		`CREATE TABLE uploads (seq BIGSERIAL UNIQUE, conn TEXT NOT NULL, key TEXT NOT NULL, attempt TEXT NOT NULL, record TEXT NOT NULL,
			outcome TEXT NOT NULL, http_status INT NOT NULL, fixes TEXT NOT NULL, file_sha256 TEXT NOT NULL, has_file BOOLEAN NOT NULL,
			by_user TEXT NOT NULL, by_host TEXT NOT NULL, at TIMESTAMPTZ NOT NULL, pushed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
			PRIMARY KEY (conn, key, attempt))`,
		`CREATE INDEX uploads_conn ON uploads (conn, at, seq)`,
		`CREATE TABLE seen (conn TEXT NOT NULL, record_sha256 TEXT NOT NULL, record TEXT NOT NULL, delivery_id TEXT NOT NULL, state TEXT NOT NULL,
			at TIMESTAMPTZ NOT NULL, by_user TEXT NOT NULL, by_host TEXT NOT NULL, pushed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
			PRIMARY KEY (conn, record_sha256))`,
		// one row per event; the capture's bytes are a blob
		`CREATE TABLE captures (event_id TEXT PRIMARY KEY, name TEXT NOT NULL, capture_sha256 TEXT NOT NULL REFERENCES blobs (sha256),
			by_user TEXT NOT NULL, by_host TEXT NOT NULL, pushed_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
	},
	{ // 1 → 2
		// A blob's bytes are rows of up to blobChunk bytes (chunk n = 0, 1,
		// …), compressed with LZ4 where the server has it: one 16 MiB
		// value took 200–700 ms to bind and insert, four 4 MiB rows take
		// 50–110 ms (BENCHMARKS.md, "The team store"). The bytes stored
		// before are moved as chunk 0 of their blob; readers join the
		// chunks in order and check the size.
		`CREATE TABLE blob_chunks (sha256 TEXT NOT NULL REFERENCES blobs (sha256), n INT NOT NULL, data BYTEA NOT NULL, PRIMARY KEY (sha256, n))`,
		// a server built without LZ4 (or older than PostgreSQL 14) keeps
		// pglz, which reads the same
		`DO $$ BEGIN
			EXECUTE 'ALTER TABLE blob_chunks ALTER COLUMN data SET COMPRESSION lz4';
		EXCEPTION WHEN feature_not_supported OR syntax_error THEN NULL;
		END $$`,
		// a role that could store blobs (docs/team-store.md's least
		// rights) can store their chunks: pushes go on after the upgrade
		`DO $$ DECLARE r record; BEGIN
			FOR r IN SELECT DISTINCT grantee FROM information_schema.table_privileges
				WHERE table_schema = current_schema() AND table_name = 'blobs' AND privilege_type = 'INSERT' AND grantee <> current_user LOOP
				EXECUTE format('GRANT SELECT, INSERT ON blob_chunks TO %I', r.grantee);
			END LOOP;
		END $$`,
		`INSERT INTO blob_chunks (sha256, n, data) SELECT sha256, 0, data FROM blobs`,
		`ALTER TABLE blobs DROP COLUMN data`,
	},
	{ // 2 → 3
		// b2bx compresses a chunk itself (codec 1: a Snappy block, see
		// blob.go) and the server stores it as it comes: binding and
		// writing 16 MiB was most of a big push, and EDIFACT shrinks 4–10×
		// (BENCHMARKS.md, "A 16 MiB payload pushed…"). Chunks written
		// before are codec 0, the bytes themselves, and stay readable.
		`ALTER TABLE blob_chunks ADD COLUMN codec SMALLINT NOT NULL DEFAULT 0`,
		`ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL`,
	},
}

// SchemaVersion is the team-table schema this b2bx writes.
var SchemaVersion = len(migrations)

// migrateLock serialises concurrent inits.
const migrateLock = 0x6232_7862_7465_616d // "b2bxteam"

// Version is the schema state: the team tables' and the index's.
type Version struct {
	Team, Index int
}

// String is "team 1, index 1".
func (v Version) String() string { return fmt.Sprintf("team tables %d, index %d", v.Team, v.Index) }

func (s *Store) teamVersion(ctx context.Context) (int, error) {
	var exists bool
	if err := s.db.QueryRowContext(ctx, `SELECT to_regclass('team_meta') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return 0, s.wrap(err)
	}
	var name, v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM team_meta WHERE name = 'schema'`).Scan(&name)
	if err == nil {
		err = s.db.QueryRowContext(ctx, `SELECT value FROM team_meta WHERE name = 'version'`).Scan(&v)
	}
	if err != nil || name != SchemaName {
		return 0, fmt.Errorf("%w: team_meta holds no b2bx team schema marker", track.ErrForeign)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%w: team schema version %q", track.ErrForeign, v)
	}
	if n > SchemaVersion {
		return 0, fmt.Errorf("%w (the team tables are version %d, this b2bx knows up to %d)", track.ErrNewerSchema, n, SchemaVersion)
	}
	return n, nil
}

// SchemaVersions reads both schema versions (0: none yet).
func (s *Store) SchemaVersions(ctx context.Context) (Version, error) {
	ctx, cancel := ctxOp(ctx)
	defer cancel()
	t, err := s.teamVersion(ctx)
	if err != nil {
		return Version{}, s.wrap(err)
	}
	i, err := track.PGVersion(ctx, s.db)
	return Version{Team: t, Index: i}, s.wrap(err)
}

// checkSchema is ErrNoSchema (run store init) or ErrNewerSchema (upgrade
// b2bx) unless both schemas are this b2bx's.
func (s *Store) checkSchema(ctx context.Context) (Version, error) {
	v, err := s.SchemaVersions(ctx)
	if err != nil {
		return v, err
	}
	if v.Team != SchemaVersion || v.Index != track.PGSchemaVersion {
		return v, fmt.Errorf("%w (%s; this b2bx writes %d and %d)", track.ErrNoSchema, v, SchemaVersion, track.PGSchemaVersion)
	}
	return v, nil
}

// Init creates or migrates both schemas (idempotent; two inits at once
// wait for each other). It needs a role that may create tables.
func (s *Store) Init(ctx context.Context) (Version, error) {
	ctx, cancel := context.WithTimeout(ctx, MigrateTimeout)
	defer cancel()
	if _, err := track.MigratePostgres(ctx, s.db); err != nil {
		return Version{}, s.wrap(err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Version{}, s.wrap(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrateLock)); err != nil {
		return Version{}, s.wrap(err)
	}
	v, err := s.teamVersion(ctx)
	if err != nil {
		return Version{}, err
	}
	for i, m := range migrations[v:] {
		for _, stmt := range m {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return Version{}, s.wrap(fmt.Errorf("teamstore: migrate to version %d: %w", v+i+1, err))
			}
		}
		if v+i == 0 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO team_meta (name, value) VALUES ('schema', $1), ('version', '0')`, SchemaName); err != nil {
				return Version{}, s.wrap(err)
			}
		}
	}
	if v < SchemaVersion {
		if _, err := tx.ExecContext(ctx, `UPDATE team_meta SET value = $1 WHERE name = 'version'`, strconv.Itoa(SchemaVersion)); err != nil {
			return Version{}, s.wrap(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Version{}, s.wrap(err)
	}
	got, err := s.checkSchema(ctx)
	if errors.Is(err, track.ErrNoSchema) {
		return got, s.wrap(err)
	}
	return got, err
}
