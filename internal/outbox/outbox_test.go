package outbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/fakeclock"
)

// everything stores one of each kind, the way the worker, the upload
// command and `event listen` write them.
func everything(t *testing.T, e *env) {
	t.Helper()
	e.deliver(t, "conn-a", "da-1")
	e.deliver(t, "conn-a", "da-2")
	e.ack(t, "conn-a", "da-1", "rcpt-1")
	sent := []byte("UNA:+.? 'UNB+UNOC:3+ME+PARTNER'ORDERS")
	_, err := e.store.KeepSent("conn-a", sent)
	require.NoError(t, err)
	require.NoError(t, e.store.AppendUpload(spool.UploadRecord{ConnectionID: "conn-a", Key: "k:PO-1:orders:1", SHA256: sha(sent), Outcome: spool.OutcomeAccepted}))
	require.NoError(t, e.store.NoteSeen(spool.SeenRecord{ConnectionID: "conn-a", DeliveryAttemptID: "da-9", State: spool.SeenRefused}))
	capDir := filepath.Join(e.dir, "captures")
	require.NoError(t, os.MkdirAll(capDir, 0o700))
	capFile := filepath.Join(capDir, "000000000001.http")
	require.NoError(t, os.WriteFile(capFile, []byte("POST /hook HTTP/1.1\r\n\r\n{}"), 0o600))
	e.box.Enqueue(CaptureEntry(capFile))
}

var everythingPushed = []string{
	"delivery conn-a da-1 receipt=rcpt-1 by=alice on host-3", // the stored entry pushes the state now: acknowledged
	"delivery conn-a da-2 receipt= by=alice on host-3",
	"upload conn-a k:PO-1:orders:1 accepted file=true",
	"seen conn-a da-9 refused",
	"capture 000000000001.http",
}

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestHookQueuesAndPusherPushesInOrder: what the spool writes is queued
// by its hook and pushed in order, each state once (the receipt entry
// of da-1 finds its state already pushed), with the payload read from
// the spool; nothing waits after the drain.
func TestHookQueuesAndPusherPushesInOrder(t *testing.T) {
	e := newEnv(t)
	everything(t, e)
	assert.EqualValues(t, 6, e.box.Queued(), "two deliveries, one receipt, an upload, a seen line, a capture")
	r := newFake()
	p := e.box.Start(t.Context(), pushOpts(r, fakeclock.New(time.Time{})))
	defer p.Stop()
	st := drain(t, p)
	assert.Equal(t, everythingPushed, r.pushes())
	assert.Equal(t, 5, st.Pushed)
	assert.True(t, st.Known && st.Reachable)
	assert.Equal(t, fakeclock.Start, st.LastPush)
	assert.Equal(t, "team store: all pushed", st.Short())

	// the journal references, it does not copy: no payload bytes in it
	j, err := os.ReadFile(filepath.Join(Dir(e.dir), journalName))
	require.NoError(t, err)
	assert.NotContains(t, string(j), "UNB+UNOC")

	// a later write is pushed by the running pusher
	e.ack(t, "conn-a", "da-2", "rcpt-2")
	drain(t, p)
	assert.Equal(t, 1, r.times("delivery conn-a da-2 receipt=rcpt-2 by=alice on host-3"))
	assert.Equal(t, 1, r.times(everythingPushed[0]), "nothing twice")
}

// TestRemoteDownMidRunNothingLostInOrder: the team store goes away
// after two pushes; the pusher says since when and why (without the
// password), waits 1 s, 2 s, 4 s, 4 s (bounded), and when it is back
// pushes the rest in order, nothing lost, nothing twice.
func TestRemoteDownMidRunNothingLostInOrder(t *testing.T) {
	e := newEnv(t)
	e.deliver(t, "c", "da-1")
	e.deliver(t, "c", "da-2")
	r := newFake()
	clk := newGated(t)
	p := e.box.Start(t.Context(), pushOpts(r, clk))
	defer p.Stop()
	drain(t, p)

	r.setDown(true)
	down := clk.Now()
	for _, id := range []string{"da-3", "da-4", "da-5"} {
		e.deliver(t, "c", id)
	}
	var waits []time.Duration
	for range 4 {
		waits = append(waits, clk.next(t))
	}
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}, waits)
	st := p.Status()
	assert.Equal(t, 3, st.Waiting)
	assert.False(t, st.Reachable)
	assert.Equal(t, down, st.UnreachableSince, "since the first failure, not the last")
	assert.Equal(t, "team store: 3 waiting, unreachable since "+down.Local().Format("15:04"), st.Short())
	assert.Contains(t, st.LastError, "connection refused")
	for _, s := range []string{st.LastError, st.Short(), FormatStatus(st)} {
		assert.NotContains(t, s, canaryPassword)
	}

	r.setDown(false)
	clk.release() // let the waits pass from here on
	st = drain(t, p)
	assert.True(t, st.Reachable)
	assert.True(t, st.UnreachableSince.IsZero())
	var want []string
	for _, id := range []string{"da-1", "da-2", "da-3", "da-4", "da-5"} {
		want = append(want, "delivery c "+id+" receipt= by=alice on host-3")
	}
	assert.Equal(t, want, r.pushes())
	for _, w := range want {
		assert.Equal(t, 1, r.times(w), w)
	}
}

// TestCrashBetweenPushAndCursorCommit: a pusher dies (its goroutine
// abandoned) after the team store took an entry and before the ledger
// line; the next pusher pushes that entry again (harmless: the remote
// dedups) and nothing it had committed, and by the ledger's account
// every state was pushed once.
func TestCrashBetweenPushAndCursorCommit(t *testing.T) {
	e := newEnv(t)
	for _, id := range []string{"da-1", "da-2", "da-3"} {
		e.deliver(t, "c", id)
	}
	r := newFake()
	opts := pushOpts(r, fakeclock.New(time.Time{}))
	n := 0
	opts.afterPush = func() {
		if n++; n == 2 {
			runtime.Goexit() // the crash: the remote has da-2, the ledger does not
		}
	}
	p := e.box.Start(t.Context(), opts)
	<-p.Done()
	p.Stop()
	assert.Equal(t, 1, r.times("delivery c da-2 receipt= by=alice on host-3"))

	box := e.open(t) // the next process
	p2 := box.Start(t.Context(), pushOpts(r, fakeclock.New(time.Time{})))
	defer p2.Stop()
	st := drain(t, p2)
	assert.Equal(t, 2, st.Pushed, "da-2 again and da-3")
	assert.Equal(t, 1, r.times("delivery c da-1 receipt= by=alice on host-3"), "committed: not pushed again")
	assert.Equal(t, 2, r.times("delivery c da-2 receipt= by=alice on host-3"), "the one in flight: pushed again, harmlessly")
	assert.Equal(t, 1, r.times("delivery c da-3 receipt= by=alice on host-3"))
	ids := ledgerIDs(t, e.dir)
	assert.Len(t, ids, 3)
	for id, n := range ids {
		assert.Equal(t, 1, n, "identity %s in the ledger once", id)
	}
}

func ledgerIDs(t *testing.T, dir string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(dir), ledgerName))
	require.NoError(t, err)
	ids := map[string]int{}
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		var ll ledgerLine
		if json.Unmarshal(l, &ll) == nil && ll.ID != "" {
			ids[ll.ID]++
		}
	}
	return ids
}

// TestTornJournalTailIsRepaired: a journal whose last line was torn by
// a crash gets its line ended when it is opened, so the next entry is
// whole; an entry glued onto a torn piece by a process that did not
// reopen is recovered; a torn ledger line is cut.
func TestTornJournalTailIsRepaired(t *testing.T) {
	e := newEnv(t)
	e.deliver(t, "c", "da-1")
	require.NoError(t, e.box.Close())
	jp := filepath.Join(Dir(e.dir), journalName)
	f, err := os.OpenFile(jp, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"kind":"delivery","root":"/x","co`) // the crash
	require.NoError(t, err)
	require.NoError(t, f.Close())

	box := e.open(t)
	box.Attach(e.store)
	e.deliver(t, "c", "da-2")
	b, err := os.ReadFile(jp)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.Len(t, lines, 3)
	assert.True(t, json.Valid([]byte(lines[2])), "the new entry starts on its own line: %s", lines[2])

	// glued: a torn piece followed directly by a whole entry
	line, err := json.Marshal(DeliveryEntry(e.store.Root(), e.deliverQuiet(t, box, "c", "da-3")))
	require.NoError(t, err)
	f, err = os.OpenFile(jp, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write(append([]byte(`{"kind":"seen","ro`), append(line, '\n')...))
	require.NoError(t, err)
	require.NoError(t, f.Close())

	// a ledger with a torn last line
	lp := filepath.Join(Dir(e.dir), ledgerName)
	require.NoError(t, os.WriteFile(lp, []byte(`{"id":"torn","ne`), 0o600))

	r := newFake()
	p := box.Start(t.Context(), pushOpts(r, fakeclock.New(time.Time{})))
	defer p.Stop()
	drain(t, p)
	assert.Equal(t, []string{
		"delivery c da-1 receipt= by=alice on host-3",
		"delivery c da-2 receipt= by=alice on host-3",
		"delivery c da-3 receipt= by=alice on host-3",
	}, r.pushes())
	lb, err := os.ReadFile(lp)
	require.NoError(t, err)
	assert.NotContains(t, string(lb), "torn")
	for _, l := range strings.Split(strings.TrimSuffix(string(lb), "\n"), "\n") {
		assert.True(t, json.Valid([]byte(l)), l)
	}
}

// deliverQuiet stores a delivery without the hook (its entry is written
// by hand).
func (e *env) deliverQuiet(t *testing.T, box *Outbox, conn, id string) *spool.Stored {
	t.Helper()
	e.store.SetOnWrite(nil)
	defer box.Attach(e.store)
	return e.deliver(t, conn, id)
}

// TestFullDiskEnqueueReportsOnceLocalPathSucceeds: with the journal on
// a full disk (/dev/full answers every write with ENOSPC) the deliveries
// are still stored, the outbox warns once and counts what it dropped.
func TestFullDiskEnqueueReportsOnceLocalPathSucceeds(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	e := &env{dir: t.TempDir()}
	var err error
	e.store, err = spool.Open(filepath.Join(e.dir, "spool"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(Dir(e.dir), 0o700))
	require.NoError(t, os.Symlink("/dev/full", filepath.Join(Dir(e.dir), journalName)))
	e.box = e.open(t)
	e.box.Attach(e.store)
	for _, id := range []string{"da-1", "da-2", "da-3"} {
		st := e.deliver(t, "c", id) // the local write succeeds
		_, err := os.Stat(st.Path)
		require.NoError(t, err)
	}
	e.ack(t, "c", "da-1", "r")
	w := e.warnings()
	require.Len(t, w, 1, "one report, not one per entry: %q", w)
	assert.Contains(t, w[0], "no space left on device")
	assert.Contains(t, w[0], "b2bx store push")
	assert.EqualValues(t, 4, e.box.Dropped())
	assert.Zero(t, e.box.Queued())
}

// TestStorePushTwiceQueuesNothingNew: EnqueueAll finds everything in the
// spool roots and capture directories; a second run queues nothing and
// pushes nothing; a receipt recorded since (without a hook) is found as
// a new state and pushed once.
func TestStorePushTwiceQueuesNothingNew(t *testing.T) {
	e := newEnv(t)
	everything(t, e)
	e.store.SetOnWrite(nil) // a machine before the team store: nothing queued yet
	_ = e.box.Close()
	require.NoError(t, os.Remove(filepath.Join(Dir(e.dir), journalName)))
	box := e.open(t)

	roots := []string{e.store.Root(), filepath.Join(e.dir, "missing")}
	caps := []string{filepath.Join(e.dir, "captures"), filepath.Join(e.dir, "no-captures")}
	f, err := box.EnqueueAll(t.Context(), roots, caps)
	require.NoError(t, err)
	assert.Equal(t, Found{Deliveries: 2, Uploads: 1, Seen: 1, Captures: 1, Queued: 5}, f)
	r := newFake()
	p := box.Start(t.Context(), pushOpts(r, fakeclock.New(time.Time{})))
	drain(t, p)
	p.Stop()
	assert.Equal(t, everythingPushed, r.pushes())

	f, err = box.EnqueueAll(t.Context(), roots, caps)
	require.NoError(t, err)
	assert.Zero(t, f.Queued, "the second run queues nothing")
	e.ack(t, "conn-a", "da-2", "rcpt-2")
	f, err = box.EnqueueAll(t.Context(), roots, caps)
	require.NoError(t, err)
	assert.Equal(t, 1, f.Queued, "the receipt is a new state")
	p = box.Start(t.Context(), pushOpts(r, fakeclock.New(time.Time{})))
	st := drain(t, p)
	p.Stop()
	assert.Equal(t, 1, st.Pushed)
	for _, l := range everythingPushed {
		assert.Equal(t, 1, r.times(l), l)
	}
	assert.Equal(t, 1, r.times("delivery conn-a da-2 receipt=rcpt-2 by=alice on host-3"))
}

// TestHashedConnectionDirectoryIsFound: a connection whose ID is not a
// plain file name lives in a hash-named directory; EnqueueAll reads its
// ID from the sidecar.
func TestHashedConnectionDirectoryIsFound(t *testing.T) {
	e := newEnv(t)
	e.store.SetOnWrite(nil)
	e.deliver(t, "conn/with slash", "da-1")
	f, err := e.box.EnqueueAll(t.Context(), []string{e.store.Root()}, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, f.Queued)
}

// TestPusherStopsOnCancelWhileDown: cancelling the context
// stops the pusher (goleak checks at the end), even while the team
// store is down and it is waiting to retry.
func TestPusherStopsOnCancelWhileDown(t *testing.T) {
	e := newEnv(t)
	e.deliver(t, "c", "da-1")
	r := newFake()
	r.setDown(true)
	clk := newGated(t)
	p := e.box.Start(t.Context(), pushOpts(r, clk))
	assert.Equal(t, time.Second, clk.next(t))
	clk.release()
	p.Stop()
	assert.Empty(t, r.pushes())
	st := p.Status()
	assert.Equal(t, 1, st.Waiting)
	assert.False(t, st.Reachable)
}

// TestSecondPusherLeavesItToTheFirst: two processes on one data
// directory: the second sees the lock held and reports the entries as
// waiting for the other, pushing nothing itself.
func TestSecondPusherLeavesItToTheFirst(t *testing.T) {
	e := newEnv(t)
	release, ok, err := tryLock(filepath.Join(Dir(e.dir), lockName))
	require.NoError(t, err)
	require.True(t, ok)
	e.deliver(t, "c", "da-1")
	r := newFake()
	p := e.box.Start(t.Context(), pushOpts(r, fakeclock.New(time.Time{})))
	st := p.Drain(t.Context()) // returns at once: the other one pushes
	assert.True(t, st.Elsewhere)
	assert.Equal(t, 1, st.Waiting)
	assert.Contains(t, st.Short(), "pushed by another b2bx here")
	assert.Empty(t, r.pushes())
	p.Stop()
	release()
}
