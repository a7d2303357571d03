package worker

import (
	"context"
	"iter"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// drainEnv is a simulator on loopback HTTP/1.1 with n small deliveries
// and a runner over a fresh store, its client limited by lim (nil: the
// contract's default, 100 requests/s).
func drainEnv(tb testing.TB, n int, lim *rate.Limiter) (*Runner, *counting) {
	r, be, _ := drainEnvWorker(tb, n, lim)
	return r, be
}

// drainEnvWorker is drainEnv that also gives the worker, whose claims
// play another client of the same connection.
func drainEnvWorker(tb testing.TB, n int, lim *rate.Limiter) (*Runner, *counting, *Worker) {
	tb.Helper()
	sim := partnersim.New()
	if err := sim.AddConnection(partnersim.Connection{ID: testConn, Tenant: testTenant, Name: "w"}); err != nil {
		tb.Fatal(err)
	}
	if err := sim.AddKey(partnersim.Key{ID: "key-w", Secret: canarySecret, Tenant: testTenant, Scopes: partnersim.MailboxScopes}); err != nil {
		tb.Fatal(err)
	}
	data := payload(1500)
	for range n {
		if _, err := sim.AddEntry(testConn, partnersim.Delivery{MessageType: "ORDRSP", Payload: data}); err != nil {
			tb.Fatal(err)
		}
	}
	srv := httptest.NewServer(sim)
	tb.Cleanup(srv.Close)
	client, err := apiclient.New(apiclient.Config{
		BaseURL:      srv.URL,
		ConnectionID: testConn,
		Credentials:  apiclient.StaticCredentials{Mailbox: secret.Credential{KeyID: "key-w", Secret: secret.New(canarySecret)}},
		HTTPClient:   srv.Client(),
		Limiter:      lim,
		StallTimeout: 5 * time.Second,
	})
	if err != nil {
		tb.Fatal(err)
	}
	store, err := spool.Open(filepath.Join(tb.TempDir(), "spool"))
	if err != nil {
		tb.Fatal(err)
	}
	w := New(client, store, slog.New(slog.DiscardHandler))
	be := &counting{Backend: w.Backend()}
	return NewRunner(be, RunnerOptions{}), be, w
}

func benchDrain(b *testing.B, n int, lim func() *rate.Limiter) {
	var total time.Duration
	var lists, done int
	var syncs spool.SyncCounts
	for b.Loop() {
		b.StopTimer()
		r, be := drainEnv(b, n, lim())
		b.StartTimer()
		start, s0 := time.Now(), spool.Syncs()
		if err := r.All(b.Context(), nil, nil); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		s1 := spool.Syncs()
		syncs.Files += s1.Files - s0.Files
		syncs.Dirs += s1.Dirs - s0.Dirs
		b.StopTimer()
		lists += be.pages
		done += n
		b.StartTimer()
	}
	b.ReportMetric(float64(done)/total.Seconds(), "deliveries/s")
	b.ReportMetric(float64(lists)/float64(done), "lists/delivery")
	b.ReportMetric(float64(syncs.Files)/float64(done), "file-fsyncs/delivery")
	b.ReportMetric(float64(syncs.Dirs)/float64(done), "dir-fsyncs/delivery")
}

// BenchmarkDrain: `fetch --all --ack` in the runner: 300 small
// deliveries drained over loopback HTTP/1.1 (head, claim, download with
// every check, fsync + rename + directory fsync, acknowledge), at the
// contract's default client rate limit (100 requests/s per partner).
func BenchmarkDrain(b *testing.B) {
	benchDrain(b, 300, func() *rate.Limiter { return nil })
}

// BenchmarkDrainAtProfileRate: the same at the limit of a profile with
// `rate = 400` (the platform agreed 400 requests/s for this partner; the
// limiter apiclient.NewLimiterAt builds for it). Three requests per
// delivery put its cap at 133 deliveries/s.
func BenchmarkDrainAtProfileRate(b *testing.B) {
	benchDrain(b, 300, func() *rate.Limiter { return apiclient.NewLimiterAt(400) })
}

// BenchmarkDrainUnlimited: the same without a client rate limit, to show
// what the rest of the worker order costs.
func BenchmarkDrainUnlimited(b *testing.B) {
	benchDrain(b, 300, func() *rate.Limiter { return rate.NewLimiter(rate.Inf, 1) })
}

// counting counts the mailbox pages a Backend reads and the claims it
// makes.
type counting struct {
	Backend
	pages, claims int
}

func (c *counting) Pages(ctx context.Context, limit int) iter.Seq2[*apiclient.Page, error] {
	return func(yield func(*apiclient.Page, error) bool) {
		for p, err := range c.Backend.Pages(ctx, limit) {
			c.pages++
			if !yield(p, err) {
				return
			}
		}
	}
}

func (c *counting) Claim(ctx context.Context, e apiclient.Entry, opts ClaimOptions) (Held, error) {
	c.claims++
	return c.Backend.Claim(ctx, e, opts)
}
