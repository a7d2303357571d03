package apiclient_test

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/internal/fakeclock"
	"github.com/nutrab2b/b2bx/internal/syncbuf"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

const (
	simSecret   = "CANARY-SIM-SECRET-55aa"
	simToken    = "CANARY-SIM-TOKEN-"
	simTenant   = "tenant-1"
	simConn     = "conn-A"
	simOther    = "conn-B"
	keyFull     = "key-full"
	keyListOnly = "key-list"
	keyInbox    = "key-inbox"
	keyOtherTen = "key-foreign"
)

// modes are the wire setups every integration test runs on.
var modes = []struct {
	name string
	mode partnersim.Mode
}{{"http1", partnersim.HTTP1}, {"http2-tls", partnersim.HTTP2TLS}}

type simEnv struct {
	t       *testing.T
	sim     *partnersim.Sim
	clock   *partnersim.FakeClock
	srv     *partnersim.Server
	hc      *http.Client
	logs    *syncbuf.Buffer
	simLogs *syncbuf.Buffer
	waits   *fakeclock.Clock // the retry waits: each passes at once
	protos  *protoRecorder
}

// protoRecorder remembers the HTTP major version of every request.
type protoRecorder struct {
	next http.Handler
	h1   atomic.Int32
	h2   atomic.Int32
}

func (p *protoRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor == 2 {
		p.h2.Add(1)
	} else {
		p.h1.Add(1)
	}
	p.next.ServeHTTP(w, r)
}

// newSimEnv runs partnersim on loopback with one tenant, two connections
// and four keys. The client under test uses apiclient.DefaultHTTPClient
// (trusting the sim's CA in TLS mode) so its defaults are what is tested.
// inEachMode runs test once per transport (modes), each with its own
// simulator and a client of simConn.
func inEachMode(t *testing.T, test func(t *testing.T, e *simEnv, c *apiclient.Client)) {
	t.Helper()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			e := newSimEnv(t, m.mode)
			test(t, e, e.client(simConn))
		})
	}
}

func newSimEnv(t *testing.T, mode partnersim.Mode, opts ...partnersim.Option) *simEnv {
	t.Helper()
	e := &simEnv{t: t, clock: partnersim.NewFakeClock(time.Time{}), logs: &syncbuf.Buffer{}, simLogs: &syncbuf.Buffer{}, waits: &fakeclock.Clock{}}
	opts = append([]partnersim.Option{partnersim.WithClock(e.clock), partnersim.WithTokens(partnersim.SequentialTokens(simToken)),
		partnersim.WithLogger(slog.New(slog.NewJSONHandler(e.simLogs, nil))), partnersim.WithResponder(nil)}, opts...)
	e.sim = partnersim.New(opts...)
	for _, c := range []string{simConn, simOther} {
		require.NoError(t, e.sim.AddConnection(partnersim.Connection{ID: c, Tenant: simTenant}))
	}
	require.NoError(t, e.sim.AddConnection(partnersim.Connection{ID: "conn-X", Tenant: "tenant-2"}))
	keys := []partnersim.Key{
		{ID: keyFull, Secret: simSecret, Tenant: simTenant, Scopes: partnersim.AllScopes, Connections: []string{simConn}},
		{ID: keyListOnly, Secret: simSecret + "-l", Tenant: simTenant, Scopes: []string{partnersim.ScopeMailboxList}},
		{ID: keyInbox, Secret: simSecret + "-i", Tenant: simTenant, Scopes: []string{partnersim.ScopeInboxCreate}},
		{ID: keyOtherTen, Secret: simSecret + "-f", Tenant: "tenant-2", Scopes: partnersim.AllScopes},
	}
	for _, k := range keys {
		require.NoError(t, e.sim.AddKey(k))
	}
	e.protos = &protoRecorder{next: e.sim}
	srv, err := partnersim.Serve(e.protos, mode)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	e.srv = srv
	e.hc = apiclient.DefaultHTTPClient()
	if srv.CACertPEM != nil {
		pool := x509.NewCertPool()
		require.True(t, pool.AppendCertsFromPEM(srv.CACertPEM))
		e.hc.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	t.Cleanup(e.hc.CloseIdleConnections)
	t.Cleanup(func() {
		for what, s := range map[string]string{"client logs": e.logs.String(), "sim logs": e.simLogs.String()} {
			require.NotContains(t, s, simSecret, what)
			require.NotContains(t, s, simToken, what)
		}
		if mode == partnersim.HTTP2TLS {
			require.Zero(t, e.protos.h1.Load(), "TLS must negotiate HTTP/2")
		}
	})
	return e
}

func cred(id, sec string) secret.Credential {
	return secret.Credential{KeyID: id, Secret: secret.New(sec)}
}

// client builds a client for conn with the full key unless mod changes it.
func (e *simEnv) client(conn string, mod ...func(*apiclient.Config)) *apiclient.Client {
	e.t.Helper()
	cfg := apiclient.Config{
		BaseURL:      e.srv.URL,
		ConnectionID: conn,
		Credentials:  apiclient.StaticCredentials{Inbox: cred(keyFull, simSecret), Mailbox: cred(keyFull, simSecret)},
		HTTPClient:   e.hc,
		Logger:       slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Limiter:      rate.NewLimiter(rate.Inf, 0),
		After:        e.waits.After,
		Now:          e.clock.Now,
	}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := apiclient.New(cfg)
	require.NoError(e.t, err)
	return c
}

func (e *simEnv) add(payload []byte, f partnersim.PayloadFault) string {
	e.t.Helper()
	id, err := e.sim.AddEntry(simConn, partnersim.Delivery{MessageType: "ORDRSP", Payload: payload, Fault: f})
	require.NoError(e.t, err)
	return id
}

// entry finds id in the listing.
func (e *simEnv) entry(c *apiclient.Client, id string) apiclient.Entry {
	e.t.Helper()
	for p, err := range c.Pages(e.t.Context(), 100) {
		require.NoError(e.t, err)
		for _, en := range p.Entries {
			if en.DeliveryAttemptID == id {
				return en
			}
		}
	}
	e.t.Fatalf("entry %s not listed", id)
	return apiclient.Entry{}
}

func payload(n int) []byte {
	seg := []byte("LIN+1++4000862141404:SRS'QTY+21:48'PRI+AAA:12.50'")
	b := bytes.Repeat(seg, n/len(seg)+1)[:n]
	return b
}

func hexSum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// eventually waits for the sim's request log, which records a cut
// connection only after the client already saw it fail.
func (e *simEnv) eventually(cond func() bool) {
	e.t.Helper()
	require.Eventually(e.t, cond, 5*time.Second, 2*time.Millisecond)
}
