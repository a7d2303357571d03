package track

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/testshared/pgtest"
	"github.com/nutrab2b/b2bx/internal/who"
)

// testBackend, when set, is the database openIndex gives an index over
// dir instead of its SQLite file (the table of backends below).
var testBackend func(t testing.TB, dir string) Backend

// backendTests run against every backend: the queries, the linking and
// the timelines are the same SQL on both engines.
// (TestIndexAfter is left out: it opens the machine's own SQLite file.)
var backendTests = []struct {
	name string
	fn   func(*testing.T)
}{
	{"FindAcrossConnections", TestFindAcrossConnections},
	{"OverdueAndSLA", TestOverdueAndSLA},
	{"RebuildEqualsIncremental", TestRebuildEqualsIncremental},
	{"IndexStoredEqualsRebuild", TestIndexStoredEqualsRebuild},
	{"ConnFiguresAndMailboxPage", TestConnFiguresAndMailboxPage},
	{"EventCapturesJoinTheirOrder", TestEventCapturesJoinTheirOrder},
	{"IndexHistoryEqualsRebuild", TestIndexHistoryEqualsRebuild},
	{"FindSince", TestFindSince},
	{"EventsJoinByTheIDsTheyCarry", TestEventsJoinByTheIDsTheyCarry},
	{"QueriesAreParameterised", TestQueriesAreParameterised},
	{"UnparsableStoredFileIndexedFromSidecar", TestUnparsableStoredFileIndexedFromSidecar},
	{"TimelineOrderWithFakeClock", TestTimelineOrderWithFakeClock},
	{"TimelineRejectedReasonsInWords", TestTimelineRejectedReasonsInWords},
	{"TimelineStepsOfADeliveryKeepTheirOrder", TestTimelineStepsOfADeliveryKeepTheirOrder},
	{"WideInterchangeQueriesReadTheirAnswer", TestWideInterchangeQueriesReadTheirAnswer},
	{"WideUploadBridgesNothing", TestWideUploadBridgesNothing},
	{"TimelineOf", TestTimelineOf},
	{"FixedRejectionIsResolved", TestFixedRejectionIsResolved},
}

// TestBackends runs backendTests on PostgreSQL (SQLite runs them as the
// tests they are). One fresh database per data directory; a test that
// removes the SQLite file to start from scratch gets a fresh one too.
func TestBackends(t *testing.T) {
	pgtest.Server(t)
	for _, bt := range backendTests {
		t.Run("postgres/"+bt.name, func(t *testing.T) {
			dsns := map[string]string{}
			testBackend = func(t testing.TB, dir string) Backend {
				marker := DBPath(dir)
				if _, err := os.Stat(marker); err != nil || dsns[dir] == "" {
					dsns[dir] = pgtest.DSN(t)
					require.NoError(t, os.MkdirAll(filepath.Dir(marker), 0o700))
					require.NoError(t, os.WriteFile(marker, nil, 0o600))
				}
				return openPG(t, dsns[dir], true)
			}
			t.Cleanup(func() { testBackend = nil })
			bt.fn(t)
		})
	}
}

func openPG(t testing.TB, dsn string, migrate bool) *Postgres {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	if migrate {
		_, err = MigratePostgres(context.Background(), db)
		require.NoError(t, err)
	}
	p, err := NewPostgres(context.Background(), db)
	require.NoError(t, err)
	p.owns = true
	return p
}

func TestPostgresMigrationIsIdempotentAndRefusesNewer(t *testing.T) {
	db := pgtest.NewDB(t)
	_, err := NewPostgres(t.Context(), db)
	require.ErrorIs(t, err, ErrNoSchema, "an empty database is not used until store init")
	require.Contains(t, err.Error(), "b2bx store init")
	for range 2 {
		v, err := MigratePostgres(t.Context(), db)
		require.NoError(t, err)
		require.Equal(t, PGSchemaVersion, v)
	}
	_, err = db.ExecContext(t.Context(), `UPDATE track_meta SET value = $1 WHERE name = 'version'`, "99")
	require.NoError(t, err)
	_, err = NewPostgres(t.Context(), db)
	require.ErrorIs(t, err, ErrNewerSchema)
	require.Contains(t, err.Error(), "upgrade b2bx")
	_, err = MigratePostgres(t.Context(), db)
	require.ErrorIs(t, err, ErrNewerSchema, "init never downgrades")
	var n int
	require.NoError(t, db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM track_meta WHERE name = 'version' AND value = '99'`).Scan(&n))
	require.Equal(t, 1, n, "the newer schema is left as it was")
}

// hostile is a value meant to break a table or a terminal.
const hostile = "\x1b[2J\x1b]0;pwn\x07'; DROP TABLE track_items; -- \u202e%_*\r\b\u009b"

// Every text column round-trips a hostile value exactly (NUL and
// invalid UTF-8, which PostgreSQL text cannot hold, as U+FFFD), and the
// item's author too.
func TestPostgresHostileValuesRoundTrip(t *testing.T) {
	p := openPG(t, pgtest.DSN(t), true)
	defer p.Close()
	by := who.Who{User: "alice" + hostile, Host: "host-3"}
	it := Item{Conn: "c" + hostile, Kind: KindDelivery, Ref: "r" + hostile, Type: "T" + hostile, At: t0, State: "s" + hostile,
		Status: "st" + hostile, Note: "n" + hostile + "\x00\xff", Detail: `{"x":"` + hostile + `"}`, By: by,
		Keys: []Key{{Kind: KeyPO, Value: norm("po" + hostile)}, {Kind: KeyConv, Value: "po:" + hostile}}}
	path := "team:c" + hostile + "/deliveries/r"
	require.NoError(t, p.Apply(t.Context(), Batch{Set: []SourceItems{{Source: Source{Path: path, Conn: it.Conn}, Items: []Item{it}}}}))
	got, err := p.Match(t.Context(), Match{Value: norm("po" + hostile), Kinds: []KeyKind{KeyPO}})
	require.NoError(t, err)
	require.Len(t, got, 1)
	g := got[0]
	require.Equal(t, it.Conn, g.Conn)
	require.Equal(t, it.Ref, g.Ref)
	require.Equal(t, it.Type, g.Type)
	require.Equal(t, it.State, g.State)
	require.Equal(t, it.Status, g.Status)
	require.Equal(t, "n"+hostile+"\uFFFD\uFFFD", g.Note)
	require.Equal(t, it.Detail, g.Detail)
	require.Equal(t, by, g.By)
	require.Equal(t, path, g.Path)
	require.True(t, g.At.Equal(t0))
	srcs, err := p.Sources(t.Context(), "team:c"+hostile)
	require.NoError(t, err)
	require.Contains(t, srcs, path)
	// the same on SQLite
	s, err := OpenMemory(t.Context())
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Apply(t.Context(), Batch{Set: []SourceItems{{Source: Source{Path: path, Conn: it.Conn}, Items: []Item{it}}}}))
	got, err = s.Match(t.Context(), Match{Value: norm("po" + hostile), Kinds: []KeyKind{KeyPO}})
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, by, got[0].By)
	require.Equal(t, it.Status, got[0].Status)
}

// A replaced source's keys go with its items on PostgreSQL.
func TestPostgresReplaceLeavesNoKeys(t *testing.T) {
	p := openPG(t, pgtest.DSN(t), true)
	defer p.Close()
	it := Item{Conn: "c", Kind: KindSeen, Ref: "d1", At: t0, Keys: []Key{{Kind: KeyID, Value: "d1"}}}
	for range 3 {
		require.NoError(t, p.Apply(t.Context(), Batch{Set: []SourceItems{{Source: Source{Path: "team:c/seen/x", Conn: "c"}, Items: []Item{it}}}}))
	}
	s, i, k, err := p.Counts(t.Context())
	require.NoError(t, err)
	require.Equal(t, []int64{1, 1, 1}, []int64{s, i, k})
}

// SQLite's migration 2 → 3 adds the author column and keeps the rows.
func TestSQLiteMigrationToAuthorKeepsRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE track_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO track_meta (name, value) VALUES ('schema', ?), ('version', '2'), ('built', 'x')`, SchemaName)
	require.NoError(t, err)
	for _, m := range migrations[:2] {
		for _, stmt := range m {
			_, err := db.Exec(stmt)
			require.NoError(t, err)
		}
	}
	_, err = db.Exec(`INSERT INTO track_sources (id, path, conn, size, mtime) VALUES (1, 'r0/c/x.json', 'c', 1, 1)`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO track_items (source, conn, kind, ref, type, at, state, status, note, detail, convs, part) VALUES (1, 'c', 'delivery', 'd1', 'CONTRL', ?, 'stored', '', '', '', '[]', 0)`, t0.UnixMilli())
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO track_keys (value, at, item, kind) VALUES ('d1', ?, 1, 'id')`, t0.Unix())
	require.NoError(t, err)
	require.NoError(t, db.Close())

	s, err := OpenSQLite(t.Context(), path)
	require.NoError(t, err)
	defer s.Close()
	v, err := s.Meta(t.Context(), "version")
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(SchemaVersion), v, "migrated to the current version")
	got, err := s.Match(t.Context(), Match{Value: "d1"})
	require.NoError(t, err)
	require.Len(t, got, 1, "the row of version 2 is kept")
	require.True(t, got[0].By.IsZero())
	require.Equal(t, "CONTRL", got[0].Type)
}

func TestRebind(t *testing.T) {
	require.Equal(t, "a = $1 AND b IN ($2, $3)", rebind("a = ? AND b IN (?, ?)"))
	require.Equal(t, "x", rebind("x"))
	require.Equal(t, "ok\uFFFD\uFFFD", PGText("ok\x00\xff"))
	_ = strings.TrimSpace
	_ = time.Second
	_ = spool.OutcomeAccepted
}
