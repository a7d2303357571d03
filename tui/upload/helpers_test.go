package upload

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/tui/common/commontest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/tui/common"
)

const (
	testTab      common.TabID = 3
	testConn                  = "conn-tui-up"
	canarySecret              = "CANARY-SECRET-tu1up"
)

// simEnv is partnersim on loopback and an open connection to it (the
// inbox key is a canary), with a spool in a temp dir.
type simEnv struct {
	sim  *partnersim.Sim
	conn *session.Conn
	dir  string // a directory for the files to upload
}

func newSimEnv(t *testing.T) *simEnv {
	t.Helper()
	sim := partnersim.New(partnersim.WithResponder(nil))
	require.NoError(t, sim.AddConnection(partnersim.Connection{ID: testConn, Tenant: "tenant-tui"}))
	require.NoError(t, sim.AddKey(partnersim.Key{ID: "key-inbox", Secret: canarySecret, Tenant: "tenant-tui", Scopes: partnersim.AllScopes}))
	srv, err := partnersim.Serve(sim, partnersim.HTTP1)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	cred := secret.Credential{KeyID: "key-inbox", Secret: secret.New(canarySecret)}
	conn, err := session.Open(session.Target{Name: "tui", BaseURL: srv.URL, ConnectionID: testConn, StoreDir: t.TempDir(), Inbox: cred, Mailbox: cred},
		session.Options{HTTPClient: srv.Client(), Limiter: rate.NewLimiter(rate.Inf, 0),
			Retry: apiclient.RetryPolicy{Schedule: []time.Duration{0, time.Millisecond}}})
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	return &simEnv{sim: sim, conn: conn, dir: t.TempDir()}
}

// file writes data as name in the env's directory.
func (e *simEnv) file(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(e.dir, name)
	require.NoError(t, os.WriteFile(p, data, 0o600))
	return p
}

func (e *simEnv) inboxRequests() int { return e.sim.RequestCount(partnersim.EndpointInbox, "") }

func (e *simEnv) history(t *testing.T) []spool.UploadRecord {
	t.Helper()
	h, err := e.conn.Spool.Uploads(testConn)
	require.NoError(t, err)
	return h
}

// newCommon is a no-colour 100x30 Common: a View holds no escape at all.
func newCommon() *common.Common {
	c := common.New()
	c.Styles = common.NewStyles(true)
	c.Width, c.Height = 100, 30
	return c
}

// open builds the screen for the env and runs its Init.
func (e *simEnv) open(t *testing.T, opts Options) Model {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = e.dir
	}
	m := New(newCommon(), testTab, e.conn, opts).SetSize(100, 30)
	t.Cleanup(m.Close)
	return run(t, m, m.Init())
}

// run executes cmd and feeds its messages back into m until no work is
// left, as the Bubble Tea runtime would (synchronously).
func run(t *testing.T, m Model, cmd tea.Cmd) Model {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		require.Less(t, steps, 100, "the screen keeps producing work")
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			var next tea.Cmd
			m, next = m.Update(msg)
			queue = append(queue, next)
		}
	}
	return m
}

// press sends keys one by one and runs what they start.
func press(t *testing.T, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		var cmd tea.Cmd
		m, cmd = m.Update(keyMsg(k))
		m = run(t, m, cmd)
	}
	return m
}

// keyMsg is the key message of a key by its name (commontest.Key).
var keyMsg = commontest.Key

// typeText types s into the focused input.
func typeText(t *testing.T, m Model, s string) Model {
	t.Helper()
	for _, r := range s {
		var cmd tea.Cmd
		m, cmd = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		m = run(t, m, cmd)
	}
	return m
}
