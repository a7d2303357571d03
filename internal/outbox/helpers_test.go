package outbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/fakeclock"
	"github.com/nutrab2b/b2bx/internal/who"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// canaryPassword must never show in a status or a warning.
const canaryPassword = "hunter2-canary"

// errDown is what the fake team store answers while it is down: an
// error text with a password in it, as a careless driver might write.
var errDown = fmt.Errorf("dial postgres://bob:%s@db.example:5432/team: connection refused (password=%s)", canaryPassword, canaryPassword)

// fakeRemote records every push in order; while down every call fails.
type fakeRemote struct {
	mu    sync.Mutex
	down  bool
	got   []string       // one line per successful push, in order
	count map[string]int // pushes per line
	pings int
	files map[string][]byte
}

func newFake() *fakeRemote { return &fakeRemote{count: map[string]int{}, files: map[string][]byte{}} }

func (f *fakeRemote) setDown(d bool) {
	f.mu.Lock()
	f.down = d
	f.mu.Unlock()
}

func (f *fakeRemote) call(line string, body []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return errDown
	}
	if f.count[line] == 0 {
		f.got = append(f.got, line)
	}
	f.count[line]++
	f.files[line] = body
	return nil
}

func (f *fakeRemote) pushes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.got...)
}

func (f *fakeRemote) times(line string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.count[line]
}

func (f *fakeRemote) Ping(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pings++
	if f.down {
		return errDown
	}
	return nil
}

func (f *fakeRemote) PushDelivery(_ context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error {
	sum := sha256.Sum256(payload)
	if hex.EncodeToString(sum[:]) != st.Meta.SHA256 {
		return errors.New("payload does not match its SHA-256")
	}
	return f.call(fmt.Sprintf("delivery %s %s receipt=%s by=%s", conn, st.Meta.DeliveryAttemptID, st.Meta.ReceiptID, by), payload)
}

func (f *fakeRemote) PushUpload(_ context.Context, conn string, rec spool.UploadRecord, file []byte, _ who.Who) error {
	return f.call(fmt.Sprintf("upload %s %s %s file=%t", conn, rec.Key, rec.Outcome, file != nil), file)
}

func (f *fakeRemote) PushSeen(_ context.Context, conn string, rec spool.SeenRecord, _ who.Who) error {
	return f.call(fmt.Sprintf("seen %s %s %s", conn, rec.DeliveryAttemptID, rec.State), nil)
}

func (f *fakeRemote) PushCapture(_ context.Context, name string, capture []byte, _ who.Who) error {
	return f.call("capture "+filepath.Base(name), capture)
}

// gatedClock is a fakeclock whose waits the test watches: each After
// hands its duration to waits (so the test knows the pusher is waiting
// and its status is stable), then passes at once.
type gatedClock struct {
	*fakeclock.Clock
	waits chan time.Duration
	stop  chan struct{}
	once  sync.Once
}

func newGated(t *testing.T) *gatedClock {
	g := &gatedClock{Clock: fakeclock.New(time.Time{}), waits: make(chan time.Duration), stop: make(chan struct{})}
	t.Cleanup(g.release)
	return g
}

// release lets every wait from now on pass without the test watching.
func (g *gatedClock) release() { g.once.Do(func() { close(g.stop) }) }

func (g *gatedClock) After(d time.Duration) <-chan time.Time {
	select {
	case g.waits <- d:
	case <-g.stop:
	}
	return g.Clock.After(d)
}

// next is the next wait the pusher starts.
func (g *gatedClock) next(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-g.waits:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("the pusher did not wait")
		return 0
	}
}

var alice = who.Who{User: "alice", Host: "host-3"}

// pushOpts are the test pusher's options: no polling (Enqueue wakes it),
// no lingering.
func pushOpts(r Remote, c Clock) PushOptions {
	return PushOptions{Remote: r, By: alice, Clock: c, Poll: -1, Linger: -1, MinBackoff: time.Second, MaxBackoff: 4 * time.Second}
}

// drain drains p with a bound and fails when something still waits.
func drain(t *testing.T, p *Pusher) Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	st := p.Drain(ctx)
	require.Zero(t, st.Waiting, "still waiting after the drain: %+v", st)
	return st
}

// env is a spool with an outbox attached.
type env struct {
	dir   string
	store *spool.Store
	box   *Outbox
	warns []string
	mu    sync.Mutex
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{dir: t.TempDir()}
	var err error
	e.store, err = spool.Open(filepath.Join(e.dir, "spool"))
	require.NoError(t, err)
	e.box = e.open(t)
	e.box.Attach(e.store)
	return e
}

func (e *env) open(t *testing.T) *Outbox {
	t.Helper()
	box, err := Open(Dir(e.dir), Options{Warn: e.warn})
	require.NoError(t, err)
	t.Cleanup(func() { _ = box.Close() })
	return box
}

func (e *env) warn(s string) {
	e.mu.Lock()
	e.warns = append(e.warns, s)
	e.mu.Unlock()
}

func (e *env) warnings() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.warns...)
}

// deliver stores a delivery the way the worker does.
func (e *env) deliver(t *testing.T, conn, id string) *spool.Stored {
	t.Helper()
	data := []byte("UNA:+.? 'UNB+UNOC:3+SENDER+RECIPIENT+260102:0304+" + id + "'")
	w, err := e.store.Begin(conn, id)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	st, err := w.Commit(spool.Meta{ConnectionID: conn, DeliveryAttemptID: id, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
	require.NoError(t, err)
	return st
}

func (e *env) ack(t *testing.T, conn, id, receipt string) {
	t.Helper()
	_, err := e.store.MarkAcknowledged(conn, id, receipt, fakeclock.Start)
	require.NoError(t, err)
}
