package teamstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/outbox"
	"github.com/nutrab2b/b2bx/internal/testshared/pgtest"
	"github.com/nutrab2b/b2bx/internal/who"
)

// faultEnv is one machine's data directory: a spool whose writes its
// outbox queues, as fetch and upload have it.
type faultEnv struct {
	dir   string
	store *spool.Store
	box   *outbox.Outbox
}

func newFaultEnv(t *testing.T, dir string) *faultEnv {
	t.Helper()
	e := &faultEnv{dir: dir}
	var err error
	e.store, err = spool.Open(filepath.Join(dir, "spool"))
	require.NoError(t, err)
	e.box, err = outbox.Open(outbox.Dir(dir), outbox.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.box.Close() })
	e.box.Attach(e.store)
	return e
}

func (e *faultEnv) deliver(t *testing.T, conn, id string) {
	t.Helper()
	data := []byte("UNA:+.? 'UNB+UNOC:3+SENDER+RECIPIENT+260102:0304+" + id + "'")
	w, err := e.store.Begin(conn, id)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	_, err = w.Commit(spool.Meta{ConnectionID: conn, DeliveryAttemptID: id, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
	require.NoError(t, err)
}

// faultOpts push to the real team store with short retry waits (the
// outcome does not depend on them; every drain is bounded).
func faultOpts(r outbox.Remote) outbox.PushOptions {
	return outbox.PushOptions{Remote: r, By: alice, Poll: -1, MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, PushTimeout: 10 * time.Second}
}

func drainWithin(t *testing.T, p *outbox.Pusher, d time.Duration) outbox.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	return p.Drain(ctx)
}

// dbName is the database of a pgtest DSN.
func dbName(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	return strings.TrimPrefix(u.Path, "/")
}

// stopDatabase makes the database refuse connections and ends every
// session on it: to b2bx the server is gone. startDatabase undoes it.
func stopDatabase(t *testing.T, name string) {
	t.Helper()
	server := pgtest.Server(t)
	lit := "'" + strings.ReplaceAll(name, "'", "''") + "'"
	pgtest.Exec(t, server, `ALTER DATABASE `+pgx.Identifier{name}.Sanitize()+` ALLOW_CONNECTIONS false`,
		`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = `+lit+` AND pid <> pg_backend_pid()`)
}

func startDatabase(t *testing.T, name string) {
	t.Helper()
	pgtest.Exec(t, pgtest.Server(t), `ALTER DATABASE `+pgx.Identifier{name}.Sanitize()+` ALLOW_CONNECTIONS true`)
}

// rowsPer counts the rows of each delivery ID.
func rowsPer(t *testing.T, s *Store) map[string]int {
	t.Helper()
	rows, err := s.db.QueryContext(t.Context(), `SELECT delivery_id, count(*) FROM deliveries GROUP BY delivery_id`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		require.NoError(t, rows.Scan(&id, &n))
		out[id] = n
	}
	require.NoError(t, rows.Err())
	return out
}

// The real PostgreSQL stops answering mid-run (connections refused, its
// sessions ended): what is stored meanwhile waits in the outbox, the
// command that stored it ends with it still queued, and a later pusher
// (the next command) pushes all of it once the database is back: nothing
// lost, each delivery once.
func TestDatabaseStopsMidRunNothingLost(t *testing.T) {
	check, dsn := newStore(t, alice)
	name := dbName(t, dsn)
	t.Cleanup(func() { startDatabase(t, name) }) // before the drop
	e := newFaultEnv(t, t.TempDir())
	remote := NewRemote(Config{URL: dsn, By: alice})
	defer remote.Close()

	p := e.box.Start(t.Context(), faultOpts(remote))
	e.deliver(t, "conn-a", "da-1")
	e.deliver(t, "conn-a", "da-2")
	st := drainWithin(t, p, 30*time.Second)
	require.Zero(t, st.Waiting, "%+v", st)
	require.Equal(t, 2, count(t, check, "deliveries"))

	stopDatabase(t, name)
	for _, id := range []string{"da-3", "da-4", "da-5"} {
		e.deliver(t, "conn-a", id)
	}
	st = drainWithin(t, p, 500*time.Millisecond)
	require.Equal(t, 3, st.Waiting, "the outbox keeps what the database did not take: %+v", st)
	require.False(t, st.Reachable)
	require.NotEmpty(t, st.LastError)
	p.Stop() // the command ends while the database is down

	startDatabase(t, name)
	e.deliver(t, "conn-a", "da-6")
	p2 := e.box.Start(t.Context(), faultOpts(remote))
	defer p2.Stop()
	st = drainWithin(t, p2, 30*time.Second)
	require.Zero(t, st.Waiting, "drained once the database is back: %+v", st)
	require.True(t, st.Reachable)
	want := map[string]int{}
	for _, id := range []string{"da-1", "da-2", "da-3", "da-4", "da-5", "da-6"} {
		want[id] = 1
	}
	check = open(t, dsn, alice) // the old pool's sessions were ended with the others
	require.Equal(t, want, rowsPer(t, check), "nothing lost, nothing twice")
	require.Equal(t, 4, st.Pushed, "the next pusher pushes only what waited")
}

// killEnv names the child process's data directory and DSN.
const killEnv = "B2BX_TEAMSTORE_KILL_CHILD"

// stallingRemote pushes to the team store and, after its stallAfter-th
// delivery is in the database, never returns: the pusher is stuck
// between the push and its ledger line, where kill -9 finds it.
type stallingRemote struct {
	outbox.Remote // the interface only: one transaction per push, no Batch
	stallAfter    int64
	mark          string // a file written when it stalls
	n             atomic.Int64
}

func (r *stallingRemote) PushDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error {
	if err := r.Remote.PushDelivery(ctx, conn, st, payload, by); err != nil {
		return err
	}
	if r.n.Add(1) == r.stallAfter {
		_ = os.WriteFile(r.mark, []byte("stalled"), 0o600)
		select {} // until kill -9
	}
	return nil
}

// stallingBatcher is stallingRemote pushing in batches (what the outbox
// does with a backlog): it stalls inside the batch's transaction, before
// its commit.
type stallingBatcher struct {
	*Remote
	*stallingRemote
}

func (r *stallingBatcher) PushDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error {
	return r.stallingRemote.PushDelivery(ctx, conn, st, payload, by)
}

// PushCheckedDelivery stalls as PushDelivery does (else *Remote's would
// be promoted, and the pusher, which prefers it, would never stall).
func (r *stallingBatcher) PushCheckedDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error {
	return r.stallingRemote.PushDelivery(ctx, conn, st, payload, by)
}

func (r *stallingBatcher) Ping(ctx context.Context) error { return r.Remote.Ping(ctx) }
func (r *stallingBatcher) PushUpload(ctx context.Context, conn string, rec spool.UploadRecord, file []byte, by who.Who) error {
	return r.Remote.PushUpload(ctx, conn, rec, file, by)
}
func (r *stallingBatcher) PushSeen(ctx context.Context, conn string, rec spool.SeenRecord, by who.Who) error {
	return r.Remote.PushSeen(ctx, conn, rec, by)
}
func (r *stallingBatcher) PushCapture(ctx context.Context, name string, capture []byte, by who.Who) error {
	return r.Remote.PushCapture(ctx, name, capture, by)
}

// countingRemote counts the deliveries it pushes.
type countingRemote struct {
	*Remote
	n atomic.Int64
}

func (r *countingRemote) PushDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error {
	r.n.Add(1)
	return r.Remote.PushDelivery(ctx, conn, st, payload, by)
}

// PushCheckedDelivery is what the pusher calls (outbox.CheckedPusher).
func (r *countingRemote) PushCheckedDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error {
	r.n.Add(1)
	return r.Remote.PushCheckedDelivery(ctx, conn, st, payload, by)
}

// TestKillNineChild is the pushing process TestKillNineDuringAPush kills.
func TestKillNineChild(t *testing.T) {
	v := os.Getenv(killEnv)
	if v == "" {
		t.Skip("the child process of TestKillNineDuringAPush")
	}
	parts := strings.SplitN(v, "\n", 3)
	require.Len(t, parts, 3)
	dir, dsn, mode := parts[0], parts[1], parts[2]
	box, err := outbox.Open(outbox.Dir(dir), outbox.Options{})
	require.NoError(t, err)
	remote := NewRemote(Config{URL: dsn, By: alice})
	stall := &stallingRemote{Remote: remote, stallAfter: 10, mark: filepath.Join(dir, "stalled")}
	var r outbox.Remote = stall
	if mode == "batch" {
		r = &stallingBatcher{Remote: remote, stallingRemote: stall}
	}
	p := box.Start(context.Background(), faultOpts(r))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p.Drain(ctx)
	t.Fatal("the parent should have killed this process")
}

// kill -9 of a pusher after the team store took a delivery and before
// its ledger line: the next pusher pushes that one again (deduplicated
// by the database) and nothing else twice; the team store holds every
// delivery exactly once. Pushed in a batch, the kill comes inside the
// batch's transaction: nothing of it is in the database, and the next
// pusher pushes all of them, once.
func TestKillNineDuringAPush(t *testing.T) {
	for _, c := range []struct {
		mode             string
		inDB, nextPushes int
	}{
		{"single", 10, 30 - 10 + 1},
		{"batch", 0, 30},
	} {
		t.Run(c.mode, func(t *testing.T) { killNineDuringAPush(t, c.mode, c.inDB, c.nextPushes) })
	}
}

func killNineDuringAPush(t *testing.T, mode string, inDB, nextPushes int) {
	check, dsn := newStore(t, alice)
	dir := t.TempDir()
	e := newFaultEnv(t, dir)
	const total = 30
	for i := range total {
		e.deliver(t, "conn-a", "da-"+twoDigits(i))
	}
	require.NoError(t, e.box.Close())

	cmd := exec.Command(os.Args[0], "-test.run=^TestKillNineChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), killEnv+"="+dir+"\n"+dsn+"\n"+mode)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	for stalled := false; !stalled; {
		select {
		case err := <-exited:
			t.Fatalf("the child ended before it stalled (%v):\n%s", err, out)
		case <-deadline:
			_ = cmd.Process.Kill()
			<-exited
			t.Fatalf("the child did not stall within 60 s:\n%s", out)
		case <-time.After(20 * time.Millisecond):
			_, err := os.Stat(filepath.Join(dir, "stalled"))
			stalled = err == nil
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	<-exited
	require.Equal(t, inDB, count(t, check, "deliveries"), "what was committed when it died")

	box, err := outbox.Open(outbox.Dir(dir), outbox.Options{})
	require.NoError(t, err)
	defer box.Close()
	r := &countingRemote{Remote: NewRemote(Config{URL: dsn, By: alice})}
	defer r.Close()
	p := box.Start(t.Context(), faultOpts(r))
	defer p.Stop()
	st := drainWithin(t, p, 30*time.Second)
	require.Zero(t, st.Waiting, "%+v", st)
	require.EqualValues(t, nextPushes, r.n.Load(), "the restarted pusher pushes what was left and the one whose ledger line the kill took, nothing else")
	per := rowsPer(t, check)
	require.Len(t, per, total)
	for id, n := range per {
		require.Equal(t, 1, n, id)
	}
}

func twoDigits(i int) string { return string([]byte{byte('0' + i/10), byte('0' + i%10)}) }
