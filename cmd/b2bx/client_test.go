package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/internal/syncbuf"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

const (
	cliCanarySecret = "CANARY-CLI-SECRET-5e6f"
	cliCanaryToken  = "CANARY-CLI-TOKEN-"
	cliConn         = "conn-cli"
	cliTenant       = "tenant-cli"
)

// simEnv is a partnersim on loopback HTTP/1.1 with canary credentials and
// claim tokens, plus the environment the CLI needs to reach it.
type simEnv struct {
	sim     *partnersim.Sim
	clock   *partnersim.FakeClock
	srv     *partnersim.Server
	dataDir string
	env     map[string]string
}

func newSimEnv(t testing.TB, opts ...partnersim.Option) *simEnv {
	t.Helper()
	old := cliRetry
	cliRetry = apiclient.RetryPolicy{Schedule: []time.Duration{0, 5 * time.Millisecond, 5 * time.Millisecond}}
	t.Cleanup(func() { cliRetry = old })

	// The real time: the client checks a retry of payload or acknowledge
	// against the lease on its own clock, so a sim clock in the past would
	// make every lease look expired.
	clock := partnersim.NewFakeClock(time.Now().UTC().Truncate(time.Second))
	opts = append([]partnersim.Option{partnersim.WithClock(clock), partnersim.WithTokens(partnersim.SequentialTokens(cliCanaryToken))}, opts...)
	sim := partnersim.New(opts...)
	require.NoError(t, sim.AddConnection(partnersim.Connection{ID: cliConn, Tenant: cliTenant, Name: "cli"}))
	require.NoError(t, sim.AddKey(partnersim.Key{ID: "key-cli", Secret: cliCanarySecret, Tenant: cliTenant, Scopes: partnersim.AllScopes}))
	srv, err := partnersim.Serve(sim, partnersim.HTTP1)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	dataDir := filepath.Join(t.TempDir(), "data")
	return &simEnv{sim: sim, clock: clock, srv: srv, dataDir: dataDir, env: map[string]string{
		envAPIKey:       "key-cli:" + cliCanarySecret,
		"B2BX_DATA_DIR": dataDir,
		"HOME":          t.TempDir(),
		"XDG_DATA_HOME": t.TempDir(),
	}}
}

// unlimited lifts the client-side rate limit of the API commands for the
// test (a thousand pages would take ten seconds at the default 100/s).
func unlimited(t *testing.T) {
	old := cliLimiter
	cliLimiter = rate.NewLimiter(rate.Inf, 0)
	t.Cleanup(func() { cliLimiter = old })
}

// run runs b2bx against the simulator's connection.
func (s *simEnv) run(t testing.TB, stdin string, args ...string) (int, string, string) {
	t.Helper()
	args = append(args, "--url", s.srv.URL, "--connection", cliConn)
	return runCmd(t, stdin, s.env, args...)
}

// add puts a delivery into the mailbox.
func (s *simEnv) add(t *testing.T, typ string, payload []byte, f partnersim.PayloadFault) string {
	t.Helper()
	id, err := s.sim.AddEntry(cliConn, partnersim.Delivery{MessageType: typ, Payload: payload, Fault: f})
	require.NoError(t, err)
	return id
}

// spoolFiles lists every file under the data dir (relative).
func (s *simEnv) spoolFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(s.dataDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(s.dataDir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		require.ErrorIs(t, err, fs.ErrNotExist)
	}
	return out
}

// deliveryFiles lists stored payloads and sidecars (no lock file).
func (s *simEnv) deliveryFiles(t *testing.T) []string {
	var out []string
	for _, f := range s.spoolFiles(t) {
		if strings.Contains(f, "deliveries") {
			out = append(out, f)
		}
	}
	return out
}

func decodeJSON[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(s), &v), s)
	return v
}

func TestWriteJSONEscapesTerminalControls(t *testing.T) {
	var b bytes.Buffer
	in := map[string]string{"v": "a\x1b[2Jb\u009b31mc\u202ed\U0001F600e\u00e9f\x7fg"}
	require.NoError(t, writeJSON(&b, in))
	out := b.String()
	for _, bad := range []string{"\x1b", "\u009b", "\u202e", "\x7f"} {
		require.NotContains(t, out, bad)
	}
	require.Contains(t, out, `f\u007fg`, "DEL is escaped like every other control")
	require.Contains(t, out, `\u009b`)
	require.Contains(t, out, `\u202e`)
	require.Contains(t, out, "\U0001F600e\u00e9", "printable non-ASCII stays readable")
	var back map[string]string
	require.NoError(t, json.Unmarshal(b.Bytes(), &back))
	require.Equal(t, in, back, "the value round-trips exactly")
}

func TestFormatProgressAndRedraw(t *testing.T) {
	require.Equal(t, "0 B / ?  0.0 MB/s  0s", formatProgress(apiclient.ProgressSnapshot{}))
	s := formatProgress(apiclient.ProgressSnapshot{Bytes: 7 << 20, Expected: 14 << 20, BytesPerSec: 120e6, Elapsed: 3 * time.Second})
	require.Equal(t, "7.0 MiB / 14.0 MiB   50%  120.0 MB/s  3s", s)

	var buf syncbuf.Buffer
	start := time.Now()
	stop := startProgress(&buf, "da-1", &apiclient.Progress{})
	time.Sleep(3 * progressInterval)
	stop()
	ticks := int(time.Since(start) / progressInterval)
	out := buf.String()
	require.Contains(t, out, "\r\x1b[Kda-1  ")
	require.True(t, strings.HasSuffix(out, "\n"))
	n := strings.Count(out, "\r")
	require.GreaterOrEqual(t, n, 2)
	require.LessOrEqual(t, n, ticks+1, "redrawn once per tick plus the final state, not continuously")
}

// pretendTerminal makes isTerminal true for the test's stdin and stderr.
func pretendTerminal(t *testing.T) {
	old := isTerminal
	isTerminal = func(any) bool { return true }
	t.Cleanup(func() { isTerminal = old })
}

func TestOpenSpoolPrecedence(t *testing.T) {
	dir := t.TempDir()
	e := &env{getenv: func(k string) string {
		return map[string]string{"B2BX_DATA_DIR": filepath.Join(dir, "env"), "XDG_DATA_HOME": filepath.Join(dir, "xdg")}[k]
	}}
	s, err := openSpool(e, connTarget{StoreDir: filepath.Join(dir, "profile")})
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "profile"), s.Root())
	s, err = openSpool(e, connTarget{})
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "env"), s.Root())
	info, err := os.Stat(s.Root())
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o700), info.Mode().Perm())
}

// TestTimeoutFlagBoundsAPICommands: --timeout gives an API command an
// overall deadline; a server that never answers makes it fail with an
// error that names the flag, instead of hanging.
func TestTimeoutFlagBoundsAPICommands(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	envv := map[string]string{envAPIKey: "key-cli:" + cliCanarySecret, "B2BX_DATA_DIR": t.TempDir(), "HOME": t.TempDir()}
	po := orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 1, "PO-1"))
	for _, args := range [][]string{{"mailbox", "ls"}, {"mailbox", "ls", "--json"}, {"fetch", "--next"}, {"upload", po}} {
		code, out, errOut := runCmd(t, "", envv, append(args, "--url", srv.URL, "--connection", cliConn, "--timeout", "150ms")...)
		require.NotEqual(t, exitOK, code, args)
		require.NotEqual(t, exitUsage, code, args)
		require.Contains(t, errOut, "--timeout", args)
		require.NotContains(t, out+errOut, cliCanarySecret)
	}
	code, _, errOut := runCmd(t, "", envv, "mailbox", "ls", "--url", srv.URL, "--connection", cliConn, "--timeout", "-1s")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "--timeout must be a positive duration")
}

func TestDeadlineErrorMatchesDeadlineExceeded(t *testing.T) {
	ctx, cancel := (&connFlags{timeout: time.Nanosecond}).withTimeout(context.Background())
	defer cancel()
	<-ctx.Done()
	require.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	require.ErrorIs(t, context.Cause(ctx), context.DeadlineExceeded)
	require.ErrorContains(t, context.Cause(ctx), "the overall --timeout of 1ns ran out")
	ctx, cancel = (&connFlags{}).withTimeout(context.Background())
	defer cancel()
	_, has := ctx.Deadline()
	require.False(t, has, "no --timeout: no deadline")
}
