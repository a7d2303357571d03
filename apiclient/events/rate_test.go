package events

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// batchAt is a batch of events first..first+n-1, signed at t.
func batchAt(t *testing.T, t0 int64, first, n int) Delivery {
	t.Helper()
	evs := make([]any, n)
	for i := range evs {
		evs[i] = newEvent(first + i)
	}
	b := body(t, evs)
	return Delivery{Name: "b", Header: http.Header{"X-Nb2b-Signature": {Sign(secret.New(demoKey), t0, b)}}, Body: b}
}

func TestInspectRateLimit(t *testing.T) {
	// 100 events in one second pass.
	r := Inspect([]Delivery{batchAt(t, 1000, 1, 100)}, Options{})
	require.NotContains(t, codes(r, -1, ""), CodeRateLimit)
	for i := range r.Events {
		require.NotContains(t, codes(r, i, ""), CodeRateLimit)
	}

	// 60 + 41 in the same second: the 101st event is where NB-E012 starts.
	r = Inspect([]Delivery{batchAt(t, 1000, 1, 60), batchAt(t, 1000, 61, 41)}, Options{})
	f := finding(t, r, CodeRateLimit)
	require.Equal(t, SevWarning, f.Severity)
	require.Equal(t, NBRateLimit, f.Platform)
	require.Equal(t, 100, f.Event)
	require.Equal(t, 1, f.Delivery)
	require.Contains(t, f.Message, "sender 4012345000009 delivered 101 events in the second 1970-01-01T00:16:40Z (t=1000), more than the default 100 events/s")
	require.Contains(t, f.Message, "Retry-After")
	require.Zero(t, r.Errors)

	// The next second starts a new count.
	r = Inspect([]Delivery{batchAt(t, 1000, 1, 60), batchAt(t, 1001, 61, 41)}, Options{})
	require.Zero(t, r.Warnings, "%+v", r.Findings)

	// Events rejected before they were read do not count.
	stale := batchAt(t, 1000, 61, 41)
	r = Inspect([]Delivery{batchAt(t, 1000, 1, 60), stale}, Options{Secrets: []Secret{secret.New("other")}, Now: time.Unix(1000, 0)})
	require.Equal(t, 2, r.Errors)
	require.Zero(t, r.Warnings, "%+v", r.Findings)

	// Without a time nothing is counted.
	bare := batchAt(t, 1000, 1, 101)
	bare.Header = nil
	r = Inspect([]Delivery{bare}, Options{})
	require.Zero(t, r.Warnings)
}
