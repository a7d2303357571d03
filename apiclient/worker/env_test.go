package worker

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/internal/syncbuf"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

const (
	canarySecret = "CANARY-SECRET-w0rk3r"
	canaryToken  = "CANARY-TOKEN-w0rk3r-"
	testConn     = "conn-w"
	testTenant   = "tenant-w"
)

type env struct {
	sim   *partnersim.Sim
	clock *partnersim.FakeClock
	srv   *httptest.Server
	store *spool.Store
	w     *Worker
	logs  *syncbuf.Buffer
}

// newEnv serves a simulator with canary credentials and canary claim
// tokens on loopback (HTTP/1.1, or HTTP/2 over TLS) and builds a worker
// whose client and own logs are captured at debug level.
func newEnv(t testing.TB, http2 bool) *env {
	t.Helper()
	// The fake clock starts at the real time: the client weighs retries
	// of token-bearing calls against the lease's expiresAt on its own clock.
	clock := partnersim.NewFakeClock(time.Now().UTC().Truncate(time.Second))
	sim := partnersim.New(partnersim.WithClock(clock), partnersim.WithTokens(partnersim.SequentialTokens(canaryToken)))
	require.NoError(t, sim.AddConnection(partnersim.Connection{ID: testConn, Tenant: testTenant, Name: "w"}))
	require.NoError(t, sim.AddKey(partnersim.Key{ID: "key-w", Secret: canarySecret, Tenant: testTenant, Scopes: partnersim.MailboxScopes}))
	srv := httptest.NewUnstartedServer(sim)
	if http2 {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)

	logs := &syncbuf.Buffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	client, err := apiclient.New(apiclient.Config{
		BaseURL:      srv.URL,
		ConnectionID: testConn,
		Credentials:  apiclient.StaticCredentials{Mailbox: secret.Credential{KeyID: "key-w", Secret: secret.New(canarySecret)}},
		HTTPClient:   srv.Client(),
		Logger:       logger,
		Retry:        apiclient.RetryPolicy{Schedule: []time.Duration{0, time.Millisecond, time.Millisecond}},
		StallTimeout: 5 * time.Second,
	})
	require.NoError(t, err)
	store, err := spool.Open(filepath.Join(t.TempDir(), "spool"))
	require.NoError(t, err)
	return &env{sim: sim, clock: clock, srv: srv, store: store, w: New(client, store, logger), logs: logs}
}

// add puts a payload into the mailbox and returns its listing entry.
func (e *env) add(t testing.TB, payload []byte, f partnersim.PayloadFault) apiclient.Entry {
	t.Helper()
	id, err := e.sim.AddEntry(testConn, partnersim.Delivery{MessageType: "ORDRSP", Payload: payload, Fault: f})
	require.NoError(t, err)
	entry, err := e.find(t.Context(), id)
	require.NoError(t, err)
	return entry
}

// deliveryFiles lists payloads and sidecars (temp files excluded: the
// test asserts those separately) stored for the test connection.
func (e *env) deliveryFiles(t testing.TB) []string {
	t.Helper()
	var out []string
	dir := filepath.Join(e.store.Root(), testConn, "deliveries")
	ents, err := os.ReadDir(dir)
	if err != nil {
		require.ErrorIs(t, err, fs.ErrNotExist)
		return nil
	}
	for _, d := range ents {
		out = append(out, d.Name())
	}
	return out
}

// tempFiles lists staged (temporary) files of the test connection.
func (e *env) tempFiles(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, n := range e.deliveryFiles(t) {
		if strings.HasPrefix(n, ".tmp-") {
			out = append(out, n)
		}
	}
	return out
}

// requireNoLeak checks logs, the error text and every spool file for the
// canary secret and tokens.
func (e *env) requireNoLeak(t testing.TB, extra ...string) {
	t.Helper()
	hay := []string{e.logs.String()}
	hay = append(hay, extra...)
	require.NoError(t, filepath.WalkDir(e.store.Root(), func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			hay = append(hay, p, string(b))
		}
		return nil
	}))
	for _, h := range hay {
		require.NotContains(t, h, canarySecret)
		require.NotContains(t, h, strings.TrimSuffix(canaryToken, "-"))
	}
}

// payload is a small, realistic-looking EDIFACT interchange.
func payload(n int) []byte {
	var b bytes.Buffer
	b.WriteString("UNA:+.? 'UNB+UNOC:3+4012345000009:14+4098765000003:14+250602:0800+IC0001'UNH+1+ORDRSP:D:96A:UN'BGM+231+PO-1+4'")
	for i := 0; b.Len() < n; i++ {
		b.WriteString("LIN+1++4000862141404:SRS'QTY+21:12'")
	}
	b.WriteString("UNT+4+1'UNZ+1+IC0001'")
	return b.Bytes()
}

// runner is a fresh runner over the env's worker: what Worker.Process,
// Next, Find and Select were, each call on its own.
func (e *env) runner() *Runner { return NewRunner(e.w.Backend(), RunnerOptions{Now: e.w.now}) }

// head is the runner's head (fetch --next's entry).
func (e *env) head(ctx context.Context) (apiclient.Entry, error) {
	c, err := e.runner().Head(ctx)
	return c.Entry, err
}

// find is the runner's listed entry id (fetch ID's entry).
func (e *env) find(ctx context.Context, id string) (apiclient.Entry, error) {
	c, err := e.runner().Find(ctx, id)
	return c.Entry, err
}

// procOpts are one entry's options, as the old Worker.Process took them.
type procOpts struct {
	Ack             bool
	OnEvent         func(Event)
	Progress        *apiclient.Progress
	Export          func(st *spool.Stored) error
	PreflightExport func() error
}

// process is the runner's worker order on one entry (Runner.Process on
// a fresh runner).
func (e *env) process(ctx context.Context, entry apiclient.Entry, o procOpts) (*Result, error) {
	return e.runner().Process(ctx, entry, ProcessOptions{Ack: o.Ack,
		Claim: ClaimOptions{PreflightExport: o.PreflightExport, OnEvent: o.OnEvent},
		Fetch: FetchOptions{Progress: o.Progress, Export: o.Export}})
}
