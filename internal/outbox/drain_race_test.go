package outbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/fakeclock"
)

// gatedPing holds the pusher's first Ping until the gate opens.
type gatedPing struct {
	*fakeRemote
	gate chan struct{}
}

func (g *gatedPing) Ping(ctx context.Context) error {
	select {
	case <-g.gate:
	case <-ctx.Done():
	}
	return g.fakeRemote.Ping(ctx)
}

// TestDrainOfAPushedOutboxEnds: a pusher started on an outbox whose
// entries were all pushed (the ledger's cursor at the journal's end), with
// Drain already waiting when the pusher loads the ledger: Drain returns
// at once, and says nothing waits (an Outbox outlives its pushers: the
// entries it queued for an earlier one were counted as waiting, 6 of 10
// runs). The ledger's cursor now moves inside the update that wakes
// Drain, as a commit's does: set after it, a Drain woken in between
// waited for a change an outbox with nothing new never makes (`store
// push` run twice hung for its whole --wait in CI under load; this loop
// does not lose that race reliably enough to show it).
func TestDrainOfAPushedOutboxEnds(t *testing.T) {
	e := newEnv(t)
	queueDeliveries(t, e, 3)
	first := newFake()
	p := e.box.Start(t.Context(), pushOpts(first, fakeclock.New(time.Time{})))
	drain(t, p)
	p.Stop()
	require.Len(t, first.pushes(), 3)
	for i := range 200 {
		g := &gatedPing{fakeRemote: newFake(), gate: make(chan struct{})}
		p := e.box.Start(t.Context(), pushOpts(g, fakeclock.New(time.Time{})))
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		done := make(chan Status, 1)
		go func() { done <- p.Drain(ctx) }()
		time.Sleep(time.Millisecond) // Drain looks (cursor 0) and waits
		close(g.gate)
		var st Status
		ended := false
		select {
		case st = <-done:
			ended = ctx.Err() == nil
		case <-time.After(6 * time.Second):
		}
		cancel()
		p.Stop()
		require.True(t, ended, "round %d: Drain waited out its bound", i)
		require.Zero(t, st.Waiting, "round %d", i)
		require.Empty(t, g.pushes(), "round %d: nothing again", i)
	}
}
