// Package metrics is what b2bx tells a monitoring system: Prometheus
// metrics of `event listen` and of `fetch --all` runs, served on a
// separate admin listener (/healthz, /metrics) or written as a
// node_exporter textfile. Labels carry only fixed words (a result, an
// HTTP status, a class): never an ID, a sender or a secret.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// TeamStatus is what the team store's outbox tells about itself: how many
// records wait to be pushed and whether the store answered lately. Both
// are called on every scrape, so they must answer from memory at once
// (never a network round trip).
type TeamStatus interface {
	Waiting() int
	Reachable() bool
}

// newRegistry is a registry with the process and Go runtime collectors.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector())
	return reg
}

// registerTeam adds the team store's gauges under prefix; nothing when
// team is nil (no team store configured: the gauges are absent rather
// than a misleading 0).
func registerTeam(reg *prometheus.Registry, prefix string, team TeamStatus) {
	if team == nil {
		return
	}
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: prefix + "outbox_waiting",
		Help: "Records in the team-store outbox not pushed yet.",
	}, func() float64 { return float64(team.Waiting()) }))
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: prefix + "team_store_reachable",
		Help: "1 when the team store answered lately, else 0.",
	}, func() float64 {
		if team.Reachable() {
			return 1
		}
		return 0
	}))
}

// oneOf is v when it is one of the words allowed, else "other": a label
// value from outside (a result word) can never grow the series.
func oneOf(v string, allowed ...string) string {
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	return "other"
}

// counter, counterVec, histogram and gauge are the collectors of this
// package, named and explained once each.
func counter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
}

func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

func histogram(name, help string, buckets []float64) prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
}

func gauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
}
