package apiclient

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/fakeclock"
)

// unavailable answers 503 with retryAfter (if set) and counts requests.
func unavailable(n *atomic.Int32, retryAfter string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		writeErr(w, http.StatusServiceUnavailable, CodeUnavailable, "busy")
	})
}

func newClockEnv(t *testing.T, h http.Handler) (*testEnv, *fakeclock.Clock) {
	clock := fakeclock.New(fixedNow) // moves forward by every retry wait, so lease checks see time pass
	env := newEnv(t, h, func(c *Config) { c.Now, c.After = clock.Now, clock.After })
	return env, clock
}

// TestLeaseBoundsRetries: retries that carry the claim token stop when the
// lease (five minutes, LeaseMargin to spare) cannot cover the wait; the
// error says the entry becomes due again and nothing was acknowledged.
func TestLeaseBoundsRetries(t *testing.T) {
	lease := fixedNow.Add(5 * time.Minute)
	claim := func() *Claim {
		return &Claim{DeliveryAttemptID: "d-1", Token: NewClaimToken(canaryToken), ExpiresAt: lease}
	}
	t.Run("payload Retry-After 3600", func(t *testing.T) {
		var n atomic.Int32
		env, clock := newClockEnv(t, unavailable(&n, "3600"))
		rep, err := env.c.Download(context.Background(), claim(), Expect{}, discard{}, nil)
		require.Nil(t, rep)
		require.ErrorIs(t, err, ErrLeaseTooShort)
		require.ErrorIs(t, err, ErrUnavailable, "the failure that was not retried")
		require.ErrorContains(t, err, "becomes due again")
		require.ErrorContains(t, err, "1h0m0s")
		require.Empty(t, clock.Waits(), "never waits an hour on a five-minute lease")
		require.Equal(t, int32(1), n.Load())
		assertNoCanary(t, "error", err.Error())
		require.Contains(t, env.logs.String(), "retry not scheduled")
	})
	t.Run("acknowledge on the contract schedule", func(t *testing.T) {
		var n atomic.Int32
		env, clock := newClockEnv(t, unavailable(&n, ""))
		var events []RetryEvent
		env.c.cfg.Retry.Notify = func(e RetryEvent) { events = append(events, e) }
		_, err := env.c.Acknowledge(context.Background(), claim())
		require.ErrorIs(t, err, ErrLeaseTooShort)
		// 30 s (ends at 1:00 with margin) and 2 min (3:00) fit; 10 min would not.
		require.Equal(t, []time.Duration{30 * time.Second, 2 * time.Minute}, clock.Waits())
		require.Equal(t, int32(3), n.Load())
		require.Len(t, events, 2)
		for _, e := range events {
			require.Equal(t, lease, e.LeaseExpiresAt)
			require.Equal(t, "d-1", e.DeliveryAttemptID)
			require.False(t, e.FromRetryAfter)
		}
	})
	t.Run("short Retry-After fits", func(t *testing.T) {
		var n atomic.Int32
		env, clock := newClockEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				w.Header().Set("Retry-After", "2")
				writeErr(w, http.StatusServiceUnavailable, CodeUnavailable, "busy")
				return
			}
			writeJSON(w, 200, map[string]any{"deliveryAttemptId": "d-1", "receiptId": "r-1", "acknowledgedAt": fixedNow})
		}))
		rc, err := env.c.Acknowledge(context.Background(), claim())
		require.NoError(t, err)
		require.Equal(t, "r-1", rc.ReceiptID)
		require.Equal(t, []time.Duration{2 * time.Second}, clock.Waits())
	})
	t.Run("calls without a token are not lease-bound", func(t *testing.T) {
		var n atomic.Int32
		env, clock := newClockEnv(t, unavailable(&n, "3600"))
		_, err := env.c.Claim(context.Background(), "d-1")
		require.ErrorIs(t, err, ErrUnavailable)
		require.NotErrorIs(t, err, ErrLeaseTooShort)
		require.Len(t, clock.Waits(), 6)
	})
}

// TestRetryAfterSetsTheWait: Retry-After wins both ways: shorter than the
// schedule (1 s instead of 30 s) and longer (45 s instead of 30 s).
func TestRetryAfterSetsTheWait(t *testing.T) {
	for _, secs := range []int{1, 45} {
		var n atomic.Int32
		env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				w.Header().Set("Retry-After", strconv.Itoa(secs))
				writeErr(w, http.StatusServiceUnavailable, CodeUnavailable, "busy")
				return
			}
			writeJSON(w, 200, map[string]any{"data": []any{}, "meta": map[string]any{"hasMore": false}})
		}))
		_, err := env.c.ListMailbox(context.Background(), 0, "")
		require.NoError(t, err)
		require.Equal(t, []time.Duration{time.Duration(secs) * time.Second}, env.after.Waits())
	}
}

// TestAbsurdRetryAfterFailsAtOnce: a Retry-After beyond MaxRetryAfter is
// not waited for; the error says when to try again.
func TestAbsurdRetryAfterFailsAtOnce(t *testing.T) {
	for _, v := range []string{"259200", fixedNow.Add(72 * time.Hour).Format(http.TimeFormat)} {
		var n atomic.Int32
		env, clock := newClockEnv(t, unavailable(&n, v))
		_, err := env.c.ListMailbox(context.Background(), 0, "")
		require.ErrorIs(t, err, ErrRetryTooLong)
		require.ErrorIs(t, err, ErrUnavailable)
		require.ErrorContains(t, err, "try again after 2025-06-05T08:00:00Z")
		require.Empty(t, clock.Waits())
		require.Equal(t, int32(1), n.Load())
	}
}

// TestDeadlineBoundsRetries: no retry is scheduled whose wait passes the
// context's deadline; the call fails at once instead of sleeping into it.
func TestDeadlineBoundsRetries(t *testing.T) {
	var n atomic.Int32
	env, clock := newClockEnv(t, unavailable(&n, ""))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := env.c.ListMailbox(ctx, 0, "")
	require.ErrorIs(t, err, ErrRetryTooLong)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorIs(t, err, ErrUnavailable)
	require.ErrorContains(t, err, "after the deadline")
	require.Equal(t, []time.Duration{30 * time.Second}, clock.Waits(), "30 s fits into the minute, 2 min do not")
	require.Equal(t, int32(2), n.Load())
	require.NoError(t, ctx.Err(), "it failed before the deadline came")
}

// TestWithRetryNotify: the context's notifier gets the events of its calls
// instead of the client's Notify; other calls still reach the client's.
func TestWithRetryNotify(t *testing.T) {
	var n atomic.Int32
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 1 {
			writeErr(w, http.StatusServiceUnavailable, CodeUnavailable, "busy")
			return
		}
		writeJSON(w, 200, map[string]any{"data": []any{}, "meta": map[string]any{"hasMore": false}})
	}))
	var client, jobA, jobB []RetryEvent
	env.c.cfg.Retry.Notify = func(e RetryEvent) { client = append(client, e) }
	ctxA := WithRetryNotify(context.Background(), func(e RetryEvent) { jobA = append(jobA, e) })
	ctxB := WithRetryNotify(ctxA, func(e RetryEvent) { jobB = append(jobB, e) })

	_, err := env.c.ListMailbox(ctxA, 0, "")
	require.NoError(t, err)
	_, err = env.c.ListMailbox(ctxB, 0, "")
	require.NoError(t, err)
	_, err = env.c.ListMailbox(context.Background(), 0, "")
	require.NoError(t, err)
	_, err = env.c.ListMailbox(WithRetryNotify(context.Background(), nil), 0, "")
	require.NoError(t, err)
	require.Len(t, jobA, 1)
	require.Len(t, jobB, 1, "the innermost notifier wins")
	require.Len(t, client, 1, "only the call without a notifier reaches the client's; nil silences")
	require.NotEqual(t, jobA[0].CorrelationID, jobB[0].CorrelationID)
}

// TestCloseAndSharedTransport: clients built without an HTTPClient share
// one transport; Close is idempotent, later calls fail with ErrClosed, and
// a caller's HTTPClient stays usable.
func TestCloseAndSharedTransport(t *testing.T) {
	var n atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		writeJSON(w, 200, map[string]any{"data": []any{}, "meta": map[string]any{"hasMore": false}})
	})
	a := newEnv(t, h, func(c *Config) { c.HTTPClient = nil })
	b := newEnv(t, h, func(c *Config) { c.HTTPClient = nil })
	require.Same(t, a.c.hc.Transport, b.c.hc.Transport, "one transport per process")
	own := DefaultHTTPClient()
	c := newEnv(t, h, func(c *Config) { c.HTTPClient = own })
	require.NotSame(t, a.c.hc.Transport, c.c.hc.Transport)

	shared.mu.Lock()
	users := shared.users
	shared.mu.Unlock()
	a.c.Close()
	a.c.Close()
	shared.mu.Lock()
	require.Equal(t, users-1, shared.users, "a second Close releases nothing more")
	shared.mu.Unlock()

	_, err := a.c.ListMailbox(context.Background(), 0, "")
	require.ErrorIs(t, err, ErrClosed)
	_, err = b.c.ListMailbox(context.Background(), 0, "")
	require.NoError(t, err, "the other client still works")
	c.c.Close()
	resp, err := own.Get(c.srv.URL)
	require.NoError(t, err, "the caller's client is left alone")
	resp.Body.Close()
	b.c.Close()
	require.Equal(t, int32(2), n.Load())
}

// TestLastCloseDropsIdleConnections: the shared transport keeps its idle
// connections while any client uses it; the last Close drops them, so an
// app that closes its connections leaves no socket open to the server.
func TestLastCloseDropsIdleConnections(t *testing.T) {
	// A fresh shared transport for this test; the package's other tests
	// leave clients open on the old one.
	shared.mu.Lock()
	oldT, oldUsers := shared.t, shared.users
	shared.t, shared.users = nil, 0
	shared.mu.Unlock()
	t.Cleanup(func() {
		shared.mu.Lock()
		shared.t, shared.users = oldT, oldUsers
		shared.mu.Unlock()
	})

	closed := make(chan struct{}, 8)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"data": []any{}, "meta": map[string]any{"hasMore": false}})
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateClosed {
			closed <- struct{}{}
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	newClient := func() *Client {
		c, err := New(Config{BaseURL: srv.URL, ConnectionID: testConn, Credentials: StaticCredentials{Mailbox: canaryCred}})
		require.NoError(t, err)
		return c
	}
	a, b := newClient(), newClient()
	_, err := a.ListMailbox(context.Background(), 0, "")
	require.NoError(t, err)
	a.Close()
	_, err = b.ListMailbox(context.Background(), 0, "")
	require.NoError(t, err, "b still works after a closed")
	require.Empty(t, closed, "a's Close left the shared connection to b")
	b.Close()
	select {
	case <-closed:
	case <-time.After(10 * time.Second): // a bound on the wait, not a timing assertion
		t.Fatal("the last Close left an idle connection open")
	}
}
