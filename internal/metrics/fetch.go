package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Fetch holds the metrics of one `fetch --all` run (a scheduler's job).
type Fetch struct {
	reg        *prometheus.Registry
	deliveries *prometheus.CounterVec
	bytes      prometheus.Counter
	took       prometheus.Histogram
	runStart   prometheus.Gauge
	runEnd     prometheus.Gauge
	runSeconds prometheus.Gauge
	success    prometheus.Gauge
	started    time.Time
}

// Classes a fetched delivery ends in (worker.Classify's words).
var fetchClasses = []string{"ok", "integrity", "storage", "api", "other"}

var fetchBuckets = []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}

// NewFetch returns the metrics of a fetch run that starts at now; team
// adds the team-store gauges (nil: absent).
func NewFetch(team TeamStatus, now time.Time) *Fetch {
	f := &Fetch{reg: newRegistry(), started: now}
	f.deliveries = counterVec("b2bx_fetch_deliveries_total", "Deliveries this run processed, by result (ok: every step passed and acknowledged; integrity, storage, api: where it failed).", "result")
	f.bytes = counter("b2bx_fetch_bytes_total", "Payload bytes verified and stored by this run.")
	f.took = histogram("b2bx_fetch_delivery_seconds", "Time to claim, download, verify, store and acknowledge one delivery.", fetchBuckets)
	f.runStart = gauge("b2bx_fetch_run_start_timestamp_seconds", "When this run started (Unix time).")
	f.runEnd = gauge("b2bx_fetch_run_end_timestamp_seconds", "When this run ended (Unix time; 0 while it runs).")
	f.runSeconds = gauge("b2bx_fetch_run_seconds", "How long this run took (0 while it runs).")
	f.success = gauge("b2bx_fetch_run_success", "1 when this run emptied the mailbox without a failure, else 0.")
	f.runStart.Set(float64(now.UnixNano()) / 1e9)
	for _, c := range fetchClasses {
		f.deliveries.WithLabelValues(c) // every result present from the start (0), so rate() sees the first
	}
	f.reg.MustRegister(f.deliveries, f.bytes, f.took, f.runStart, f.runEnd, f.runSeconds, f.success)
	registerTeam(f.reg, "b2bx_fetch_", team)
	return f
}

// Delivery counts one processed delivery: its result class, the bytes
// stored and how long it took.
func (f *Fetch) Delivery(class string, bytes int64, took time.Duration) {
	f.deliveries.WithLabelValues(oneOf(class, fetchClasses...)).Inc()
	if bytes > 0 {
		f.bytes.Add(float64(bytes))
	}
	f.took.Observe(took.Seconds())
}

// End marks the run ended at now, successfully or not.
func (f *Fetch) End(now time.Time, ok bool) {
	f.runEnd.Set(float64(now.UnixNano()) / 1e9)
	f.runSeconds.Set(now.Sub(f.started).Seconds())
	if ok {
		f.success.Set(1)
	} else {
		f.success.Set(0)
	}
}

// Registry is what /metrics serves and the textfile holds.
func (f *Fetch) Registry() *prometheus.Registry { return f.reg }
