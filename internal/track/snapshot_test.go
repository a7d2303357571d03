package track

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// A delivery indexed again (the app's update after a download while a
// tab's sync reads the same file) is never missing to a reader, find's
// or a tab's: the
// keys and the items they name are read in one statement. Read in two,
// the second found the items the first named deleted, and the tab
// showed a delivery just stored as "not downloaded yet" (the e2e demo
// walks failed on it about once in 15 runs under load).
func TestLinkedOfNeverMissesADeliveryIndexedAgain(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	uploaded(t, s, "conn-a", "ICR0001", "PO-4711", ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeAccepted)
	st := store(t, s, "conn-a", "d1", "CONTRL", contrl("CTL1", "ICR0001", false), t0.Add(time.Minute), false)
	x := openIndex(t, dir, &clock{t: t0.Add(time.Hour)}, nil)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	// a second Index on the same database, as the app's background
	// update opens its own
	y := openIndex(t, dir, &clock{t: t0.Add(time.Hour)}, nil)

	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			if err := y.IndexStored(ctx, dir, *st); err != nil && ctx.Err() == nil {
				t.Errorf("IndexStored: %v", err)
				return
			}
		}
	})
	defer func() { stop(); wg.Wait() }()
	// a few hundred reads (fewer under -race): the two-statement read
	// failed within the first ten
	for i, start := 0, time.Now(); i < 300 && time.Since(start) < 3*time.Second; i++ {
		// find (Match) and a tab's links (ByValues) alike
		found, err := x.Backend().Match(t.Context(), Match{Value: "d1", Kinds: []KeyKind{KeyID}, Conn: "conn-a"})
		require.NoError(t, err)
		require.Len(t, found, 1, "read %d: find misses the delivery re-indexed meanwhile", i)
		l, err := x.LinkedOf(t.Context(), s, "conn-a", []string{"d1"})
		require.NoError(t, err)
		_, ok := l.Delivery("d1")
		require.True(t, ok, "read %d: the delivery re-indexed meanwhile is missing", i)
	}
}
