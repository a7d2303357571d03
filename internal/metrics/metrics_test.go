package metrics

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/events/webhook"
)

// val is the value of the one metric c collects.
func val(t *testing.T, c prometheus.Collector) float64 {
	t.Helper()
	ch := make(chan prometheus.Metric, 1)
	c.Collect(ch)
	var m dto.Metric
	require.NoError(t, (<-ch).Write(&m))
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	}
	t.Fatal("not a counter or gauge")
	return 0
}

type fakeTeam struct {
	waiting   int
	reachable bool
}

func (f fakeTeam) Waiting() int    { return f.waiting }
func (f fakeTeam) Reachable() bool { return f.reachable }

// names are the metric families g gathers.
func names(t *testing.T, g prometheus.Gatherer) map[string]bool {
	t.Helper()
	mfs, err := g.Gather()
	require.NoError(t, err)
	out := map[string]bool{}
	for _, mf := range mfs {
		out[mf.GetName()] = true
	}
	return out
}

// text is what g gathers in the text format.
func text(t *testing.T, g prometheus.Gatherer) string {
	t.Helper()
	mfs, err := g.Gather()
	require.NoError(t, err)
	var b strings.Builder
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		require.NoError(t, enc.Encode(mf))
	}
	return b.String()
}

func stream(sender, subject string, parked ...int64) events.Stream {
	return events.Stream{Sender: sender, Subject: subject, Parked: parked}
}

// TestListenCountsDeliveriesEventsAndParked: results and statuses as
// labels, an unknown result as "other", the parked gauge follows the
// streams the answers report.
func TestListenCountsDeliveriesEventsAndParked(t *testing.T) {
	l := NewListen(nil)
	rec := func(result string, status int, committed bool, evs []string, streams ...events.Stream) webhook.Record {
		a := events.Answer{Status: status, Result: result, Committed: committed, Streams: streams}
		for _, r := range evs {
			a.Events = append(a.Events, events.EventAnswer{Result: r})
		}
		return webhook.Record{Latency: 3 * time.Millisecond, Answer: a}
	}
	l.Record(rec(events.ResultACK, 200, true, []string{events.ResultACK, events.ResultACK}))
	l.Record(rec(events.ResultParked, 202, true, []string{events.ResultParked}, stream("4012345000009", "PO-1", 5, 6)))
	l.Record(rec(events.ResultParked, 202, true, []string{events.ResultParked}, stream("4012345000016", "PO-2", 9)))
	l.Record(rec("BUSY\x1b[31m", 999, false, nil))
	require.Equal(t, 1.0, val(t, l.deliveries.WithLabelValues("ACK", "200")))
	require.Equal(t, 2.0, val(t, l.deliveries.WithLabelValues("PARKED", "202")))
	require.Equal(t, 1.0, val(t, l.deliveries.WithLabelValues("other", "other")))
	require.Equal(t, 2.0, val(t, l.evs.WithLabelValues("ACK")))
	out := text(t, l.Registry())
	require.Contains(t, out, "b2bx_listen_parked_events 3")
	// the gap of PO-1 fills: its parked events are released
	a := rec(events.ResultACK, 200, true, []string{events.ResultACK}, stream("4012345000009", "PO-1"))
	a.Released = []events.Released{{Event: 1}, {Event: 2}}
	l.Record(a)
	require.Contains(t, text(t, l.Registry()), "b2bx_listen_parked_events 1")
	require.Equal(t, 2.0, val(t, l.released))
	require.Equal(t, uint64(5), histCount(t, l.Registry(), "b2bx_listen_delivery_seconds"))
	l.Batch(4, 2*time.Millisecond)
	require.Equal(t, uint64(1), histCount(t, l.Registry(), "b2bx_listen_commit_seconds"))
	// no label value comes from the sender's text
	out = text(t, l.Registry())
	for _, s := range []string{"4012345000009", "PO-1", "BUSY", "\x1b"} {
		require.NotContains(t, out, s)
	}
}

func histCount(t *testing.T, g prometheus.Gatherer, name string) uint64 {
	t.Helper()
	mfs, err := g.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetHistogram().GetSampleCount()
		}
	}
	t.Fatalf("no %s", name)
	return 0
}

// TestTeamGaugesOnlyWithATeamStore: nil → absent; a TeamStatus → its
// values.
func TestTeamGaugesOnlyWithATeamStore(t *testing.T) {
	for _, prefix := range []string{"b2bx_listen_", "b2bx_fetch_"} {
		noTeam, team := NewListen(nil).Registry(), NewListen(fakeTeam{waiting: 7, reachable: true}).Registry()
		if prefix == "b2bx_fetch_" {
			noTeam, team = NewFetch(nil, time.Now()).Registry(), NewFetch(fakeTeam{waiting: 7, reachable: true}, time.Now()).Registry()
		}
		require.False(t, names(t, noTeam)[prefix+"outbox_waiting"])
		require.False(t, names(t, noTeam)[prefix+"team_store_reachable"])
		out := text(t, team)
		require.Contains(t, out, prefix+"outbox_waiting 7")
		require.Contains(t, out, prefix+"team_store_reachable 1")
	}
}

// TestFetchRun: classes, bytes, the run's end and success.
func TestFetchRun(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	f := NewFetch(nil, t0)
	f.Delivery("ok", 1000, time.Second)
	f.Delivery("ok", 24, time.Second)
	f.Delivery("integrity", 0, time.Second)
	f.Delivery("something new", 0, time.Second)
	f.End(t0.Add(90*time.Second), false)
	require.Equal(t, 2.0, val(t, f.deliveries.WithLabelValues("ok")))
	require.Equal(t, 1.0, val(t, f.deliveries.WithLabelValues("other")))
	require.Equal(t, 0.0, val(t, f.deliveries.WithLabelValues("storage")), "present at 0")
	require.Equal(t, 1024.0, val(t, f.bytes))
	require.Equal(t, 90.0, val(t, f.runSeconds))
	require.Equal(t, 0.0, val(t, f.success))
	require.Equal(t, 1_700_000_090.0, val(t, f.runEnd))
	f.End(t0.Add(time.Minute), true)
	require.Equal(t, 1.0, val(t, f.success))
}

func TestAdminAddr(t *testing.T) {
	for in, want := range map[string]string{":9464": "127.0.0.1:9464", "0.0.0.0:9464": "0.0.0.0:9464", "[::1]:0": "[::1]:0", "localhost:9464": "localhost:9464"} {
		got, err := AdminAddr(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"9464", "", "127.0.0.1:", "127.0.0.1:notaport"} {
		_, err := AdminAddr(bad)
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "127.0.0.1:9464", "says what to give")
	}
}

// TestServeAdmin: /healthz and /metrics on their own listener, loopback
// without a host, bounded by timeouts, GET only.
func TestServeAdmin(t *testing.T) {
	l := NewListen(nil)
	l.Record(webhook.Record{Answer: events.Answer{Status: 200, Result: events.ResultACK, Committed: true}})
	var unhealthy error
	a, err := ServeAdmin(":0", l.Registry(), func() error { return unhealthy })
	require.NoError(t, err)
	defer a.Close()
	require.True(t, strings.HasPrefix(a.Addr().String(), "127.0.0.1:"), a.Addr().String())
	require.NotZero(t, a.srv.ReadHeaderTimeout)
	require.NotZero(t, a.srv.ReadTimeout)
	require.NotZero(t, a.srv.WriteTimeout)
	require.NotZero(t, a.srv.IdleTimeout)
	base := "http://" + a.Addr().String()
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/healthz")
	require.Equal(t, 200, code)
	require.Equal(t, "ok\n", body)
	unhealthy = io.ErrClosedPipe
	code, body = get("/healthz")
	require.Equal(t, 503, code)
	require.Contains(t, body, "unhealthy")
	code, body = get("/metrics")
	require.Equal(t, 200, code)
	require.Contains(t, body, `b2bx_listen_deliveries_total{result="ACK",status="200"} 1`)
	require.Contains(t, body, "process_resident_memory_bytes")
	resp, err := http.Post(base+"/metrics", "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	code, _ = get("/")
	require.Equal(t, 404, code)
	require.NoError(t, a.Close())
	_, err = http.Get(base + "/healthz")
	require.Error(t, err, "closed")
}

func TestServeAdminPortInUse(t *testing.T) {
	a, err := ServeAdmin("127.0.0.1:0", NewListen(nil).Registry(), nil)
	require.NoError(t, err)
	defer a.Close()
	_, err = ServeAdmin(a.Addr().String(), NewListen(nil).Registry(), nil)
	require.ErrorContains(t, err, "choose another port")
}

// TestWriteTextfile: atomically replaced, readable by another user,
// parseable, only *.prom, never through a symlink, no temporary left.
func TestWriteTextfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b2bx_fetch.prom")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o600))
	f := NewFetch(nil, time.Unix(1_700_000_000, 0))
	f.Delivery("ok", 10, time.Second)
	f.End(time.Unix(1_700_000_001, 0), true)
	require.NoError(t, WriteTextfile(path, f.Registry()))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(string(b)))
	require.NoError(t, err)
	require.Equal(t, 1.0, mfs["b2bx_fetch_run_success"].GetMetric()[0].GetGauge().GetValue())
	require.Contains(t, string(b), `b2bx_fetch_deliveries_total{result="ok"} 1`)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	ents, _ := os.ReadDir(dir)
	require.Len(t, ents, 1, "no temporary file left")

	require.ErrorContains(t, WriteTextfile(filepath.Join(dir, "m.txt"), f.Registry()), "*.prom")
	target := filepath.Join(dir, "elsewhere")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o600))
	link := filepath.Join(dir, "link.prom")
	require.NoError(t, os.Symlink(target, link))
	require.ErrorContains(t, WriteTextfile(link, f.Registry()), "not a regular file")
	b, _ = os.ReadFile(target)
	require.Equal(t, "keep", string(b))
	require.ErrorContains(t, WriteTextfile(filepath.Join(dir, "nodir", "x.prom"), f.Registry()), "must exist")
}
