package teamstore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// waitingForAdvisory counts the sessions waiting for an advisory lock.
func waitingForAdvisory(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	require.NoError(t, s.db.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n))
	return n
}

// Two machines plan a key for the same connection at once: the second
// waits on the team's key-plan lock until the first released it (its
// key pushed), then sees the first's key and takes the next; a lock held
// too long is a clear, bounded error.
func TestKeyPlansOfTwoMachinesTakeTurns(t *testing.T) {
	_, dsn := newStore(t, alice)
	a, b := open(t, dsn, alice), open(t, dsn, bob)
	storeA, err := spool.Open(filepath.Join(t.TempDir(), "a"))
	require.NoError(t, err)
	storeB, err := spool.Open(filepath.Join(t.TempDir(), "b"))
	require.NoError(t, err)
	for _, p := range []struct {
		s  *Store
		sp *spool.Store
	}{{a, storeA}, {b, storeB}} {
		p.sp.SetSharedUploads(func(conn string) ([]spool.UploadRecord, error) {
			if err := p.s.lockKeys(context.Background(), conn); err != nil {
				return nil, err
			}
			return p.s.Uploads(context.Background(), conn)
		})
	}
	_, err = storeA.KeyHistory("conn-a") // Alice plans: the lock is hers
	require.NoError(t, err)

	got := make(chan []spool.UploadRecord, 1)
	go func() {
		h, _ := storeB.KeyHistory("conn-a") // Bob plans at the same moment
		got <- h
	}()
	deadline := time.Now().Add(20 * time.Second)
	for waitingForAdvisory(t, a) == 0 {
		require.True(t, time.Now().Before(deadline), "Bob's plan never waited for the lock")
		time.Sleep(10 * time.Millisecond)
	}
	pending, _ := upload("conn-a", "ICR0001", "PO-4711", 1, ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomePending, 0)
	require.NoError(t, a.PushUpload(t.Context(), "conn-a", pending, nil, alice))
	a.ReleaseKeys()
	var h []spool.UploadRecord
	select {
	case h = <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("Bob's plan did not go on after Alice released the lock")
	}
	require.Len(t, h, 1, "Bob's plan reads Alice's reserved key")
	require.Equal(t, pending.Key, h[0].Key)
	d := spool.Decide(h, spool.KeyRequest{SenderID: buyer, BusinessID: "PO-4711", SHA256: shaHex([]byte("other bytes"))})
	require.Equal(t, 2, d.N, "Bob takes the next key")

	// Bob holds it now; a third plan gives up within the bound, and says why
	old := keyLockWait
	keyLockWait = 200 * time.Millisecond
	t.Cleanup(func() { keyLockWait = old })
	c := open(t, dsn, alice)
	require.NoError(t, c.db.PingContext(t.Context())) // its connection is open: the bound is the lock's
	err = c.lockKeys(t.Context(), "conn-a")
	require.Error(t, err)
	require.Contains(t, err.Error(), "held the team's key plan for more than 200ms; try again")
	keyLockWait = old // a loaded machine may need more than 200 ms to connect
	b.ReleaseKeys()
	require.NoError(t, c.lockKeys(t.Context(), "conn-a"), "released: the next plan gets it")
	require.NoError(t, c.Close(), "Close releases it too")
	require.NoError(t, a.lockKeys(t.Context(), "conn-a"))
	a.ReleaseKeys()
}
