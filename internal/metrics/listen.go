package metrics

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/events/webhook"
)

// Listen holds the metrics of one `event listen`. Its methods are safe
// for concurrent use and never block on IO.
type Listen struct {
	reg        *prometheus.Registry
	deliveries *prometheus.CounterVec
	evs        *prometheus.CounterVec
	released   prometheus.Counter
	latency    prometheus.Histogram
	commit     prometheus.Histogram
	batch      prometheus.Histogram

	mu     sync.Mutex
	parked map[[2]string]int // stream (sender, subject) → its parked events, only > 0
	total  int
}

// Deliveries are answered in about a millisecond when the disk is quick;
// the buckets reach the 10 s a slow disk or a big body may take.
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// NewListen returns the metrics of `event listen`; team adds the
// team-store gauges (nil: absent).
func NewListen(team TeamStatus) *Listen {
	l := &Listen{reg: newRegistry(), parked: map[[2]string]int{}}
	l.deliveries = counterVec("b2bx_listen_deliveries_total", "Deliveries answered, by result (ACK, PARKED, DUPLICATE, REJECTED, RETRY) and HTTP status.", "result", "status")
	l.evs = counterVec("b2bx_listen_events_total", "Events of committed deliveries, by result.", "result")
	l.released = counter("b2bx_listen_released_total", "Parked events processed once their gap filled.")
	l.latency = histogram("b2bx_listen_delivery_seconds", "Time from a delivery's headers to its answer.", latencyBuckets)
	l.commit = histogram("b2bx_listen_commit_seconds", "Time to decide and store one batch of deliveries durably (one fsync per batch).", latencyBuckets)
	l.batch = histogram("b2bx_listen_commit_batch_deliveries", "Deliveries committed together in one batch.", []float64{1, 2, 4, 8, 16, 32, 64, 128, 256})
	parked := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "b2bx_listen_parked_events",
		Help: "Events parked now (waiting for a gap to fill) in the streams this run has seen.",
	}, func() float64 {
		l.mu.Lock()
		defer l.mu.Unlock()
		return float64(l.total)
	})
	l.reg.MustRegister(l.deliveries, l.evs, l.released, l.latency, l.commit, l.batch, parked)
	registerTeam(l.reg, "b2bx_listen_", team)
	return l
}

var results = []string{events.ResultACK, events.ResultParked, events.ResultDuplicate, events.ResultRejected, events.ResultRetry}

// Record counts one answered delivery (webhook.Handler's OnRecord).
func (l *Listen) Record(r webhook.Record) {
	status := "other"
	if r.Status >= 100 && r.Status <= 599 {
		status = strconv.Itoa(r.Status)
	}
	// The latency is observed last, so that a scrape that counts this
	// delivery in b2bx_listen_delivery_seconds_count sees all the rest.
	defer l.latency.Observe(r.Latency.Seconds())
	l.deliveries.WithLabelValues(oneOf(r.Result, results...), status).Inc()
	if !r.Committed {
		return
	}
	for _, e := range r.Events {
		l.evs.WithLabelValues(oneOf(e.Result, results...)).Inc()
	}
	l.released.Add(float64(len(r.Released)))
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range r.Streams {
		k := [2]string{s.Sender, s.Subject}
		l.total += len(s.Parked) - l.parked[k]
		if len(s.Parked) == 0 {
			delete(l.parked, k)
		} else {
			l.parked[k] = len(s.Parked)
		}
	}
}

// Batch counts one committed batch of n deliveries that took took
// (webhook.Handler's OnBatch).
func (l *Listen) Batch(n int, took time.Duration) {
	l.commit.Observe(took.Seconds())
	l.batch.Observe(float64(n))
}

// Registry is what /metrics serves.
func (l *Listen) Registry() *prometheus.Registry { return l.reg }
