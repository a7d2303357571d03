package webhook

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// referenceReceiver is the yardstick of issue 24 §3b: the same HMAC
// check and the same durability per delivery (temporary file, fsync,
// rename, directory fsync), each request on its own, no rules.
type referenceReceiver struct {
	dir  string
	next atomic.Int64
}

func (rr *referenceReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		http.Error(w, "body", http.StatusBadRequest)
		return
	}
	res, err := events.Verify(r.Header.Get(events.SignatureHeader), body, []events.Secret{secret.New(canarySecret)}, time.Now())
	if err != nil || !res.Valid {
		http.Error(w, "signature", http.StatusUnauthorized)
		return
	}
	name := fmt.Sprintf("%012d.http", rr.next.Add(1))
	tmp := filepath.Join(rr.dir, "."+name+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = f.Write(body)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(rr.dir, name))
	}
	if err == nil {
		err = syncDir(rr.dir)
	}
	if err != nil {
		http.Error(w, "store", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"status":200,"result":"ACK"}`)
}

// blast sends n signed deliveries (one event each, its own subject) from
// workers keep-alive connections and returns deliveries/s and p99.
func blast(b *testing.B, url string, n, workers int, tag string) (float64, time.Duration) {
	b.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = ev{subject: fmt.Sprintf("%s-%d", tag, i), seq: 1}.json()
	}
	var next atomic.Int64
	var failed atomic.Int64
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(bodies[i]))
				req.Header.Set(events.SignatureHeader, events.Sign(secret.New(canarySecret), time.Now().Unix(), bodies[i]))
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat[i] = time.Since(t0)
				if resp.StatusCode != http.StatusOK {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	if f := failed.Load(); f > 0 {
		b.Fatalf("%s: %d of %d deliveries not ACKed", tag, f, n)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return float64(n) / el.Seconds(), lat[n*99/100]
}

// BenchmarkThroughputVsReference offers b.N deliveries from 16 workers
// to event listen's handler and then to the reference receiver, on the
// same machine in the same run, and reports both rates and their ratio.
// The rate limit is off (one sender at full speed is the point here).
// dlv/batch is how many deliveries the committer stored together on
// average: what the one committer's throughput rests on, and less
// swayed by the machine's load than the rates.
func BenchmarkThroughputVsReference(b *testing.B) {
	var batches, stored atomic.Int64
	onBatch := func(n int, _ time.Duration) { batches.Add(1); stored.Add(int64(n)) }
	h, _, err := Open(Config{Dir: b.TempDir(), Receiver: events.ReceiverOptions{Secrets: []events.Secret{secret.New(canarySecret)}, RateLimit: -1}, OnBatch: onBatch})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ours := "http://" + benchServe(b, h) + "/webhook"
	ref := "http://" + benchServe(b, &referenceReceiver{dir: b.TempDir()}) + "/webhook"
	n := max(b.N, 200)
	b.ResetTimer()
	ourRate, ourP99 := blast(b, ours, n, 16, "ours")
	refRate, refP99 := blast(b, ref, n, 16, "ref")
	b.StopTimer()
	b.ReportMetric(ourRate, "listen-dlv/s")
	b.ReportMetric(refRate, "reference-dlv/s")
	b.ReportMetric(ourRate/refRate, "ratio")
	b.ReportMetric(float64(ourP99.Microseconds())/1000, "listen-p99-ms")
	b.ReportMetric(float64(refP99.Microseconds())/1000, "reference-p99-ms")
	if n := batches.Load(); n > 0 {
		b.ReportMetric(float64(stored.Load())/float64(n), "dlv/batch")
	}
}

func benchServe(b *testing.B, h http.Handler) string {
	ln, err := Listen("127.0.0.1:0", "", "")
	if err != nil {
		b.Fatal(err)
	}
	srv := NewServer(h)
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// benchKeys is how many keys BenchmarkStateLookup stores
// (B2BX_BENCH_KEYS, default 1,000,000).
func benchKeys(b *testing.B) int {
	if v := os.Getenv("B2BX_BENCH_KEYS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 1_000_000
}

func rssMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}

// BenchmarkStateLookup stores B2BX_BENCH_KEYS idempotency keys (records
// as the receiver writes them, in batches of 10,000) in a state file,
// then times b.N lookups of random keys (half present, half absent) and
// reports p50/p99 and the process's peak RSS.
func BenchmarkStateLookup(b *testing.B) {
	n := benchKeys(b)
	st, err := OpenState(filepath.Join(b.TempDir(), StateFile), 0)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	key := func(i int) string {
		return fmt.Sprintf("13:4098765000003:4012345%06d:PO-%d:confirmed:1", i%1000000, i)
	}
	value := []byte(`{"e":123456,"d":12345,"o":"processed","h":"O3xsgeb5+HzWb4XDD5MpabCXOeGcLXGi8apmZzSX5iU=","n":"000000012345.http","p":-1,"t":1773311460}`)
	t0 := time.Now()
	const batch = 10_000
	at := time.Now().Unix()
	for i := 0; i < n; i += batch {
		es := make([]events.StateEntry, 0, batch)
		for j := i; j < min(n, i+batch); j++ {
			es = append(es, events.StateEntry{Kind: events.StateKey, Key: key(j), Value: value, At: at})
		}
		if err := st.Apply(es, events.StateMeta{}, time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
	build := time.Since(t0)
	rng := rand.New(rand.NewPCG(1, 2))
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := rng.IntN(2 * n)
		t := time.Now()
		_, ok, err := st.Get(events.StateKey, key(k))
		lat = append(lat, time.Since(t))
		if err != nil || ok != (k < n) {
			b.Fatalf("key %d: ok %v err %v", k, ok, err)
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(n), "keys")
	b.ReportMetric(build.Seconds(), "build-s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(rssMB(), "peak-rss-MB")
}

// BenchmarkStateApply is one batch's state write as the committer makes
// it after each batch: 10 keys, an id and a stream each, the counters.
func BenchmarkStateApply(b *testing.B) {
	st, err := OpenState(filepath.Join(b.TempDir(), StateFile), 0)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	value := []byte(`{"e":123456,"d":12345,"o":"processed","h":"O3xsgeb5+HzWb4XDD5MpabCXOeGcLXGi8apmZzSX5iU=","n":"000000012345.http","p":-1,"t":1773311460}`)
	at := time.Now()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		es := make([]events.StateEntry, 0, 30)
		for j := range 10 {
			k := strconv.Itoa(n*10 + j)
			es = append(es, events.StateEntry{Kind: events.StateKey, Key: "13:4098765000003:PO-" + k, Value: value, At: at.Unix()},
				events.StateEntry{Kind: events.StateID, Key: "e-" + k, Value: value, At: at.Unix()},
				events.StateEntry{Kind: events.StateStream, Key: "s-" + k, Value: value})
		}
		if err := st.Apply(es, events.StateMeta{Deliveries: n}, at); err != nil {
			b.Fatal(err)
		}
		n++
	}
}
