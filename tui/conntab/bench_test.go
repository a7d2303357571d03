package conntab

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
)

// BenchmarkKeypress10k is one keypress (Update + View) with 10,000
// mailbox rows loaded by A, on a 160x48 tab. Issue 8 asks for ≤ 2 ms.
func BenchmarkKeypress10k(b *testing.B) {
	for _, bc := range []struct {
		name string
		keys []string // pressed in turn, one per iteration
	}{
		{"down-up", []string{"j", "k"}},
		{"page-down-up", []string{"pgdown", "pgup"}},
		{"claim-panel", []string{"j", "k"}}, // with a claim's live panel on screen
	} {
		b.Run(bc.name, func(b *testing.B) {
			m, _, _ := newTest(b, 10000, 100)
			m = m.SetSize(160, 48)
			m, _ = press(b, m, "A")
			require.Equal(b, 10000, m.table.Len())
			if bc.name == "claim-panel" {
				m, _ = press(b, m, "c")
				m, _ = press(b, m, "d")
			}
			m, _ = press(b, m, "G") // the far end: no cost may depend on the row index
			msgs := make([]tea.KeyMsg, len(bc.keys))
			for i, k := range bc.keys {
				msgs[i] = benchKey(k)
			}
			var sink int
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				m, _ = m.Update(msgs[i%len(msgs)])
				sink += len(m.View())
				i++
			}
			if sink == 0 {
				b.Fatal("empty view")
			}
		})
	}
}

// BenchmarkFilterKeystroke10k is one character typed into the filter with
// 10,000 rows loaded: it re-filters every row.
func BenchmarkFilterKeystroke10k(b *testing.B) {
	m, _, _ := newTest(b, 10000, 100)
	m = m.SetSize(160, 48)
	m, _ = press(b, m, "A")
	m, _ = press(b, m, "/")
	keys := []tea.KeyMsg{benchKey("a"), {Type: tea.KeyBackspace}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m, _ = m.Update(keys[i%2])
		_ = m.View()
		i++
	}
}

func benchKey(k string) tea.KeyMsg {
	switch k {
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	}
	return keyMsg(k)
}

// benchLargeSize is just under the contract's 16 MiB limit.
const benchLargeSize = 16<<20 - 8<<10

// largeEnv is a simulator whose first connection holds n copies of the
// large ORDRSP and nothing else, and a connection to it.
func largeEnv(b *testing.B, n int) *session.Conn {
	sim := partnersim.New(partnersim.WithResponder(nil))
	demo, err := partnersim.SeedDemo(sim, partnersim.DemoOptions{PerConnection: -1, LargeSize: benchLargeSize, LargeCopies: n,
		Secret: func(string) string { return "bench-secret" }})
	require.NoError(b, err)
	st, _ := sim.Entry(demo.Large.ConnectionID, demo.Large.DeliveryAttemptID)
	require.LessOrEqual(b, st.Size, int64(apiclient.MaxPayloadSize))
	srv, err := partnersim.Serve(sim, partnersim.HTTP1)
	require.NoError(b, err)
	b.Cleanup(srv.Close)
	dc := demo.Connections[0]
	conn, err := session.Open(session.Target{Name: dc.Name, BaseURL: srv.URL, ConnectionID: dc.ConnectionID, StoreDir: b.TempDir(),
		Mailbox: secret.Credential{KeyID: dc.MailboxKey.ID, Secret: secret.New(dc.MailboxKey.Secret)}},
		session.Options{HTTPClient: srv.Client(), Limiter: rate.NewLimiter(rate.Inf, 0), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(b, err)
	b.Cleanup(conn.Close)
	return conn
}

// BenchmarkProcessLarge compares the app's path with the CLI's on the
// simulator's ~16 MiB ORDRSP: read the mailbox, claim the head, download
// with all checks, store durably (fsync), acknowledge.
//
//   - app: P in a running tea.Program (renderer on, output discarded): the
//     tab's jobs, its 10 Hz progress tick with Update+View, the panel;
//   - cli: what `b2bx fetch --next --ack` runs: the worker Runner's Head
//     and Process.
//
// Issue 8 asks for app ≤ 1.1 × cli.
//
// After the download the app also links the stored payload to the
// uploads it may answer (parsing it, ~25 ms of CPU for 16 MiB, in the
// background, next to the acknowledge). The CLI does not. The app's
// ns/op waits for that too, before the next P, so one entry's linking
// never competes with the next entry's download; ms-to-ack/op is P to
// acknowledged, the figure to compare with the CLI's ns/op.
func BenchmarkProcessLarge(b *testing.B) {
	b.Run("app", func(b *testing.B) {
		conn := largeEnv(b, b.N+1)
		c := common.New()
		c.Styles = common.NewStyles(true)
		done := make(chan benchDone, 1)
		h := benchHarness{tab: New(c, 1, conn, Options{Index: benchIndex(b, conn)}), done: done}
		p := tea.NewProgram(h, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignalHandler())
		go func() { _, _ = p.Run() }()
		p.Send(tea.WindowSizeMsg{Width: 160, Height: 48})
		b.Cleanup(p.Kill)
		b.SetBytes(benchLargeSize)
		var toAck time.Duration
		b.ResetTimer()
		for range b.N {
			start := time.Now()
			p.Send(keyMsg("P"))
			d := <-done
			if d.phase != worker.PhaseAcked {
				b.Fatalf("the entry ended in phase %d, not acknowledged", d.phase)
			}
			toAck += d.acked.Sub(start)
		}
		b.ReportMetric(float64(toAck.Microseconds())/1000/float64(b.N), "ms-to-ack/op")
		b.StopTimer()
		x, err := track.Open(context.Background(), track.Options{Dir: conn.Spool.Root()})
		require.NoError(b, err)
		defer x.Close()
		sources, _, _, err := x.Backend().Counts(context.Background())
		require.NoError(b, err)
		require.GreaterOrEqual(b, sources, int64(b.N), "every stored ORDRSP was indexed")
	})
	b.Run("cli", func(b *testing.B) {
		conn := largeEnv(b, b.N+1)
		w := worker.New(conn.Client, conn.Spool, conn.Log)
		r := worker.NewRunner(w.Backend(), worker.RunnerOptions{})
		ctx := context.Background()
		b.SetBytes(benchLargeSize)
		b.ResetTimer()
		for range b.N {
			c, err := r.Head(ctx)
			require.NoError(b, err)
			res, err := r.Process(ctx, c.Entry, worker.ProcessOptions{Ack: true})
			require.NoError(b, err)
			require.True(b, res.Acknowledged)
			r.Clear()
		}
	})
}

// benchIndex is the app's tracking index update (track.IndexAfter) over
// conn's store, with the index built first (an index not built yet is
// left alone by IndexAfter, which would measure nothing).
func benchIndex(b *testing.B, conn *session.Conn) IndexFunc {
	root, connID := conn.Spool.Root(), conn.Target.ConnectionID
	vars := map[string]string{spool.EnvDataDir: root, credentials.EnvConfig: filepath.Join(b.TempDir(), "none.toml")}
	env := session.Env{Getenv: func(k string) string { return vars[k] }}
	x, err := track.Open(context.Background(), track.Options{Dir: root})
	require.NoError(b, err)
	_, err = x.Sync(context.Background())
	require.NoError(b, err)
	require.NoError(b, x.Close())
	return func(ctx context.Context, stored []spool.Stored) error {
		return track.IndexAfter(ctx, env, root, connID, stored...)
	}
}

// benchHarness runs the tab as the shell would and reports each claim's
// final phase, when it was reached, once the tab has linked the payload.
type benchHarness struct {
	tab   Model
	last  *claimState
	acked *benchDone // the final claim, waiting for the links
	done  chan<- benchDone
}

type benchDone struct {
	phase worker.Phase
	acked time.Time
}

func (h benchHarness) Init() tea.Cmd { return h.tab.Init() }

func (h benchHarness) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		h.tab = h.tab.SetSize(ws.Width, ws.Height-2)
		return h, nil
	}
	var cmd tea.Cmd
	h.tab, cmd = h.tab.Update(msg)
	if cl := h.tab.claim; cl != nil && cl != h.last && h.tab.work == nil && !h.tab.ordering() {
		switch ph := h.tab.run.Phase(); ph {
		case worker.PhaseAcked, worker.PhaseFetchFailed, worker.PhaseAckFailed, worker.PhaseClaimFailed:
			h.last = cl
			h.acked = &benchDone{ph, time.Now()}
		}
	}
	if h.acked != nil && h.tab.links.req == 0 && !h.tab.index.running && len(h.tab.index.stored) == 0 {
		h.done <- *h.acked
		h.acked = nil
	}
	return h, cmd
}

func (h benchHarness) View() string { return h.tab.View() }
