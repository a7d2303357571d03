package partnersim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type download struct {
	resp    *http.Response
	body    []byte
	readErr error
	trailer string
	hasTr   bool // the trailer was announced
}

// fetch claims nothing: it reads the payload with token and keeps any read
// error instead of failing the test.
func (f *fixture) fetch(t *testing.T, ctx context.Context, conn, id, token string) download {
	t.Helper()
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url(conn, "mailbox", id, "payload"), nil)
	require.NoError(t, err)
	hr.Header.Set("Authorization", authAll)
	hr.Header.Set("X-B2B-Claim-Token", token)
	resp, err := f.hc.Do(hr)
	require.NoError(t, err)
	defer resp.Body.Close()
	d := download{resp: resp}
	_, d.hasTr = resp.Trailer[http.CanonicalHeaderKey(TrailerIntegrity)]
	d.body, d.readErr = io.ReadAll(resp.Body)
	d.trailer = resp.Trailer.Get(TrailerIntegrity)
	return d
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func lastPayloadOutcome(s *Sim, id string) string {
	out := ""
	for _, ev := range s.Audit() {
		if ev.Action == AuditPayloadDone && ev.DeliveryAttemptID == id {
			out = ev.Outcome
		}
	}
	return out
}

func TestPayloadFaults(t *testing.T) {
	const size = 200_000
	p := payload(size)
	sum := hexSum(p)
	cases := []struct {
		name  string
		fault PayloadFault
		check func(t *testing.T, d download)
		audit string
	}{
		{"none", PayloadFault{}, func(t *testing.T, d download) {
			require.NoError(t, d.readErr)
			require.Equal(t, p, d.body)
			require.Equal(t, "verified", d.trailer)
		}, "verified"},
		{"truncate, trailer failed", PayloadFault{Truncate: true, TruncateAt: 70_000}, func(t *testing.T, d download) {
			require.NoError(t, d.readErr, "a clean early end")
			require.Equal(t, p[:70_000], d.body)
			require.Equal(t, strconv.Itoa(size), d.resp.Header.Get("X-B2B-Payload-Size"))
			require.Equal(t, "failed", d.trailer)
		}, "failed"},
		{"truncate, trailer absent", PayloadFault{Truncate: true, TruncateAt: 70_000, Trailer: TrailerAbsent}, func(t *testing.T, d download) {
			require.NoError(t, d.readErr)
			require.Len(t, d.body, 70_000)
			require.False(t, d.hasTr)
			require.Empty(t, d.trailer)
		}, "failed"},
		{"truncate, lying trailer", PayloadFault{Truncate: true, TruncateAt: 10, Trailer: TrailerVerified}, func(t *testing.T, d download) {
			require.NoError(t, d.readErr)
			require.Len(t, d.body, 10)
			require.Equal(t, "verified", d.trailer)
		}, "failed"},
		{"truncate at zero", PayloadFault{Truncate: true}, func(t *testing.T, d download) {
			require.NoError(t, d.readErr)
			require.Empty(t, d.body)
			require.Equal(t, "failed", d.trailer)
		}, "failed"},
		{"wrong size header", PayloadFault{WrongSizeHeader: true}, func(t *testing.T, d download) {
			require.Equal(t, p, d.body)
			require.Equal(t, strconv.Itoa(size+1), d.resp.Header.Get("X-B2B-Payload-Size"))
			require.Equal(t, "verified", d.trailer)
		}, "verified"},
		{"wrong hash header", PayloadFault{WrongHashHeader: true}, func(t *testing.T, d download) {
			require.Equal(t, p, d.body)
			got := d.resp.Header.Get("X-B2B-Payload-SHA256")
			require.Len(t, got, 64)
			require.NotEqual(t, sum, got)
		}, "verified"},
		{"trailer failed", PayloadFault{Trailer: TrailerFailed}, func(t *testing.T, d download) {
			require.NoError(t, d.readErr)
			require.Equal(t, p, d.body)
			require.Equal(t, "failed", d.trailer)
		}, "failed"},
		{"no trailer", PayloadFault{Trailer: TrailerAbsent}, func(t *testing.T, d download) {
			require.NoError(t, d.readErr)
			require.Equal(t, p, d.body)
			require.False(t, d.hasTr)
			require.Empty(t, d.resp.Header.Get("Trailer"))
			require.Equal(t, int64(-1), d.resp.ContentLength)
		}, "failed"},
		{"reset mid-body", PayloadFault{Reset: true, ResetAt: 100_000}, func(t *testing.T, d download) {
			require.Error(t, d.readErr)
			require.LessOrEqual(t, len(d.body), 100_000)
			require.Empty(t, d.trailer)
		}, "failed"},
		{"reset after the last byte", PayloadFault{Reset: true, ResetAt: size}, func(t *testing.T, d download) {
			require.Error(t, d.readErr, "every byte may arrive, but never the end of the body")
			require.Empty(t, d.trailer)
		}, "failed"},
	}
	for _, m := range modes {
		for _, tc := range cases {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				f := newFixture(t, m.mode)
				id := f.addEntry(t, connA, p, tc.fault)
				cr := f.claim(t, connA, id)
				d := f.fetch(t, context.Background(), connA, id, cr.ClaimToken)
				require.Equal(t, http.StatusOK, d.resp.StatusCode)
				require.Equal(t, "no-store", d.resp.Header.Get("Cache-Control"))
				require.Empty(t, d.resp.Header.Get("Content-Length"))
				tc.check(t, d)
				require.Eventually(t, func() bool { return lastPayloadOutcome(f.sim, id) == tc.audit },
					2*time.Second, 5*time.Millisecond, "audit outcome")
				st, _ := f.sim.Entry(connA, id)
				require.Equal(t, StatusClaimed, st.Status, "a fault acknowledges nothing")
			})
		}
	}
}

func TestWrongListingValues(t *testing.T) {
	f := newFixture(t, HTTP1)
	p := payload(1000)
	f.addEntry(t, connA, p, PayloadFault{WrongListingSize: true, WrongListingHash: true})
	e := f.list(t, connA, "").Data[0]
	require.Equal(t, int64(1001), e.PayloadSize)
	require.Len(t, e.PayloadSHA256, 64)
	require.NotEqual(t, hexSum(p), e.PayloadSHA256)
	cr := f.claim(t, connA, e.DeliveryAttemptID)
	d := f.fetch(t, context.Background(), connA, e.DeliveryAttemptID, cr.ClaimToken)
	require.Equal(t, "1000", d.resp.Header.Get("X-B2B-Payload-Size"), "headers stay honest")
	require.Equal(t, hexSum(p), d.resp.Header.Get("X-B2B-Payload-SHA256"))
	require.Equal(t, p, d.body)
}

func TestSlowStreamCancelledIsFailedRead(t *testing.T) {
	inEachMode(t, func(t *testing.T, f *fixture) {
		// 100 kB at 2 kB/s needs 50 s; the client gives up after 300 ms.
		id := f.addEntry(t, connA, payload(100_000), PayloadFault{BytesPerSecond: 2000})
		cr := f.claim(t, connA, id)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		d := f.fetch(t, ctx, connA, id, cr.ClaimToken)
		require.Error(t, d.readErr)
		require.Greater(t, len(d.body), 0, "some bytes trickled in")
		require.Less(t, len(d.body), 100_000)
		require.Eventually(t, func() bool { return lastPayloadOutcome(f.sim, id) == "failed" },
			2*time.Second, 5*time.Millisecond)
	})
}

func TestPayloadFaultPerEndpointOverridesOnce(t *testing.T) {
	f := newFixture(t, HTTP1)
	p := payload(5000)
	id := f.addEntry(t, connA, p, PayloadFault{})
	f.sim.InjectFault(EndpointFault{Endpoint: EndpointPayload, Entry: id, Times: 1,
		Payload: PayloadFault{Truncate: true, TruncateAt: 100}})
	cr := f.claim(t, connA, id)
	d := f.fetch(t, context.Background(), connA, id, cr.ClaimToken)
	require.Len(t, d.body, 100)
	require.Equal(t, "failed", d.trailer)
	d = f.fetch(t, context.Background(), connA, id, cr.ClaimToken)
	require.Equal(t, p, d.body)
	require.Equal(t, "verified", d.trailer)
}

func TestSetEntryFault(t *testing.T) {
	f := newFixture(t, HTTP1)
	id := f.addEntry(t, connA, payload(50), PayloadFault{})
	require.NoError(t, f.sim.SetEntryFault(connA, id, PayloadFault{Trailer: TrailerFailed}))
	require.Error(t, f.sim.SetEntryFault(connA, "nope", PayloadFault{}))
	cr := f.claim(t, connA, id)
	require.Equal(t, "failed", f.fetch(t, context.Background(), connA, id, cr.ClaimToken).trailer)
}

// TestThrottleSlowsEveryPayload: WithThrottle applies to entries without a
// fault of their own (100 kB at 2 kB/s needs 50 s; the client gives up after
// 300 ms with part of the body), and keeps their integrity outcome honest.
func TestThrottleSlowsEveryPayload(t *testing.T) {
	f := newFixture(t, HTTP1, WithThrottle(2000))
	id := f.addEntry(t, connA, payload(100_000), PayloadFault{})
	cr := f.claim(t, connA, id)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	d := f.fetch(t, ctx, connA, id, cr.ClaimToken)
	require.Error(t, d.readErr)
	require.Greater(t, len(d.body), 0, "some bytes trickled in")
	require.Less(t, len(d.body), 100_000)

	small := f.addEntry(t, connA, payload(500), PayloadFault{}) // 500 B at 2 kB/s: done in ~0.25 s
	cr = f.claim(t, connA, small)
	d = f.fetch(t, context.Background(), connA, small, cr.ClaimToken)
	require.NoError(t, d.readErr)
	require.Equal(t, "verified", d.trailer)
}
