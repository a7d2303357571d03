package orders

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

const (
	testConn   = "conn-up"
	testTenant = "tenant-up"
	testSecret = "CANARY-UPLOAD-SECRET-9f"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", name))
	require.NoError(t, err)
	return b
}

// env is partnersim on loopback, a client for its one connection and a
// spool with a fixed clock.
type env struct {
	sim    *partnersim.Sim
	client *apiclient.Client
	store  *spool.Store
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, partnersim.WithResponder(nil))
}

// newEnvWith is newEnv with the simulator's options (e.g. its partner's
// answers).
func newEnvWith(t *testing.T, opts ...partnersim.Option) *env {
	t.Helper()
	sim := partnersim.New(opts...)
	require.NoError(t, sim.AddConnection(partnersim.Connection{ID: testConn, Tenant: testTenant}))
	require.NoError(t, sim.AddKey(partnersim.Key{ID: "key-up", Secret: testSecret, Tenant: testTenant, Scopes: partnersim.AllScopes}))
	srv, err := partnersim.Serve(sim, partnersim.HTTP1)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	cred := secret.Credential{KeyID: "key-up", Secret: secret.New(testSecret)}
	c, err := apiclient.New(apiclient.Config{
		BaseURL: srv.URL, ConnectionID: testConn, HTTPClient: srv.Client(),
		Credentials: apiclient.StaticCredentials{Inbox: cred, Mailbox: cred},
		Limiter:     rate.NewLimiter(rate.Inf, 0),
		Retry:       apiclient.RetryPolicy{Schedule: []time.Duration{0, time.Millisecond}},
		After: func(time.Duration) <-chan time.Time {
			ch := make(chan time.Time, 1)
			ch <- time.Time{}
			return ch
		},
	})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	st, err := spool.Open(t.TempDir())
	require.NoError(t, err)
	st.SetClock(func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) })
	return &env{sim: sim, client: c, store: st}
}

// plan prepares path for the test connection.
func (e *env) plan(t *testing.T, path string) *Plan {
	t.Helper()
	p, err := Prepare(t.Context(), e.store, testConn, path)
	require.NoError(t, err)
	require.False(t, p.Preflight.Blocked(), "%v", p.Preflight.Problem)
	return p
}

// send sends p and requires that Send itself did not refuse.
func (e *env) send(t *testing.T, p *Plan) *Outcome {
	t.Helper()
	o, err := Send(t.Context(), e.client, p)
	require.NoError(t, err)
	require.NoError(t, o.RecordErr)
	return o
}

func (e *env) inboxRequests() int { return e.sim.RequestCount(partnersim.EndpointInbox, "") }

// checkNamed returns the first check called name.
func checkNamed(t *testing.T, pf *Preflight, name string) Check {
	t.Helper()
	for _, c := range pf.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, pf.Checks)
	return Check{}
}
