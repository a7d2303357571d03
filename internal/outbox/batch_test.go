package outbox

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/fakeclock"
	"github.com/nutrab2b/b2bx/internal/who"
)

// batchFake is a team store that takes several pushes in one
// transaction: what a failed batch pushed is rolled back, as the
// database does.
type batchFake struct {
	*fakeRemote
	bmu      sync.Mutex
	sizes    []int // new pushes per committed batch
	failNext int   // batches still to fail after their pushes (a deadlock, a lost connection at COMMIT)
}

func (b *batchFake) Batch(ctx context.Context, fn func(ctx context.Context) error) error {
	f := b.fakeRemote
	f.mu.Lock()
	got, count, files := append([]string(nil), f.got...), maps.Clone(f.count), maps.Clone(f.files)
	f.mu.Unlock()
	err := fn(ctx)
	b.bmu.Lock()
	if err == nil && b.failNext > 0 {
		b.failNext--
		err = errors.New("deadlock detected")
	}
	b.bmu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.got, f.count, f.files = got, count, files
		return err
	}
	b.bmu.Lock()
	b.sizes = append(b.sizes, len(f.got)-len(got))
	b.bmu.Unlock()
	return nil
}

func (b *batchFake) batches() []int {
	b.bmu.Lock()
	defer b.bmu.Unlock()
	return append([]int(nil), b.sizes...)
}

// queueDeliveries stores n deliveries on connection c (each queued by
// the spool's hook) and returns the pushes they stand for, in order.
func queueDeliveries(t *testing.T, e *env, n int) []string {
	t.Helper()
	var want []string
	for i := range n {
		id := fmt.Sprintf("da-%03d", i)
		e.deliver(t, "c", id)
		want = append(want, "delivery c "+id+" receipt= by=alice on host-3")
	}
	return want
}

// TestQueuedEntriesArePushedInBatches: what waits is pushed maxBatch at
// a time, one transaction each, in order, each once.
func TestQueuedEntriesArePushedInBatches(t *testing.T) {
	e := newEnv(t)
	want := queueDeliveries(t, e, 150)
	r := &batchFake{fakeRemote: newFake()}
	p := e.box.Start(t.Context(), pushOpts(r, fakeclock.New(time.Time{})))
	defer p.Stop()
	st := drain(t, p)
	assert.Equal(t, 150, st.Pushed)
	assert.Equal(t, want, r.pushes())
	assert.Equal(t, []int{maxBatch, maxBatch, 150 - 2*maxBatch}, r.batches())
	for _, w := range want {
		require.Equal(t, 1, r.times(w), w)
	}
}

// TestFailedBatchIsPushedOneByOne: a batch the team store rolls back
// lands nothing; its entries are then pushed one by one, and the rest in
// batches again: in order, nothing lost, nothing twice.
func TestFailedBatchIsPushedOneByOne(t *testing.T) {
	e := newEnv(t)
	want := queueDeliveries(t, e, 100)
	r := &batchFake{fakeRemote: newFake(), failNext: 1}
	p := e.box.Start(t.Context(), pushOpts(r, fakeclock.New(time.Time{})))
	defer p.Stop()
	st := drain(t, p)
	assert.Equal(t, 100, st.Pushed)
	assert.Equal(t, want, r.pushes())
	assert.Equal(t, []int{100 - maxBatch}, r.batches(), "the first batch failed and went one by one; the rest in one batch")
	for _, w := range want {
		require.Equal(t, 1, r.times(w), w)
	}
}

// TestBatchStopsBeforeAnEntryThatCannotBePrepared: a delivery whose
// sidecar is gone cannot be prepared: the batch ends before it, it is
// skipped on its own (and said), and the entries after it go in a batch.
func TestBatchStopsBeforeAnEntryThatCannotBePrepared(t *testing.T) {
	e := newEnv(t)
	want := queueDeliveries(t, e, 5)
	st, err := e.store.Lookup("c", "da-002")
	require.NoError(t, err)
	require.NoError(t, os.Remove(st.Path))
	require.NoError(t, os.Remove(strings.TrimSuffix(st.Path, filepath.Ext(st.Path))+".json"))
	r := &batchFake{fakeRemote: newFake()}
	drainWarned(t, e, r)
	assert.Equal(t, slices.Concat(want[:2], want[3:]), r.pushes())
	assert.Equal(t, []int{2, 2}, r.batches())
	requireSaid(t, e, "da-002")
}

// TestSkippedEntryInsideABatch: a payload that no longer matches its
// SHA-256 is found while the batch runs; the batch is rolled back, its
// entries go one by one, the damaged one is skipped (and said), nothing
// else is lost or doubled.
func TestSkippedEntryInsideABatch(t *testing.T) {
	e := newEnv(t)
	want := queueDeliveries(t, e, 5)
	st, err := e.store.Lookup("c", "da-003")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(st.Path, []byte("damaged"), 0o600))
	r := &batchFake{fakeRemote: newFake()}
	drainWarned(t, e, r)
	assert.Equal(t, slices.Concat(want[:3], want[4:]), r.pushes())
	assert.Empty(t, r.batches(), "the batch was rolled back")
	for _, w := range r.pushes() {
		require.Equal(t, 1, r.times(w), w)
	}
	requireSaid(t, e, "da-003")
}

// drainWarned pushes everything queued in e to r, with the pusher's
// warnings kept in e (requireSaid), and stops the pusher.
func drainWarned(t *testing.T, e *env, r Remote) {
	t.Helper()
	opts := pushOpts(r, fakeclock.New(time.Time{}))
	opts.Warn = e.warn
	p := e.box.Start(t.Context(), opts)
	defer p.Stop()
	drain(t, p)
}

func requireSaid(t *testing.T, e *env, id string) {
	t.Helper()
	for _, w := range e.warnings() {
		if strings.Contains(w, "not pushed") && strings.Contains(w, id) {
			return
		}
	}
	t.Fatalf("no warning names %s: %v", id, e.warnings())
}

// TestPusherLingersUntilDrained: entries stored one after another are
// left to gather for Linger, so one round (one batch, one journal and
// ledger fsync) takes them all; Drain does not wait for it.
func TestPusherLingersUntilDrained(t *testing.T) {
	e := newEnv(t)
	r := &batchFake{fakeRemote: newFake()}
	opts := pushOpts(r, fakeclock.New(time.Time{}))
	opts.Linger = time.Hour
	rounds := make(chan struct{}, 8)
	opts.afterRound = func() { rounds <- struct{}{} }
	p := e.box.Start(t.Context(), opts)
	defer p.Stop()
	select { // the first round (nothing queued yet) is over: what is queued now wakes a pusher that lingers
	case <-rounds:
	case <-time.After(10 * time.Second):
		t.Fatal("no first round")
	}
	want := queueDeliveries(t, e, 5)
	time.Sleep(50 * time.Millisecond) // time for a pusher that did not linger to push
	assert.Empty(t, r.pushes(), "pushed before the linger ended")
	began := time.Now()
	drain(t, p)
	assert.Less(t, time.Since(began), 10*time.Second, "Drain did not wait for the linger")
	assert.Equal(t, want, r.pushes())
	assert.Equal(t, []int{5}, r.batches(), "one batch for what gathered")
}

// checkedFake takes deliveries the pusher checked (CheckedPusher): the
// payload is the sidecar's, or the pusher would have skipped it.
type checkedFake struct {
	*fakeRemote
	checked atomic.Int64
}

func (f *checkedFake) PushCheckedDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error {
	f.checked.Add(1)
	return f.PushDelivery(ctx, conn, st, payload, by)
}

// TestCheckedDeliveriesAreHashedOnce: a Remote that takes checked
// deliveries gets every delivery through PushCheckedDelivery (the
// pusher hashed it); a payload that no longer matches its sidecar, in
// bytes or in size, is skipped before it, and said.
func TestCheckedDeliveriesAreHashedOnce(t *testing.T) {
	e := newEnv(t)
	want := queueDeliveries(t, e, 4)
	for _, id := range []string{"da-001", "da-002"} {
		st, err := e.store.Lookup("c", id)
		require.NoError(t, err)
		b, err := os.ReadFile(st.Path)
		require.NoError(t, err)
		if id == "da-001" {
			b[len(b)/2] ^= 1 // same size, other bytes
		} else {
			b = append(b, '\n') // other size
		}
		require.NoError(t, os.WriteFile(st.Path, b, 0o600))
	}
	r := &checkedFake{fakeRemote: newFake()}
	drainWarned(t, e, r)
	assert.Equal(t, []string{want[0], want[3]}, r.pushes())
	assert.EqualValues(t, 2, r.checked.Load(), "both through PushCheckedDelivery")
	requireSaid(t, e, "da-001")
	requireSaid(t, e, "da-002")
}
