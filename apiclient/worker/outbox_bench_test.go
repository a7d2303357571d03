package worker

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/outbox"
	"github.com/nutrab2b/b2bx/internal/who"
)

// nopTeam is a team store that takes everything at once.
type nopTeam struct{}

func (nopTeam) Ping(context.Context) error { return nil }
func (nopTeam) PushDelivery(context.Context, string, spool.Stored, []byte, who.Who) error {
	return nil
}
func (nopTeam) PushUpload(context.Context, string, spool.UploadRecord, []byte, who.Who) error {
	return nil
}
func (nopTeam) PushSeen(context.Context, string, spool.SeenRecord, who.Who) error { return nil }
func (nopTeam) PushCapture(context.Context, string, []byte, who.Who) error        { return nil }

// BenchmarkDrainTeamStore: P and W (the runner's download, checks,
// store, acknowledge) over 300 small deliveries without a client rate
// limit, without a team store and with one: every stored delivery and
// receipt queued in the outbox by the spool's hook while the pusher
// runs beside it (reading each payload back) against a no-op team
// store. The bound: with ≤ 1.1× without.
func BenchmarkDrainTeamStore(b *testing.B) {
	for _, mode := range []string{"none", "outbox"} {
		b.Run("teamstore="+mode, func(b *testing.B) {
			var total time.Duration
			done := 0
			for b.Loop() {
				b.StopTimer()
				r, _, w := drainEnvWorker(b, 300, rate.NewLimiter(rate.Inf, 1))
				var p *outbox.Pusher
				var box *outbox.Outbox
				if mode == "outbox" {
					var err error
					if box, err = outbox.Open(filepath.Join(b.TempDir(), "outbox"), outbox.Options{}); err != nil {
						b.Fatal(err)
					}
					box.Attach(w.store)
					p = box.Start(b.Context(), outbox.PushOptions{Remote: nopTeam{}})
				}
				b.StartTimer()
				start := time.Now()
				if err := r.All(b.Context(), nil, nil); err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
				b.StopTimer()
				if p != nil {
					if st := p.Drain(b.Context()); st.Waiting != 0 {
						b.Fatalf("%d still waiting", st.Waiting)
					}
					p.Stop()
					_ = box.Close()
				}
				done += 300
				b.StartTimer()
			}
			b.ReportMetric(float64(done)/total.Seconds(), "deliveries/s")
		})
	}
}
