package conntab

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/tui/common/commontest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/internal/syncbuf"
	"github.com/nutrab2b/b2bx/tui/common"
)

// Canary values: neither may ever reach the screen or a log.
const (
	canaryToken  = "CANARY-TOKEN-c0nnt4b-"
	canarySecret = "CANARY-SECRET-c0nnt4b"
)

// simEnv is the demo simulator on loopback and one open connection to
// its first connection (acme-de), with canary tokens and secrets.
type simEnv struct {
	sim  *partnersim.Sim
	demo *partnersim.Demo
	conn *session.Conn
	logs *syncbuf.Buffer
	id   string // the connection ID
}

// newSimEnv seeds the demo (faulty entries at #4 hash mismatch, #8
// truncated, #12 trailer failed) with the given retry schedule.
func newSimEnv(t *testing.T, sched []time.Duration, opts partnersim.DemoOptions) *simEnv {
	t.Helper()
	sim := partnersim.New(partnersim.WithTokens(partnersim.SequentialTokens(canaryToken)), partnersim.WithResponder(nil))
	opts.Secret = func(id string) string { return canarySecret + "-" + id }
	if opts.PerConnection == 0 {
		opts.PerConnection = 12
	}
	if opts.LargeSize == 0 {
		opts.LargeSize = -1
	}
	demo, err := partnersim.SeedDemo(sim, opts)
	require.NoError(t, err)
	srv, err := partnersim.Serve(sim, partnersim.HTTP1)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	dc := demo.Connections[0]
	logs := &syncbuf.Buffer{}
	conn, err := session.Open(session.Target{
		Name: dc.Name, BaseURL: srv.URL, ConnectionID: dc.ConnectionID, StoreDir: t.TempDir(),
		Mailbox: secret.Credential{KeyID: dc.MailboxKey.ID, Secret: secret.New(dc.MailboxKey.Secret)},
	}, session.Options{
		HTTPClient: srv.Client(),
		Logger:     slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Retry:      apiclient.RetryPolicy{Schedule: sched},
		Limiter:    rate.NewLimiter(rate.Inf, 0),
	})
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	return &simEnv{sim: sim, demo: demo, conn: conn, logs: logs, id: dc.ConnectionID}
}

// entryID is the demo entry at listing index i of the first connection.
func (e *simEnv) entryID(t *testing.T, i int) string {
	t.Helper()
	st := e.sim.Entries(e.id)
	require.Greater(t, len(st), i)
	return st[i].DeliveryAttemptID
}

func (e *simEnv) state(t *testing.T, id string) partnersim.EntryState {
	t.Helper()
	st, ok := e.sim.Entry(e.id, id)
	require.True(t, ok)
	return st
}

// harness stands in for the shell: it routes the tab's results, keeps the
// footer (the last Info or ErrorMsg) under the tab, and records every
// frame so a test can prove the token never reached the screen.
type harness struct {
	tab    Model
	footer string
	frames *frameLog
	notes  *frameLog // every Info and ErrorMsg, one per line
}

// frameLog records what the screen drew, written by the program and read by the test.
type frameLog = syncbuf.Buffer

func (h harness) Init() tea.Cmd { return h.tab.Init() }

func (h harness) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		h.tab = h.tab.SetSize(msg.Width, msg.Height-1)
		return h, nil
	case common.ErrorMsg:
		h.footer = "ERROR " + msg.Code
		h.notes.WriteString("ERROR " + msg.Line() + "\n")
		return h, nil
	case common.Info:
		h.footer = "INFO"
		h.notes.WriteString("INFO " + msg.Text + "\n")
		return h, nil
	case tea.KeyMsg:
		if msg.Type == tea.KeyCtrlC {
			h.tab.Close()
			return h, tea.Quit
		}
	}
	var cmd tea.Cmd
	h.tab, cmd = h.tab.Update(msg)
	return h, cmd
}

func (h harness) View() string {
	v := h.tab.View() + "\n" + h.footer
	h.frames.WriteString(v)
	return v
}

// app is a running tab in a teatest program of 120x40.
type app struct {
	*teatest.TestModel
	frames, notes *frameLog
}

func startApp(t *testing.T, e *simEnv) *app {
	t.Helper()
	c := common.New()
	c.Styles = common.NewStyles(true)
	a := &app{frames: &frameLog{}, notes: &frameLog{}}
	tab := New(c, 1, e.conn, Options{})
	a.TestModel = teatest.NewTestModel(t, harness{tab: tab, frames: a.frames, notes: a.notes}, teatest.WithInitialTermSize(120, 40))
	t.Cleanup(func() { _ = a.Quit() })
	return a
}

// waitNote waits until the footer got a note containing every string (a
// condition with a generous timeout, not a speed assertion).
func waitNote(t *testing.T, a *app, want ...string) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 20*time.Second; time.Sleep(20 * time.Millisecond) {
		got := a.notes.String()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(got, w)
		}
		if ok {
			return
		}
	}
	t.Fatalf("no note with %q; notes:\n%s", want, a.notes.String())
}

// waitFor waits until the output shows every string (commontest.WaitFor).
func waitFor(t *testing.T, tm *app, want ...string) {
	t.Helper()
	commontest.WaitFor(t, tm.Output(), want...)
}

func finalTab(t *testing.T, tm *app) Model {
	t.Helper()
	require.NoError(t, tm.Quit())
	return tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(harness).tab
}

// requireNoSecrets: the token and the API secret never on screen or in logs.
func requireNoSecrets(t *testing.T, frames *frameLog, e *simEnv) {
	t.Helper()
	tok := strings.TrimSuffix(canaryToken, "-")
	for what, s := range map[string]string{"screen": frames.String(), "log": e.logs.String()} {
		require.NotContains(t, s, tok, "claim token on the %s", what)
		require.NotContains(t, s, canarySecret, "API secret on the %s", what)
	}
}

func TestFlowClaimDownloadVerifyAcknowledge(t *testing.T) {
	e := newSimEnv(t, nil, partnersim.DemoOptions{})
	head := e.entryID(t, 0)
	tm := startApp(t, e)
	waitFor(t, tm, "page 1 · #1–12", head)

	tm.Type("c")
	waitFor(t, tm, "✓ "+head, "lease 4:5", "d download + verify")
	tm.Type("d")
	waitFor(t, tm, "✓ hash vs listing", "✓ trailer verified", "✓ stored durably", "verified and stored durably — a acknowledges it")
	st := e.state(t, head)
	require.Equal(t, partnersim.StatusClaimed, st.Status, "not acknowledged before a")
	tm.Type("a")
	waitFor(t, tm, "✓ acknowledged · receipt rcpt_", "replay no")

	m := finalTab(t, tm)
	st = e.state(t, head)
	require.Equal(t, partnersim.StatusAcknowledged, st.Status)
	require.Equal(t, st.ReceiptID, m.claim.res.Receipt.ReceiptID)
	for _, r := range m.table.Rows() {
		require.NotEqual(t, head, r.ID(), "the acknowledged entry left the table")
	}
	stored, err := os.ReadFile(m.claim.res.Stored.Path)
	require.NoError(t, err)
	require.EqualValues(t, st.Size, len(stored))
	require.True(t, strings.HasPrefix(m.claim.res.Stored.Path, filepath.Clean(e.conn.Spool.Root())))
	requireNoSecrets(t, tm.frames, e)
}

func TestFlowFaultyEntriesAreRefusedAndNotAcknowledged(t *testing.T) {
	e := newSimEnv(t, nil, partnersim.DemoOptions{})
	mismatch, trailer := e.entryID(t, 3), e.entryID(t, 11)
	tm := startApp(t, e)
	waitFor(t, tm, "page 1 · #1–12")

	// W processes entries in order and stops at the first faulty one
	tm.Type("W")
	waitFor(t, tm, "NOT VERIFIED — failed: hash vs header", "Nothing will be acknowledged; the lease expires at")
	waitNote(t, tm, mismatch+": NOT VERIFIED — failed: hash vs header — worker mode stopped: this entry did not pass; it is not skipped")
	for i := range 3 {
		require.Equal(t, partnersim.StatusAcknowledged, e.state(t, e.entryID(t, i)).Status)
	}
	require.Equal(t, partnersim.StatusClaimed, e.state(t, mismatch).Status)
	tm.Type("a")
	waitNote(t, tm, "INFO not acknowledged: acknowledge "+mismatch)

	// drop that claim, claim the one whose trailer says failed (not the head: confirm)
	tm.Type("x")
	waitFor(t, tm, "Drop the claim on "+mismatch)
	tm.Type("y")
	waitNote(t, tm, "claim dropped")
	tm.Type("r")
	waitFor(t, tm, "page 1 · #1–8 · 8 entries") // #1-3 are acknowledged, #4 is still leased: not listed
	tm.Type("G")
	tm.Type("c")
	waitFor(t, tm, "is not the head of the mailbox")
	tm.Type("y")
	waitFor(t, tm, "✓ "+trailer)
	tm.Type("d")
	waitFor(t, tm, "NOT VERIFIED — failed: trailer verified", "✗ trailer verified", "✓ hash vs listing")

	m := finalTab(t, tm)
	require.Equal(t, worker.PhaseFetchFailed, m.run.Phase())
	for _, id := range []string{mismatch, trailer} {
		require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, id), "no acknowledge was ever sent for %s", id)
	}
	requireNoSecrets(t, tm.frames, e)
}

func TestFlowUnavailableRetryNowAndGiveUp(t *testing.T) {
	// the schedule's second attempt is an hour away: only R brings it now
	e := newSimEnv(t, []time.Duration{0, time.Hour}, partnersim.DemoOptions{})
	e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointList, Status: 503, Times: 1})
	tm := startApp(t, e)
	waitFor(t, tm, "list mailbox: attempt 1 failed (ERR_B2B_EXCHANGE_UNAVAILABLE); next attempt in 59:", "R retry now   esc give up   correlation ",
		"retry with backoff; keep the correlation ID and time")
	tm.Type("R")
	waitFor(t, tm, "page 1 · #1–12")
	require.Equal(t, 2, e.sim.RequestCount(partnersim.EndpointList, ""))

	e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointList, Status: 503, Times: 1})
	tm.Type("r")
	waitFor(t, tm, "attempt 1 failed (ERR_B2B_EXCHANGE_UNAVAILABLE); next attempt in 59:")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitNote(t, tm, "ERROR page load given up after attempt 1: list mailbox: HTTP 503", "[ERR_B2B_EXCHANGE_UNAVAILABLE] — retry with backoff; keep the correlation ID and time (correlation ")

	m := finalTab(t, tm)
	require.Nil(t, m.list)
	require.NotContains(t, m.View(), "retry now")
	require.Equal(t, 3, e.sim.RequestCount(partnersim.EndpointList, ""), "given up: no further attempt")
	requireNoSecrets(t, tm.frames, e)
}

func TestFlowUnclearAcknowledgeIsRetriedWithTheSameToken(t *testing.T) {
	// two minutes: a retry the five-minute lease can still cover
	e := newSimEnv(t, []time.Duration{0, 2 * time.Minute}, partnersim.DemoOptions{})
	head := e.entryID(t, 0)
	// the server records the acknowledge, then the connection drops
	e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointAcknowledge, DropResponse: true, Times: 1})
	tm := startApp(t, e)
	waitFor(t, tm, "page 1 · #1–12")
	tm.Type("c")
	waitFor(t, tm, "d download + verify")
	tm.Type("d")
	waitFor(t, tm, "a acknowledges it")
	tm.Type("a")
	waitFor(t, tm, "acknowledge: attempt 1 failed (network error); next attempt in 1:")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc}) // give up the automatic retry
	waitFor(t, tm, "acknowledge failed", "a tries again with the same token")
	require.Equal(t, partnersim.StatusAcknowledged, e.state(t, head).Status, "the server has it; the client does not know")
	tm.Type("a")
	waitFor(t, tm, "✓ acknowledged · receipt rcpt_", "replay yes (the server had it already)")

	m := finalTab(t, tm)
	require.Equal(t, e.state(t, head).ReceiptID, m.claim.res.Receipt.ReceiptID)
	require.Equal(t, 2, e.sim.RequestCount(partnersim.EndpointAcknowledge, head))
	requireNoSecrets(t, tm.frames, e)
}
