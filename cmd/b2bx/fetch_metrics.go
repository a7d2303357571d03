package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/internal/metrics"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// fetchMetricsFlags are fetch --all's metrics for a scheduler: an admin
// listener while it runs and a node_exporter textfile when it ends.
type fetchMetricsFlags struct {
	admin, file *string
}

func (m *fetchMetricsFlags) register(fs *flag.FlagSet) {
	m.admin = fs.String("admin", "", "with --all: serve /healthz and Prometheus /metrics on `HOST:PORT` while the run lasts (no host: loopback)")
	m.file = fs.String("metrics-file", "", "with --all: write the run's metrics to `PATH.prom` when it ends, atomically (node_exporter's textfile collector)")
}

// check refuses the flags without --all and a bad address early.
func (m *fetchMetricsFlags) check(all bool) error {
	if (*m.admin != "" || *m.file != "") && !all {
		return errors.New("--admin and --metrics-file are for fetch --all --ack (a scheduled run)")
	}
	if *m.admin != "" {
		if _, err := metrics.AdminAddr(*m.admin); err != nil {
			return err
		}
	}
	return nil
}

// run runs body (fetch --all) with the metrics wired into f; the run
// succeeded when body returns exitOK.
func (m *fetchMetricsFlags) run(e *env, f *fetcher, team metrics.TeamStatus, body func() int) int {
	if *m.admin == "" && *m.file == "" {
		return body()
	}
	f.mx = metrics.NewFetch(team, time.Now()) // team: the outbox's gauges, nil without a team store
	if *m.admin != "" {
		adm, err := metrics.ServeAdmin(*m.admin, f.mx.Registry(), nil)
		if err != nil {
			return fail(e, "fetch", f.asJSON, exitUsage, err)
		}
		defer adm.Close()
		fmt.Fprintf(e.stderr, "b2bx fetch: admin on http://%s (/healthz, /metrics)\n", adm.Addr())
	}
	code := body()
	f.mx.End(time.Now(), code == exitOK)
	if *m.file != "" {
		if err := metrics.WriteTextfile(*m.file, f.mx.Registry()); err != nil {
			fmt.Fprintf(e.stderr, "b2bx fetch: the metrics were not written: %s\n", termsafe.String(err.Error()))
			if code == exitOK {
				code = exitStorage
			}
		}
	}
	return code
}

// count adds one processed delivery to the run's metrics.
func (f *fetcher) count(res *worker.Result) {
	if f.mx == nil {
		return
	}
	var n int64
	if res != nil && res.Stored != nil {
		n = res.Stored.Meta.Size
	}
	f.mx.Delivery(string(worker.Classify(res)), n, time.Since(f.began))
}
