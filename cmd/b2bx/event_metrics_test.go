package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/internal/syncbuf"
)

// TestEventListenAdmin: --admin serves /healthz and /metrics apart from
// the deliveries' listener; a delivery and a refused one are counted;
// no secret in what it serves.
func TestEventListenAdmin(t *testing.T) {
	stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	e := &env{stdin: strings.NewReader(eventCanary + "\n"), stdout: stdout, stderr: stderr, getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, done := startListen(t, ctx, e, stderr, []string{"event", "listen", "--secret-stdin", "--addr", "127.0.0.1:0", "--dir", t.TempDir(), "--admin", ":0"})
	m := regexp.MustCompile(`admin on http://(127\.0\.0\.1:\d+) \(/healthz, /metrics\)`).FindStringSubmatch(stderr.String())
	require.NotNil(t, m, "the admin address is said before the receiving one: %s", stderr)
	admin := "http://" + m[1]
	require.NotEqual(t, addr, m[1])
	body, err := os.ReadFile(evTestdata + "valid_event.json")
	require.NoError(t, err)
	for _, sec := range []string{eventCanary, "wrong"} {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(body))
		req.Header.Set(events.SignatureHeader, events.Sign(secret.New(sec), time.Now().Unix(), body))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
	}
	get := func(path string) string {
		resp, err := http.Get(admin + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	require.Equal(t, "ok\n", get("/healthz"))
	wants := []string{`b2bx_listen_deliveries_total{result="ACK",status="200"} 1`, `b2bx_listen_deliveries_total{result="REJECTED",status="401"} 1`,
		`b2bx_listen_events_total{result="ACK"} 1`, "b2bx_listen_parked_events 0", "b2bx_listen_delivery_seconds_count 2", "b2bx_listen_commit_seconds_count 1"}
	// a delivery is recorded just after its answer (Handler.OnRecord), so
	// the client may read the answer first: wait for every record, bounded
	var out string
	missing := func() []string {
		var m []string
		for _, want := range wants {
			if !strings.Contains(out, want) {
				m = append(m, want)
			}
		}
		return m
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		out = get("/metrics")
		if len(missing()) == 0 || time.Now().After(deadline) {
			break
		}
	}
	require.Empty(t, missing(), "after 10 s:\n%s", out)
	require.NotContains(t, out, "outbox_waiting", "no team store: absent")
	require.NotContains(t, out, eventCanary)
	cancel()
	require.Equal(t, exitOK, <-done, stderr.String())
	_, err = http.Get(admin + "/healthz")
	require.Error(t, err, "the admin listener ends with the receiver")
}

func TestEventListenAdminBadAddress(t *testing.T) {
	ev := newEventEnv(t)
	code, _, errOut := ev.run(t, eventCanary+"\n", "event", "listen", "--secret-stdin", "--dir", t.TempDir(), "--admin", "9464")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "is not HOST:PORT")
}

// TestFetchAllMetricsFile: fetch --all --metrics-file writes the run's
// metrics for node_exporter when it ends; the flags need --all.
func TestFetchAllMetricsFile(t *testing.T) {
	s := newSimEnv(t)
	for range 2 {
		s.add(t, "ORDRSP", ediPayload(2048), partnersim.PayloadFault{})
		s.clock.Advance(time.Second)
	}
	path := filepath.Join(t.TempDir(), "b2bx_fetch.prom")
	code, _, errOut := s.run(t, "", "fetch", "--all", "--ack", "--metrics-file", path)
	require.Equal(t, exitOK, code, errOut)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	out := string(b)
	for _, want := range []string{`b2bx_fetch_deliveries_total{result="ok"} 2`, `b2bx_fetch_deliveries_total{result="integrity"} 0`,
		"b2bx_fetch_run_success 1", "b2bx_fetch_delivery_seconds_count 2", fmt.Sprintf("b2bx_fetch_bytes_total %d", 2*len(ediPayload(2048)))} {
		require.Contains(t, out, want)
	}
	code, _, errOut = s.run(t, "", "fetch", "--next", "--metrics-file", path)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "are for fetch --all")
	code, _, errOut = s.run(t, "", "fetch", "--all", "--ack", "--metrics-file", filepath.Join(t.TempDir(), "x.txt"))
	require.Equal(t, exitStorage, code)
	require.Contains(t, errOut, "*.prom")
}
