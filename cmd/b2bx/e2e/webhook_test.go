//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/events/webhook"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/internal/syncbuf"
)

const webhookCanary = "whsec_e2e-CANARY-5b7d"

// proc is a running b2bx with its stdout lines on a channel.
type proc struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr *syncbuf.Buffer
	done   chan struct{}
}

func startProc(t *testing.T, w *world, stdin string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = w.env, w.dir
	cmd.Stdin = strings.NewReader(stdin)
	p := &proc{cmd: cmd, lines: make(chan string, 10000), stderr: &syncbuf.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 4<<20), 4<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.stop(t) })
	return p
}

// stop ends the process with SIGTERM (then SIGKILL) and waits.
func (p *proc) stop(t *testing.T) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

var listenAddrRE = regexp.MustCompile(`receiving on (http://127\.0\.0\.1:\d+)`)

// startListen runs `b2bx event listen --json` on a free port and returns
// it with its URL.
func startListen(t *testing.T, w *world, dir string) (*proc, string) {
	t.Helper()
	p := startProc(t, w, webhookCanary+"\n", "event", "listen", "--secret-stdin", "--addr", "127.0.0.1:0", "--dir", dir, "--json")
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := listenAddrRE.FindStringSubmatch(p.stderr.String()); m != nil {
			return p, m[1]
		}
		select {
		case <-p.done:
			t.Fatalf("event listen ended: %s", p.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("event listen did not say where it listens: %s", p.stderr)
	return nil, ""
}

// nextRecord reads the next JSON line of event listen.
func nextRecord(t *testing.T, p *proc, timeout <-chan time.Time) webhook.Record {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		require.True(t, ok, "event listen ended: %s", p.stderr)
		require.NotContains(t, l, webhookCanary)
		var r webhook.Record
		require.NoError(t, json.Unmarshal([]byte(l), &r), l)
		return r
	case <-timeout:
		t.Fatalf("no delivery in time; listen stderr: %s", p.stderr)
	}
	return webhook.Record{}
}

func recHas(r webhook.Record, code events.Code, msg string) bool {
	for _, f := range r.Findings {
		if f.Code == code && strings.Contains(f.Message, msg) {
			return true
		}
	}
	return false
}

func recSubject(r webhook.Record) (string, int64) {
	if len(r.Events) == 0 {
		return "", 0
	}
	return r.Events[0].Subject, r.Events[0].Sequence
}

// TestSimWebhookFaultsShowInEventListen runs `b2bx sim --webhook --faults
// all` against `b2bx event listen` and checks each fault's finding.
func TestSimWebhookFaultsShowInEventListen(t *testing.T) {
	w := newWorld(t)
	w.addSecret(webhookCanary)
	dir := filepath.Join(w.dir, "captures")
	listen, url := startListen(t, w, dir)
	sim := startProc(t, w, webhookCanary+"\n", "sim", "--json", "--seed", "empty", "--webhook", url+"/webhook", "--secret-stdin",
		"--faults", "all", "--retry-scale", "300", "--fault-pause", "20ms", "--heartbeat", "1h")

	var recs []webhook.Record
	timeout := time.After(60 * time.Second)
	for {
		r := nextRecord(t, listen, timeout)
		recs = append(recs, r)
		if s, q := recSubject(r); strings.HasPrefix(s, "fault/burst@") && q == 101 && r.Status == http.StatusOK {
			break
		}
	}
	find := func(what string, ok func(webhook.Record) bool) webhook.Record {
		t.Helper()
		for _, r := range recs {
			if ok(r) {
				return r
			}
		}
		t.Fatalf("no delivery shows %s; deliveries: %+v", what, recs)
		return webhook.Record{}
	}
	find("a DUPLICATE with the original result", func(r webhook.Record) bool {
		s, _ := recSubject(r)
		return strings.HasPrefix(s, "fault/duplicate@") && r.Result == events.ResultDuplicate && recHas(r, events.CodeDuplicate, "") &&
			r.Events[0].Original != nil && r.Events[0].Original.Result == events.ResultACK
	})
	parked := find("the out-of-order event parked", func(r webhook.Record) bool {
		s, q := recSubject(r)
		return strings.HasPrefix(s, "fault/out-of-order@") && q == 2 && r.Status == http.StatusAccepted && r.Result == events.ResultParked
	})
	find("the parked event released", func(r webhook.Record) bool {
		s, q := recSubject(r)
		return strings.HasPrefix(s, "fault/out-of-order@") && q == 1 && recHas(r, events.CodeOutOfOrder, "") && len(r.Released) == 1 && r.Released[0].Delivery == parked.Delivery
	})
	find("the HEARTBEAT naming the lost sequence", func(r webhook.Record) bool {
		return recHas(r, events.CodeSequenceMissing, "subject fault/gap") && recHas(r, events.CodeSequenceMissing, "replay sequence 2 ")
	})
	find("the replay filling the gap", func(r webhook.Record) bool {
		s, q := recSubject(r)
		return strings.HasPrefix(s, "fault/gap@") && q == 2 && r.Result == events.ResultACK
	})
	find("a bad signature", func(r webhook.Record) bool {
		return r.Status == http.StatusUnauthorized && recHas(r, events.CodeSignatureInvalid, "no v1")
	})
	find("a stale timestamp", func(r webhook.Record) bool {
		return r.Status == http.StatusUnauthorized && recHas(r, events.CodeSignatureInvalid, "behind the clock")
	})
	find("an oversized event", func(r webhook.Record) bool {
		return r.Status == http.StatusRequestEntityTooLarge && recHas(r, events.CodeEventTooLarge, "more than 1 MiB")
	})
	find("the burst over the rate", func(r webhook.Record) bool {
		return r.Status == http.StatusTooManyRequests && r.RetryAfter == 1 && recHas(r, events.CodeRateLimit, "100 events/s")
	})
	sim.stop(t)
	listen.stop(t)
	w.requireNoSecret(t, "sim stderr", sim.stderr.String())
	w.requireNoSecret(t, "listen stderr", listen.stderr.String())
	requireNoSecretIn(t, w, dir)

	// The capture directory is what event inspect reads: in order, the
	// receiver's outcomes, every stream complete.
	res := w.b2bx(t, nil, webhookCanary+"\n", "event", "inspect", dir, "--from-start", "--secret-stdin", "--json")
	var rep events.Report
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &rep), res.String())
	for _, st := range rep.Streams {
		require.Empty(t, st.Parked, "stream %s", st.Subject)
		require.Empty(t, st.Missing, "stream %s", st.Subject)
	}
	for _, d := range rep.Deliveries {
		require.NotNil(t, d.Signature, d.Name)
		require.True(t, d.Signature.Valid, "%s: the captured Date is the arrival time, so the signature verifies", d.Name)
	}
}

func requireNoSecretIn(t *testing.T, w *world, dir string) {
	t.Helper()
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, rerr := os.ReadFile(p)
			require.NoError(t, rerr)
			w.requireNoSecret(t, p, string(b))
		}
		return err
	}))
}

// TestEventListenKill9KeepsEveryACK kills the receiver (SIGKILL) while
// deliveries are in flight, restarts it on the same directory and
// resends everything: every event ACKed before the kill answers
// DUPLICATE (it is not processed twice), the rest are processed once.
func TestEventListenKill9KeepsEveryACK(t *testing.T) {
	w := newWorld(t)
	w.addSecret(webhookCanary)
	dir := filepath.Join(w.dir, "captures")
	listen, url := startListen(t, w, dir)
	go func() { // drain its lines
		for range listen.lines {
		}
	}()
	const n = 400
	bodies := make([][]byte, n)
	for i := range bodies {
		// One subject per event: concurrent deliveries are not ordered.
		bodies[i] = []byte(fmt.Sprintf(`{"specversion":"2.0","id":"k-%d","type":"nutrab2b.orders.confirmed.v2","source":"/e2e","subject":"S-%d","time":"2026-03-12T10:30:00Z","sender":"4012345000009","receiver":"4098765000003","correlationid":"c-%d","idempotencykey":"4012345000009:S-%d:confirmed:1","sequence":1,"env":"test","data":{}}`, i, i, i, i))
	}
	sec := secret.New(webhookCanary)
	post := func(url string, body []byte) (int, events.Answer) {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set(events.SignatureHeader, events.Sign(sec, time.Now().Unix(), body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, events.Answer{}
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var a events.Answer
		_ = json.Unmarshal(raw, &a)
		return resp.StatusCode, a
	}
	acked := make([]bool, n)
	var mu sync.Mutex
	count := 0
	killed := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				st, a := post(url, bodies[i])
				for st == http.StatusTooManyRequests && a.RetryAfter > 0 {
					// 100 events/s per sender: wait as told, resend.
					time.Sleep(time.Duration(a.RetryAfter) * time.Second)
					st, a = post(url, bodies[i])
				}
				if st == http.StatusOK && a.Result == events.ResultACK {
					mu.Lock()
					acked[i] = true
					count++
					if count == n/2 {
						once.Do(func() { _ = listen.cmd.Process.Kill(); close(killed) })
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		select {
		case next <- i:
		case <-killed:
		}
	}
	close(next)
	wg.Wait()
	select {
	case <-killed:
	default:
		_ = listen.cmd.Process.Kill()
		t.Fatalf("only %d of %d events were ACKed; listen stderr: %s", count, n, listen.stderr)
	}
	<-listen.done
	before := 0
	for _, a := range acked {
		if a {
			before++
		}
	}
	require.GreaterOrEqual(t, before, n/2)

	listen2, url2 := startListen(t, w, dir)
	go func() {
		for range listen2.lines {
		}
	}()
	processed := 0
	for i := range n {
		st, a := post(url2, bodies[i])
		for st == http.StatusTooManyRequests && a.RetryAfter > 0 {
			time.Sleep(time.Duration(a.RetryAfter) * time.Second)
			st, a = post(url2, bodies[i])
		}
		require.Equal(t, http.StatusOK, st, "event %d after the restart: %+v", i, a)
		if acked[i] {
			require.Equal(t, events.ResultDuplicate, a.Result, "event %d was ACKed before the kill: after the restart it must not be processed again", i)
			require.Equal(t, events.ResultACK, a.Events[0].Original.Result)
		}
		if a.Result == events.ResultACK {
			processed++
		}
	}
	listen2.stop(t)
	// Every key processed exactly once over both runs, by the captures.
	res := w.b2bx(t, nil, "", "event", "inspect", dir, "--from-start", "--json")
	var rep events.Report
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &rep), res.String())
	once1 := map[string]int{}
	for _, e := range rep.Events {
		if e.Outcome == events.OutcomeProcessed {
			once1[e.IdempotencyKey]++
		}
	}
	require.Len(t, once1, n, "every event processed")
	for k, c := range once1 {
		require.Equal(t, 1, c, "key %s processed %d times", k, c)
	}
	t.Logf("%d ACKed before the kill; %d processed after the restart", before, processed)
}
