package apiclient_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
)

const benchToken = "bench-"

// benchEnv is a partnersim on loopback HTTP/1.1 with one claimed entry of
// size bytes; the lease never ends because the sim clock stands still.
type benchEnv struct {
	c      *apiclient.Client
	hc     *http.Client
	claim  *apiclient.Claim
	expect apiclient.Expect
	url    string
}

func newBenchEnv(b *testing.B, size int) *benchEnv {
	b.Helper()
	sim := partnersim.New(partnersim.WithClock(partnersim.NewFakeClock(time.Time{})),
		partnersim.WithTokens(partnersim.SequentialTokens(benchToken)), partnersim.WithResponder(nil))
	require.NoError(b, sim.AddConnection(partnersim.Connection{ID: simConn, Tenant: simTenant}))
	require.NoError(b, sim.AddKey(partnersim.Key{ID: keyFull, Secret: simSecret, Tenant: simTenant, Scopes: partnersim.AllScopes}))
	body := payload(size)
	id, err := sim.AddEntry(simConn, partnersim.Delivery{MessageType: "ORDRSP", Payload: body})
	require.NoError(b, err)
	srv, err := partnersim.Serve(sim, partnersim.HTTP1)
	require.NoError(b, err)
	b.Cleanup(srv.Close)
	hc := apiclient.DefaultHTTPClient()
	b.Cleanup(hc.CloseIdleConnections)
	c, err := apiclient.New(apiclient.Config{
		BaseURL: srv.URL, ConnectionID: simConn, HTTPClient: hc,
		Credentials: apiclient.StaticCredentials{Mailbox: cred(keyFull, simSecret)},
		Limiter:     rate.NewLimiter(rate.Inf, 0), Logger: slog.New(slog.DiscardHandler),
	})
	require.NoError(b, err)
	claim, err := c.Claim(context.Background(), id)
	require.NoError(b, err)
	return &benchEnv{c: c, hc: hc, claim: claim, expect: apiclient.Expect{Size: int64(size), SHA256: hexSum(body)},
		url: srv.URL + partnersim.BasePath + "/" + simConn + "/mailbox/" + id + "/payload"}
}

// verified is the real thing: one Download with all checks.
func (e *benchEnv) verified(b *testing.B) {
	var p apiclient.Progress
	rep, err := e.c.Download(context.Background(), e.claim, e.expect, io.Discard, &p)
	if err != nil || !rep.OK() {
		b.Fatalf("download: %v", err)
	}
}

// baseline is the unverified reference: GET, io.Copy through SHA-256,
// nothing else (no size, listing or trailer checks, no progress).
func (e *benchEnv) baseline(b *testing.B) {
	req, _ := http.NewRequest(http.MethodGet, e.url, nil)
	req.Header.Set("Authorization", "Bearer "+keyFull+":"+simSecret)
	req.Header.Set("X-B2B-Claim-Token", benchToken+"0001")
	resp, err := e.hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(io.Discard, h), resp.Body)
	resp.Body.Close()
	if err != nil || n != e.expect.Size || hex.EncodeToString(h.Sum(nil)) != e.expect.SHA256 {
		b.Fatalf("baseline: %d bytes, %v", n, err)
	}
}

var benchSizes = []int{1 << 20, 16 << 20}

// BenchmarkDownload reports MB/s and B/op of the verified download and the
// unverified baseline for 1 MiB and 16 MiB (B/op must not grow with size).
func BenchmarkDownload(b *testing.B) {
	for _, size := range benchSizes {
		e := newBenchEnv(b, size)
		for _, v := range []struct {
			name string
			run  func(*testing.B)
		}{{"verified", e.verified}, {"baseline", e.baseline}} {
			b.Run(fmt.Sprintf("%s/%dMiB", v.name, size>>20), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					v.run(b)
				}
			})
		}
	}
}

// BenchmarkDownloadRatio interleaves both on 16 MiB so machine noise hits
// them alike, and reports verified throughput as a share of the baseline.
func BenchmarkDownloadRatio(b *testing.B) {
	e := newBenchEnv(b, 16<<20)
	var tv, tb time.Duration
	b.SetBytes(2 * 16 << 20)
	for b.Loop() {
		t0 := time.Now()
		e.baseline(b)
		t1 := time.Now()
		e.verified(b)
		tv += time.Since(t1)
		tb += t1.Sub(t0)
	}
	b.ReportMetric(float64(tb)/float64(tv)*100, "%-of-baseline")
	mb := float64(b.N) * 16
	b.ReportMetric(mb/tv.Seconds()*1.048576, "verified-MB/s")
	b.ReportMetric(mb/tb.Seconds()*1.048576, "baseline-MB/s")
}
