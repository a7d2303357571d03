package track

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

func TestCorruptDatabaseIsRebuiltOnce(t *testing.T) {
	dir, _ := world(t)
	c := &clock{t: t0}
	x := openIndex(t, dir, c, nil)
	_, err := x.Sync(t.Context())
	require.NoError(t, err)
	want := dump(t, x)
	require.NoError(t, x.Close())

	require.NoError(t, os.WriteFile(DBPath(dir), []byte(strings.Repeat("not a database ", 500)), 0o600))
	for _, ext := range []string{"-wal", "-shm"} {
		_ = os.Remove(DBPath(dir) + ext)
	}
	var said []string
	y := openIndex(t, dir, c, &said)
	st, err := y.Sync(t.Context())
	require.NoError(t, err)
	require.True(t, st.Rebuilt)
	require.Equal(t, want, dump(t, y), "nothing lost: the files are the source of truth")
	require.Len(t, said, 1)
	require.Contains(t, said[0], "unusable")
	require.Contains(t, said[0], ".broken-", "says where the damaged file went")
	_, err = y.Sync(t.Context())
	require.NoError(t, err)
	require.Len(t, said, 1, "said once")
	matches, _ := filepath.Glob(DBPath(dir) + ".broken-*")
	require.NotEmpty(t, matches, "the damaged file is kept aside, not deleted")
}

func TestForeignDatabaseIsRebuilt(t *testing.T) {
	for name, setup := range map[string]string{
		"another program's tables": `CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)`,
		"another schema marker":    `CREATE TABLE track_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO track_meta VALUES ('schema', 'other'), ('version', '1')`,
		"a newer version":          `CREATE TABLE track_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO track_meta VALUES ('schema', 'b2bx-track'), ('version', '99')`,
	} {
		t.Run(name, func(t *testing.T) {
			dir, _ := world(t)
			require.NoError(t, os.MkdirAll(filepath.Dir(DBPath(dir)), 0o700))
			db, err := sql.Open("sqlite", DBPath(dir))
			require.NoError(t, err)
			for _, stmt := range strings.Split(setup, "; ") {
				_, err = db.Exec(stmt)
				require.NoError(t, err)
			}
			require.NoError(t, db.Close())
			var said []string
			x := openIndex(t, dir, &clock{t: t0}, &said)
			_, err = x.Sync(t.Context())
			require.NoError(t, err)
			require.Len(t, said, 1)
			require.Contains(t, said[0], "another schema")
			require.Len(t, mustFind(t, x, "po:PO-4711").Conversations, 1)
		})
	}
}

func TestMigrationFromVersionZeroKeepsMarker(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenSQLite(t.Context(), filepath.Join(dir, "t.db"))
	require.NoError(t, err)
	v, err := s.Meta(t.Context(), "version")
	require.NoError(t, err)
	require.Equal(t, fmt.Sprint(SchemaVersion), v)
	require.NoError(t, s.Close())
	// reopening an up-to-date database applies nothing and keeps it
	s, err = OpenSQLite(t.Context(), filepath.Join(dir, "t.db"))
	require.NoError(t, err)
	require.NoError(t, s.Close())
}

func TestUnparsableStoredFileIndexedFromSidecar(t *testing.T) {
	dir, s := world(t)
	st := store(t, s, "conn-a", "d-broken", "ORDRSP", ordrsp("RSP9", "PO-4711"), t0.Add(4*time.Hour), true)
	require.NoError(t, os.WriteFile(st.Path, []byte("garbage"), 0o600)) // changed since it was verified
	x := openIndex(t, dir, &clock{t: t0}, nil)
	_, err := x.Sync(t.Context())
	require.NoError(t, err)
	r := mustFind(t, x, "id:d-broken")
	require.Len(t, r.Conversations, 1)
	it := r.Conversations[0].Items[0]
	require.Equal(t, "not readable: indexed from its sidecar", it.Status)
	require.Contains(t, it.Note, "has 7 bytes, not the")
	require.Equal(t, "acknowledged", it.State)
	require.Len(t, mustFind(t, x, "id:ic-d-broken").Conversations, 1, "the sidecar's interchange ID is a key")

	// a damaged sidecar is listed by its file name with the reason
	require.NoError(t, os.WriteFile(filepath.Join(dir, "conn-a", "deliveries", "d-odd.json"), []byte("{"), 0o600))
	_, err = x.SyncConn(t.Context(), dir, "conn-a")
	require.NoError(t, err)
	r = mustFind(t, x, "d-odd")
	require.Len(t, r.Conversations, 1)
	require.Contains(t, r.Conversations[0].Items[0].Note, "does not decode")
}

func TestQueriesAreParameterised(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	hostile := []string{"PO'1", "PO;1", "100%", "A_B", "X*Y", "N\x00L", `"; DROP TABLE track_items; --`}
	for i, h := range hostile {
		uploaded(t, s, "conn-a", fmt.Sprintf("R%d", i), h, ordersIC(fmt.Sprintf("R%d", i), "PLAIN"), t0.Add(time.Duration(i)*time.Minute), spool.OutcomeAccepted)
	}
	uploaded(t, s, "conn-a", "RX", "AXB", ordersIC("RX", "AXB"), t0, spool.OutcomeAccepted)
	x := openIndex(t, dir, &clock{t: t0}, nil)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	for _, h := range hostile {
		r := mustFind(t, x, "po:"+h)
		require.Len(t, r.Conversations, 1, "%q matches itself only", h)
		require.Equal(t, 1, r.Conversations[0].Matched, h)
	}
	for _, q := range []string{"%", "_", "A_B_", "'", ";", "' OR '1'='1", "x\x00"} {
		require.Empty(t, mustFind(t, x, q).Conversations, "%q is a plain value, not a pattern", q)
	}
	require.Len(t, mustFind(t, x, "po:a_b").Conversations, 1, "'_' is not a wildcard: only A_B, not AXB")
	require.Len(t, mustFind(t, x, "po:X*").Conversations, 1, "a trailing * is the one wildcard")
	_, err = ParseQuery("*")
	require.ErrorIs(t, err, ErrBadQuery)
	_, err = ParseQuery(strings.Repeat("x", 10<<10))
	require.ErrorIs(t, err, ErrBadQuery)
	require.Contains(t, err.Error(), "10240 bytes")
	// 10 KB below the limit of a key still runs (cut like stored keys)
	q := Query{Value: norm(strings.Repeat("y", 10<<10))}
	r, err := x.Find(t.Context(), q, nil)
	require.NoError(t, err)
	require.Empty(t, r.Conversations)
	n, _, _, err := x.b.Counts(t.Context())
	require.NoError(t, err)
	require.Positive(t, n, "the tables are still there")
}

// failing is a Backend whose writes fail with a full disk while full is set.
type failing struct {
	*SQLite
	mu   sync.Mutex
	full bool
}

func (f *failing) Apply(ctx context.Context, b Batch) error {
	f.mu.Lock()
	full := f.full
	f.mu.Unlock()
	if full {
		return classify(fmt.Errorf("write track.db: %w", syscall.ENOSPC))
	}
	return f.SQLite.Apply(ctx, b)
}

func TestDiskFullMarksStale(t *testing.T) {
	dir, s := world(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(DBPath(dir)), 0o700))
	db, err := OpenSQLite(t.Context(), DBPath(dir))
	require.NoError(t, err)
	f := &failing{SQLite: db}
	x, err := Open(t.Context(), Options{Dir: dir, Now: (&clock{t: t0}).now, Backend: f})
	require.NoError(t, err)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	before := dump(t, x)

	f.full = true
	store(t, s, "conn-a", "d-new", "CONTRL", contrl("CTL9", "ICR0001", false), t0.Add(5*time.Hour), true)
	_, err = x.SyncConn(t.Context(), dir, "conn-a")
	require.ErrorIs(t, err, ErrStale)
	require.ErrorIs(t, err, ErrFull)
	require.Equal(t, before, dump(t, x), "the failed batch left nothing half-written")
	_, statErr := os.Stat(filepath.Join(dir, "conn-a", "deliveries", "d-new.edi"))
	require.NoError(t, statErr, "the stored delivery is untouched")
	require.NoError(t, x.Close())

	// space again: the next open rebuilds and says why
	var said []string
	y := openIndex(t, dir, &clock{t: t0}, &said)
	st, err := y.Sync(t.Context())
	require.NoError(t, err)
	require.True(t, st.Rebuilt)
	require.Contains(t, said[0], "marked stale")
	require.Contains(t, said[0], "no space left")
	require.Len(t, mustFind(t, y, "id:d-new").Conversations, 1)
	_, err = os.Stat(filepath.Join(filepath.Dir(DBPath(dir)), stalePath))
	require.True(t, errors.Is(err, os.ErrNotExist), "the marker is cleared after the rebuild")
}

// Two processes at once: two indexes (two database handles, as two b2bx
// processes have) syncing and querying the same file concurrently never
// fail with "database is locked".
func TestTwoProcessesAtOnce(t *testing.T) {
	dir, s := world(t)
	c := &clock{t: t0}
	a := openIndex(t, dir, c, nil)
	b := openIndex(t, dir, c, nil)
	const rounds = 20
	var wg sync.WaitGroup
	errs := make(chan error, 4*rounds)
	for w, x := range []*Index{a, b} {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range rounds {
				if _, err := x.Rebuild(t.Context(), "test"); err != nil {
					errs <- err
				}
				if _, err := x.SyncConn(t.Context(), dir, "conn-a"); err != nil {
					errs <- err
				}
				_ = i
			}
		}()
		go func() {
			defer wg.Done()
			for i := range rounds {
				q, _ := ParseQuery(buyer)
				if _, err := x.Find(t.Context(), q, nil); err != nil {
					errs <- err
				}
				if w == 0 {
					store(t, s, "conn-a", fmt.Sprintf("d-par-%d", i), "CONTRL", contrl("CP", "ICR0001", false), t0.Add(time.Duration(i)*time.Minute), false)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	_, err := a.Sync(t.Context())
	require.NoError(t, err)
	_, err = b.Sync(t.Context())
	require.NoError(t, err)
	require.Equal(t, dump(t, a), dump(t, b))
	require.Len(t, mustFind(t, a, "id:d-par-19").Conversations, 1)
}
