package teamstore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBatchLandsAllOrNothing: the pushes of one Batch share a
// transaction: one failing (a payload that does not match its sidecar)
// leaves none of them in the team store, index rows included; the same
// batch without it lands every delivery with its index items, once.
func TestBatchLandsAllOrNothing(t *testing.T) {
	s, _ := newStore(t, alice)
	good := contrl("CTL1", "ICR0001", false)
	other := contrl("CTL2", "ICR0002", false)
	st1 := delivery("conn-a", "d-1", "CONTRL", good, t0, false)
	st2 := delivery("conn-a", "d-2", "CONTRL", other, t0.Add(time.Minute), false)
	bad := delivery("conn-a", "d-3", "CONTRL", good, t0, false)

	err := s.Batch(t.Context(), func(ctx context.Context) error {
		require.NoError(t, s.PushDelivery(ctx, "conn-a", st1, good, alice))
		require.NoError(t, s.PushDelivery(ctx, "conn-a", st2, other, alice))
		return s.PushDelivery(ctx, "conn-a", bad, other, alice) // other's bytes under d-3's SHA-256
	})
	require.ErrorIs(t, err, ErrMismatch)
	require.Zero(t, count(t, s, "deliveries"), "a failed batch lands nothing")
	require.Zero(t, count(t, s, "blobs"))
	require.Zero(t, count(t, s, "track_items"))

	for range 2 { // and again: idempotent inside a batch as outside
		require.NoError(t, s.Batch(t.Context(), func(ctx context.Context) error {
			if err := s.PushDelivery(ctx, "conn-a", st1, good, alice); err != nil {
				return err
			}
			return s.PushDelivery(ctx, "conn-a", st2, other, alice)
		}))
	}
	require.Equal(t, 2, count(t, s, "deliveries"))
	require.Equal(t, 2, count(t, s, "track_items"))
	require.Len(t, find(t, s, "d-2").Conversations, 1)
}

// TestRemoteBatches: the outbox's Remote batches through the store it
// opens on first use.
func TestRemoteBatches(t *testing.T) {
	_, dsn := newStore(t, alice)
	r := NewRemote(Config{URL: dsn, By: alice})
	defer r.Close()
	data := contrl("CTL1", "ICR0001", false)
	require.NoError(t, r.Batch(t.Context(), func(ctx context.Context) error {
		return r.PushDelivery(ctx, "conn-a", delivery("conn-a", "d-1", "CONTRL", data, t0, false), data, alice)
	}))
	s := open(t, dsn, bob)
	require.Equal(t, 1, count(t, s, "deliveries"))
}
