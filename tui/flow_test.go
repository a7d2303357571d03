package tui

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/connlist"
	"github.com/nutrab2b/b2bx/tui/logview"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

const waitLong = 20 * time.Second

// seen collects everything the programs drew, for the secret checks.
var seen bytes.Buffer

// waitOutput waits until the output drawn since the last wait holds every
// sub (WaitFor drains the output).
func waitOutput(t *testing.T, tm *teatest.TestModel, subs ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for _, s := range subs {
			if !bytes.Contains(b, []byte(s)) {
				return false
			}
		}
		seen.Write(b)
		return true
	}, teatest.WithDuration(waitLong), teatest.WithCheckInterval(10*time.Millisecond))
}

// TestFlowQuitWithAClaimAsks runs the shell as a program: open a
// connection from the list, its tab reports an active claim, q asks, y
// quits and the tab is closed (lease released).
func TestFlowQuitWithAClaimAsks(t *testing.T) {
	be := newFakeBackend()
	c := &common.Common{Styles: common.NewStyles(true)}
	src := fakeSource{rows: []connlist.Row{{Name: "acme-de", URL: "http://127.0.0.1:1", ConnectionID: "c-de"}}}
	m := New(context.Background(), c, be, src, logview.New(10, nil), connlist.Options{}, nil)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))

	waitOutput(t, tm, "> acme-de", "connections: 1 profile(s)")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "fake tab acme-de body", "[1 acme-de]")
	st := be.state("acme-de")
	st.mu.Lock()
	st.pending = "an active claim on da-1: its lease expires and uses a delivery attempt"
	st.mu.Unlock()

	tm.Type("q")
	waitOutput(t, tm, "Quit b2bx? acme-de: an active claim on da-1", "[y/N]")
	tm.Type("y")
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitLong))
	final := tm.FinalModel(t).(Model)
	require.Empty(t, final.tabs)
	require.Equal(t, 1, st.closed)
}

// TestFlowSmallTerminal: the size message, then the frame after a resize.
func TestFlowSmallTerminal(t *testing.T) {
	m, _ := newTestModel(t)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(60, 20))
	waitOutput(t, tm, "needs a terminal of at least 80×24; this one is 60×20")
	tm.Send(tea.WindowSizeMsg{Width: 90, Height: 26})
	waitOutput(t, tm, "connections: 1 profile(s)")
	require.NoError(t, tm.Quit())
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitLong))
}

// demoShell is the demo simulator on loopback with a profile per demo
// connection (secrets in a memory store), ready for NewApp.
type demoShell struct {
	sim   *partnersim.Sim
	demo  *partnersim.Demo
	env   session.Env
	names []string
	dir   string // the temporary directory of profiles.toml and the data
}

func newDemoShell(t *testing.T, canary string, perConnection int) *demoShell {
	t.Helper()
	return seedDemoShell(t, canary, perConnection, false)
}

// seedDemoShell is newDemoShell; with firstOnly, the profile of the first
// demo connection only.
func seedDemoShell(t *testing.T, canary string, perConnection int, firstOnly bool) *demoShell {
	t.Helper()
	sim := partnersim.New(partnersim.WithResponder(nil))
	demo, err := partnersim.SeedDemo(sim, partnersim.DemoOptions{PerConnection: perConnection, LargeSize: -1,
		Secret: func(id string) string { return canary + id }})
	require.NoError(t, err)
	srv, err := partnersim.Serve(sim, partnersim.HTTP1)
	require.NoError(t, err)
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	t.Cleanup(track.WaitIdle) // the tabs' background index work, before dir goes
	vars := map[string]string{credentials.EnvConfig: filepath.Join(dir, "profiles.toml"), "B2BX_DATA_DIR": filepath.Join(dir, "data")}
	env := session.Env{Getenv: func(k string) string { return vars[k] }, Store: credentials.NewMemoryStore()}
	file, err := session.LoadProfiles(env)
	require.NoError(t, err)
	d := &demoShell{sim: sim, demo: demo, env: env, dir: dir}
	conns := demo.Connections
	if firstOnly {
		conns = conns[:1]
	}
	for _, dc := range conns {
		p := credentials.Profile{Name: dc.Name, URL: srv.URL, ConnectionID: dc.ConnectionID, InboxKeyID: dc.Key.ID, MailboxKeyID: dc.Key.ID}
		require.NoError(t, session.AddProfile(context.Background(), file, p, map[string]secret.Value{dc.Key.ID: secret.New(dc.Key.Secret)}, env.Store))
		d.names = append(d.names, dc.Name)
	}
	return d
}

// TestFlowDemoThroughTheShell is b2bx demo without the terminal: the
// simulator's demo data behind profiles and a memory store, both
// connections opened as real tabs, P on the head entry ends acknowledged,
// the session log shows the calls' correlation IDs, and no secret is ever
// drawn.
func TestFlowDemoThroughTheShell(t *testing.T) {
	const canary = "CANARY-SECRET-flow-5e8d"
	d := newDemoShell(t, canary, 12)
	env, names := d.env, d.names
	lh := logview.New(0, nil)
	m, err := NewApp(context.Background(), Options{Env: env, Open: names, Demo: true, Log: lh})
	require.NoError(t, err)
	seen.Reset()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 36))

	waitOutput(t, tm, "[1 acme-de]", "2 acme-at", "head of the mailbox", "DEMO │ acme-de")
	tm.Type("P")
	waitOutput(t, tm, "acknowledged", "receipt")
	tm.Type("?") // the tab's keys, every column whole
	waitOutput(t, tm, "Keys: acme-de", "uploads + answers", "u   upload ORDERS", "esc cancel, give up")
	tm.Type("?")
	tm.Type("L")
	waitOutput(t, tm, "Session log", "op=acknowledge", "correlationId=")
	tm.Type("L")
	tm.Type("2")
	waitOutput(t, tm, "[2 acme-at]", "DEMO │ acme-at")
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitLong))
	final := tm.FinalModel(t).(Model)
	require.Empty(t, final.tabs, "quitting closed the tabs")
	_, err = seen.ReadFrom(tm.FinalOutput(t))
	require.NoError(t, err)
	require.Contains(t, seen.String(), "acknowledged", "the check below looks at the frames")
	require.NotContains(t, seen.String(), canary)
	require.NotEmpty(t, lh.Entries())
	for _, e := range lh.Entries() {
		require.NotContains(t, e.Format(), canary)
	}
}

// TestFlowResultsStayWithTheirTab: two tabs refresh at once while one of
// the answers is slow; each tab ends up with its own connection's
// entries, whichever answer came first. A slow refresh still running
// when its tab closes answers nobody: it is dropped, and no error
// reaches the footer.
func TestFlowResultsStayWithTheirTab(t *testing.T) {
	const canary = "CANARY-SECRET-stale-71aa"
	d := newDemoShell(t, canary, 3)
	de, at := d.demo.Connections[0], d.demo.Connections[1]
	deHead := d.sim.Entries(de.ConnectionID)[0].DeliveryAttemptID
	atHead := d.sim.Entries(at.ConnectionID)[0].DeliveryAttemptID
	m, err := NewApp(context.Background(), Options{Env: d.env, Open: d.names, Log: logview.New(0, nil)})
	require.NoError(t, err)
	seen.Reset()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 36))
	waitOutput(t, tm, "[1 acme-de]", "2 acme-at", "head of the mailbox", deHead)

	lists := func() int { return d.sim.RequestCount(partnersim.EndpointList, "") }
	before := lists()
	d.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointList, Times: 1, Latency: 600 * time.Millisecond})
	tm.Type("r")
	time.Sleep(150 * time.Millisecond) // acme-de's request holds the slow answer
	tm.Type("2")
	tm.Type("r")
	waitOutput(t, tm, "[2 acme-at]", atHead)
	require.Eventually(t, func() bool { return lists() >= before+2 }, waitLong, 10*time.Millisecond)

	// Tab 1 refreshes slowly and closes before the answer comes.
	d.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointList, Times: 1, Latency: 600 * time.Millisecond})
	tm.Type("1")
	waitOutput(t, tm, "[1 acme-de]")
	tm.Type("r")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlW})
	waitOutput(t, tm, "[1 acme-at]")
	time.Sleep(900 * time.Millisecond) // the cancelled refresh's answer reaches the shell

	require.NoError(t, tm.Quit())
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitLong))
	final := tm.FinalModel(t).(Model)
	require.Len(t, final.tabs, 1)
	v := final.tabs[0].tab.View()
	require.Contains(t, v, atHead, "acme-at shows its own entries")
	require.NotContains(t, v, deHead, "and none of acme-de's")
	require.Empty(t, final.foot.err, "no error for the closed tab's refresh")
	_, err = seen.ReadFrom(tm.FinalOutput(t))
	require.NoError(t, err)
	require.NotContains(t, seen.String(), canary)
}
