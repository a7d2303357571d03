package conntab

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
	"github.com/nutrab2b/b2bx/internal/testshared/benchstat"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
)

// openTabStore is a simulator connection with a due entry and a local
// store of n stored deliveries (orderstest.WriteBigStore) with its
// tracking index built, as on a machine that ran `find` once, and the
// tab's options as the app builds them (tui.ConnTabWith).
type openTabStore struct {
	conn *session.Conn
	opts Options
}

func newOpenTabStore(b *testing.B, n int) openTabStore {
	const connID, tenant = "conn-big", "tenant-big"
	sim := partnersim.New(partnersim.WithResponder(nil))
	require.NoError(b, sim.AddConnection(partnersim.Connection{ID: connID, Tenant: tenant, Name: "big"}))
	require.NoError(b, sim.AddKey(partnersim.Key{ID: "key-big", Secret: "bench-secret", Tenant: tenant, Scopes: partnersim.AllScopes}))
	_, err := sim.AddEntry(connID, partnersim.Delivery{MessageType: "CONTRL", Payload: []byte("UNB+UNOA:3+A:14+B:14+260312:1031+C1'UNZ+0+C1'")})
	require.NoError(b, err)
	srv, err := partnersim.Serve(sim, partnersim.HTTP1)
	require.NoError(b, err)
	b.Cleanup(srv.Close)
	root := b.TempDir()
	orderstest.WriteBigStore(b, root, connID, n)
	vars := map[string]string{spool.EnvDataDir: root, credentials.EnvConfig: filepath.Join(b.TempDir(), "none.toml")}
	env := session.Env{Getenv: func(k string) string { return vars[k] }}
	x, err := track.Open(context.Background(), track.Options{Dir: root})
	require.NoError(b, err)
	_, err = x.Sync(context.Background())
	require.NoError(b, err)
	require.NoError(b, x.Close())
	conn, err := session.Open(session.Target{Name: "big", BaseURL: srv.URL, ConnectionID: connID, StoreDir: root,
		Mailbox: secret.Credential{KeyID: "key-big", Secret: secret.New("bench-secret")}},
		session.Options{HTTPClient: srv.Client(), Limiter: rate.NewLimiter(rate.Inf, 0), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(b, err)
	b.Cleanup(conn.Close)
	b.Cleanup(track.WaitIdle)
	return openTabStore{conn: conn, opts: Options{Links: track.Loader(env), LinksFor: track.SelectLoader(env), LinksOf: track.DeliveriesLoader(env),
		Index: func(ctx context.Context, stored []spool.Stored) error {
			return track.IndexAfter(ctx, env, root, connID, stored...)
		}}}
}

// open builds the tab as the app does and runs its open-time work (the
// first page, the link input) to the end; the live heap it keeps is
// measured after a GC.
func (s openTabStore) open(b *testing.B) (m Model, liveMB, allocMB float64) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	c := common.New()
	c.Styles = common.NewStyles(true)
	m = New(c, 1, s.conn, s.opts)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m = m.SetSize(160, 48)
	m, _ = settle(b, m, m.Init())
	require.True(b, m.pager.loaded)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	return m, float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / (1 << 20), float64(m1.TotalAlloc-m0.TotalAlloc) / (1 << 20)
}

// BenchmarkOpenTab opens a connection's tab (New and its Init commands
// run to the end: the first page, the link input from the tracking
// index) over an empty store and over B2BX_BENCH_TAB_DELIVERIES (default
// 100,000) stored deliveries, in turn in one run. empty-MB and stored-MB
// are the live heap the open tab keeps (the median over the rounds),
// ratio their quotient (issue 23 §1: the app ≤ 1.5× its memory with an
// empty store; the heap of the tab alone is a stricter measure than the
// app's RSS), and *-alloc-MB what opening allocated.
func BenchmarkOpenTab(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("B2BX_BENCH_TAB_DELIVERIES")); err == nil && v > 0 {
		n = v
	}
	empty, big := newOpenTabStore(b, 0), newOpenTabStore(b, n)
	var le, lb, ae, ab []float64
	for b.Loop() {
		m, live, alloc := empty.open(b)
		le, ae = append(le, live), append(ae, alloc)
		runtime.KeepAlive(m)
		m, live, alloc = big.open(b)
		lb, ab = append(lb, live), append(ab, alloc)
		runtime.KeepAlive(m)
	}
	b.ReportMetric(benchstat.Median(le), "empty-MB")
	b.ReportMetric(benchstat.Median(lb), "stored-MB")
	b.ReportMetric(benchstat.Median(lb)/max(benchstat.Median(le), 0.01), "ratio")
	b.ReportMetric(benchstat.Median(ae), "empty-alloc-MB")
	b.ReportMetric(benchstat.Median(ab), "stored-alloc-MB")
}
