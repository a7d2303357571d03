package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/outbox"
	"github.com/nutrab2b/b2bx/internal/syncbuf"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/internal/who"
	"github.com/nutrab2b/b2bx/tui"
)

// teamPassword must never reach an output.
const teamPassword = "pg-canary-pass"

// fakeTeam is a team store in memory: the latest state per delivery,
// the number of pushes per thing.
type fakeTeam struct {
	mu       sync.Mutex
	down     bool
	receipts map[string]string // delivery ID → receipt pushed last
	pushes   map[string]int    // "kind id" → pushes
	by       who.Who
}

func newFakeTeam() *fakeTeam {
	return &fakeTeam{receipts: map[string]string{}, pushes: map[string]int{}}
}

var errTeamDown = errors.New("connect postgres://b2bx:" + teamPassword + "@db:5432/team: connection refused")

func (f *fakeTeam) ok(key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return errTeamDown
	}
	f.pushes[key]++
	return nil
}

func (f *fakeTeam) Ping(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return errTeamDown
	}
	return nil
}

func (f *fakeTeam) PushDelivery(_ context.Context, _ string, st spool.Stored, _ []byte, by who.Who) error {
	if err := f.ok("delivery " + st.Meta.DeliveryAttemptID + " " + st.Meta.ReceiptID); err != nil {
		return err
	}
	f.mu.Lock()
	f.receipts[st.Meta.DeliveryAttemptID] = st.Meta.ReceiptID
	f.by = by
	f.mu.Unlock()
	return nil
}

func (f *fakeTeam) PushUpload(_ context.Context, _ string, rec spool.UploadRecord, file []byte, _ who.Who) error {
	return f.ok("upload " + rec.Key + " " + string(rec.Outcome))
}

func (f *fakeTeam) PushSeen(_ context.Context, _ string, rec spool.SeenRecord, _ who.Who) error {
	return f.ok("seen " + rec.DeliveryAttemptID + " " + string(rec.State))
}

func (f *fakeTeam) PushCapture(_ context.Context, name string, _ []byte, _ who.Who) error {
	return f.ok("capture " + filepath.Base(name))
}

func (f *fakeTeam) count(prefix string) (n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, v := range f.pushes {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}

// withTeamStore configures f as the team store for the test.
func withTeamStore(t *testing.T, f outbox.Remote) {
	t.Helper()
	old, oldWait := openTeamStore, teamDrainWait
	openTeamStore = func(context.Context, *env) (outbox.Remote, who.Who, func(), error) {
		return f, who.Who{User: "alice", Host: "host-3"}, nil, nil
	}
	t.Cleanup(func() { openTeamStore, teamDrainWait = old, oldWait })
}

// TestFetchFeedsTheTeamStore: with a team store configured, what fetch
// stores and acknowledges is in the team store when fetch returns, by
// the configured user, each delivery with its receipt.
func TestFetchFeedsTheTeamStore(t *testing.T) {
	s := newSimEnv(t)
	team := newFakeTeam()
	withTeamStore(t, team)
	ids := []string{s.add(t, "ORDRSP", ediPayload(2048), partnersim.PayloadFault{}), s.add(t, "ORDRSP", ediPayload(2048), partnersim.PayloadFault{})}
	code, _, errOut := s.run(t, "", "fetch", "--all", "--ack")
	require.Equal(t, exitOK, code, errOut)
	require.NotContains(t, errOut, "waiting", "all pushed at the end")
	for _, id := range ids {
		require.NotEmpty(t, team.receipts[id], "delivery %s pushed with its receipt", id)
	}
	require.Equal(t, "alice on host-3", team.by.String())
}

// TestFetchWithTheTeamStoreDownSaysWhatWaits: the team store is down:
// fetch stores and acknowledges as always (exit 0), and says at its end
// what still waits, without the password; a store push when it is back
// sends it, and a second one sends nothing again.
func TestFetchWithTheTeamStoreDownSaysWhatWaits(t *testing.T) {
	s := newSimEnv(t)
	team := newFakeTeam()
	team.down = true
	withTeamStore(t, team)
	teamDrainWait = 50 * time.Millisecond
	id := s.add(t, "ORDRSP", ediPayload(2048), partnersim.PayloadFault{})
	code, _, errOut := s.run(t, "", "fetch", "--all", "--ack")
	require.Equal(t, exitOK, code, errOut)
	st, _ := s.sim.Entry(cliConn, id)
	require.Equal(t, partnersim.StatusAcknowledged, st.Status, "the download path is unchanged")
	require.Contains(t, errOut, "b2bx fetch: team store: 2 waiting, unreachable since ")
	require.Contains(t, errOut, "'b2bx store push'")
	require.NotContains(t, errOut, teamPassword)

	team.mu.Lock()
	team.down = false
	team.mu.Unlock()
	code, out, errOut := runCmd(t, "", s.env, "store", "push")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "found 1 deliveries, 0 upload records, 0 seen lines, 0 captures; 0 new to the outbox")
	require.Contains(t, out, "pushed 1", "the stored entry pushes the acknowledged state; the receipt entry then has nothing new")
	require.Contains(t, out, "outbox:     0 waiting")
	require.NotEmpty(t, team.receipts[id])
	code, out, errOut = runCmd(t, "", s.env, "store", "push")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "0 new to the outbox")
	require.Contains(t, out, "pushed 0")
	require.Equal(t, 1, team.count("delivery "))
}

// TestStorePushSendsWhatWasStoredBefore: a machine that fetched before
// it had a team store pushes everything with store push, once.
func TestStorePushSendsWhatWasStoredBefore(t *testing.T) {
	s := newSimEnv(t)
	for range 3 {
		s.add(t, "ORDRSP", ediPayload(2048), partnersim.PayloadFault{})
	}
	code, _, errOut := s.run(t, "", "fetch", "--all", "--ack")
	require.Equal(t, exitOK, code, errOut)
	_, err := os.Stat(outbox.Dir(s.dataDir))
	require.True(t, os.IsNotExist(err), "no team store, no outbox")

	team := newFakeTeam()
	withTeamStore(t, team)
	code, out, errOut := runCmd(t, "", s.env, "store", "push", "--json")
	require.Equal(t, exitOK, code, errOut)
	j := decodeJSON[storePushJSON](t, out)
	require.Equal(t, 3, j.Found.Deliveries)
	require.Equal(t, 3, j.Found.Queued)
	require.Equal(t, 3, j.Status.Pushed)
	require.Zero(t, j.Status.Waiting)
	code, out, errOut = runCmd(t, "", s.env, "store", "push", "--json")
	require.Equal(t, exitOK, code, errOut)
	j = decodeJSON[storePushJSON](t, out)
	require.Zero(t, j.Found.Queued)
	require.Zero(t, j.Status.Pushed)
	require.Equal(t, 3, team.count("delivery "), "each once")
}

func TestStorePushUsage(t *testing.T) {
	s := newSimEnv(t)
	code, _, errOut := runCmd(t, "", s.env, "store", "push")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "no team store is configured: set [store] url in config.toml")
	withTeamStore(t, newFakeTeam())
	code, _, errOut = runCmd(t, "", s.env, "store", "push", "extra")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "takes no arguments")
	code, _, _ = runCmd(t, "", s.env, "store", "push", "--wait", "0s")
	require.Equal(t, exitUsage, code)
}

func TestEventListenStoreNeedsATeamStore(t *testing.T) {
	ev := newEventEnv(t)
	code, _, errOut := ev.run(t, eventCanary+"\n", "event", "listen", "--secret-stdin", "--addr", "127.0.0.1:0", "--dir", t.TempDir(), "--store")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "--store needs a team store")
}

// TestEventListenStorePushesItsCaptures: event listen --store pushes
// each committed capture to the team store; it is there when the
// listener stops.
func TestEventListenStorePushesItsCaptures(t *testing.T) {
	team := newFakeTeam()
	withTeamStore(t, team)
	data, dir := t.TempDir(), t.TempDir()
	vars := map[string]string{"B2BX_DATA_DIR": data, credentials.EnvConfig: filepath.Join(t.TempDir(), "profiles.toml")}
	stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	e := &env{stdin: strings.NewReader(eventCanary + "\n"), stdout: stdout, stderr: stderr, getenv: func(k string) string { return vars[k] }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, done := startListen(t, ctx, e, stderr, []string{"event", "listen", "--secret-stdin", "--addr", "127.0.0.1:0", "--dir", dir, "--store"})
	postValidEvent(t, addr)
	cancel()
	require.Equal(t, exitOK, <-done, stderr.String())
	require.Equal(t, 1, team.count("capture 000000000001.http"), stderr.String())
	require.NotContains(t, stderr.String(), "waiting")
}

// TestAppShowsTheTeamStoreWhenConfigured: the app gets the outbox only
// with a team store: its spools queue into it and its line is the
// status bar's; what still waits is said after the app ends.
func TestAppShowsTheTeamStoreWhenConfigured(t *testing.T) {
	pretendTerminal(t)
	vars := map[string]string{"B2BX_CONFIG": filepath.Join(t.TempDir(), "profiles.toml"), "B2BX_DATA_DIR": t.TempDir()}
	var got tui.Options
	fakeTUI(t, func(_ context.Context, o tui.Options) error { got = o; return nil })
	code, _, stderr := runCmd(t, "", vars, "app")
	require.Equal(t, exitOK, code, stderr)
	require.Nil(t, got.TeamStore, "no team store: nothing shown")

	team := newFakeTeam()
	team.down = true
	withTeamStore(t, team)
	teamDrainWait = 50 * time.Millisecond
	var line string
	fakeTUI(t, func(_ context.Context, o tui.Options) error {
		s, err := spool.Open(vars["B2BX_DATA_DIR"])
		require.NoError(t, err)
		o.TeamStore.Attach(s)
		require.NoError(t, s.NoteSeen(spool.SeenRecord{ConnectionID: "c", DeliveryAttemptID: "da-1", State: spool.SeenClaimed}))
		line = o.TeamStore.StatusLine()
		return nil
	})
	code, _, stderr = runCmd(t, "", vars, "app")
	require.Equal(t, exitOK, code, stderr)
	require.True(t, strings.HasPrefix(line, "team store: 1 waiting"), line)
	require.Contains(t, stderr, "b2bx app: team store: 1 waiting")
	require.NotContains(t, stderr, teamPassword)
}

// parsingTeam is a fakeTeam whose deliveries are indexed as the team
// store indexes them: their items are made from the payload pushed.
type parsingTeam struct {
	*fakeTeam
	items [][]track.Item
}

func (p *parsingTeam) PushDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error {
	if err := p.fakeTeam.PushDelivery(ctx, conn, st, payload, by); err != nil {
		return err
	}
	items := track.TeamDeliveryItems(ctx, st, payload, by)
	p.mu.Lock()
	p.items = append(p.items, items)
	p.mu.Unlock()
	return nil
}

// TestFetchParsesABigDeliveryOnce: with a team store configured, fetch
// stores a big delivery, acknowledges it, pushes it (before and after
// its receipt, whichever the pusher sees) and indexes it locally: one
// parse of its payload for all of them.
func TestFetchParsesABigDeliveryOnce(t *testing.T) {
	s := newSimEnv(t)
	team := &parsingTeam{fakeTeam: newFakeTeam()}
	withTeamStore(t, team)
	on := track.SharesPayloadParses()
	track.SharePayloadParses(false) // nothing kept from an earlier run of this test (-count)
	track.SharePayloadParses(true)  // what teamstore.NewRemote does (TestNewRemoteSharesParses)
	t.Cleanup(func() { track.SharePayloadParses(on) })
	code, _, errOut := runCmd(t, "", s.env, "index") // built: the fetch's own update indexes what it stored
	require.Equal(t, exitOK, code, errOut)

	id := s.add(t, "ORDRSP", ediPayload(2<<20), partnersim.PayloadFault{})
	from := track.PayloadParses()
	code, _, errOut = s.run(t, "", "fetch", "--all", "--ack")
	require.Equal(t, exitOK, code, errOut)
	require.NotEmpty(t, team.receipts[id])
	require.EqualValues(t, 1, track.PayloadParses()-from, "one parse for the local index and every push")

	// both indexes have the parsed delivery, not an item from its sidecar
	require.NotEmpty(t, team.items)
	for _, items := range team.items {
		require.Empty(t, items[0].Note)
		require.Contains(t, items[0].Keys, track.Key{Kind: track.KeyID, Value: "po-1"})
	}
	code, out, errOut := runCmd(t, "", s.env, "find", "--json", "id:PO-1")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, id)
}
