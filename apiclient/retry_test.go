package apiclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/fakeclock"
	"golang.org/x/time/rate"
)

var fixedNow = time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC)

// TestServiceUnavailableStormHonoursRetryAfter: Retry-After sets each wait
// (here longer than the schedule's 30 s for the first retry, shorter than
// its 2 and 10 min for the next), the correlation ID stays the same across
// attempts, and Notify sees each next attempt time.
func TestServiceUnavailableStormHonoursRetryAfter(t *testing.T) {
	var n atomic.Int32
	var mu sync.Mutex
	var corrs []string
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		corrs = append(corrs, r.Header.Get("X-Correlation-ID"))
		mu.Unlock()
		if n.Add(1) <= 3 {
			w.Header().Set("Retry-After", "45")
			writeErr(w, http.StatusServiceUnavailable, CodeUnavailable, "busy")
			return
		}
		writeJSON(w, 200, map[string]any{"data": []any{}, "meta": map[string]any{"hasMore": false}})
	}), func(c *Config) { c.Now = func() time.Time { return fixedNow } })
	var events []RetryEvent
	env.c.cfg.Retry.Notify = func(e RetryEvent) { events = append(events, e) }
	p, err := env.c.ListMailbox(context.Background(), 0, "")
	require.NoError(t, err)
	require.Equal(t, []time.Duration{45 * time.Second, 45 * time.Second, 45 * time.Second}, env.after.Waits())
	require.Len(t, events, 3)
	for i, e := range events {
		require.Equal(t, i+1, e.Attempt)
		require.True(t, e.FromRetryAfter)
		require.True(t, e.LeaseExpiresAt.IsZero(), "listing carries no claim token")
		require.Equal(t, fixedNow.Add(e.Wait), e.NextAt)
		require.ErrorIs(t, e.Err, ErrUnavailable)
		require.Equal(t, p.CorrelationID, e.CorrelationID)
		require.Equal(t, "list mailbox", e.Op)
	}
	require.Len(t, corrs, 4)
	for _, c := range corrs {
		require.Equal(t, p.CorrelationID, c, "one correlation ID across retries")
	}
}

func TestRetryScheduleAndGiveUp(t *testing.T) {
	var n atomic.Int32
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		writeErr(w, http.StatusServiceUnavailable, CodeUnavailable, "down")
	}))
	_, err := env.c.ListMailbox(context.Background(), 0, "")
	require.ErrorIs(t, err, ErrUnavailable)
	require.Equal(t, int32(7), n.Load(), "seven attempts in all")
	// The contract's literal schedule (seed 000), not DefaultSchedule itself.
	require.Equal(t, []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}, env.after.Waits())
}

// TestDefaultScheduleIsContractAndImmutable: the schedule is the contract's
// and a caller changing its copy changes nothing for anyone else.
func TestDefaultScheduleIsContractAndImmutable(t *testing.T) {
	want := []time.Duration{0, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}
	s := DefaultSchedule()
	require.Equal(t, want, s)
	s[1] = time.Nanosecond
	require.Equal(t, want, DefaultSchedule(), "DefaultSchedule hands out copies")

	sched := []time.Duration{0, time.Minute}
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, http.StatusServiceUnavailable, CodeUnavailable, "down")
	}), func(c *Config) { c.Retry.Schedule = sched })
	sched[1] = time.Nanosecond // the caller's slice changes after New
	_, err := env.c.ListMailbox(context.Background(), 0, "")
	require.ErrorIs(t, err, ErrUnavailable)
	require.Equal(t, []time.Duration{time.Minute}, env.after.Waits(), "New copied the schedule")
}

func TestNotRetried(t *testing.T) {
	for _, status := range []int{400, 404, 409, 413, 500, 418} {
		var n atomic.Int32
		env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			w.Header().Set("Retry-After", "1")
			writeErr(w, status, "", "no")
		}))
		_, err := env.c.Acknowledge(context.Background(), testClaim("d"))
		require.Error(t, err)
		require.Equal(t, int32(1), n.Load(), "status %d must not be retried", status)
		require.Empty(t, env.after.Waits())
	}
}

func TestRetryNowAndGiveUp(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, http.StatusTooManyRequests, "", "slow")
	})
	never := func(time.Duration) <-chan time.Time { return nil }

	t.Run("retry now ends the wait", func(t *testing.T) {
		env := newEnv(t, h, func(c *Config) { c.After = never; c.Retry.MaxAttempts = 3 })
		now := make(chan struct{}, 1)
		env.c.cfg.Retry.Notify = func(RetryEvent) { now <- struct{}{} }
		_, err := env.c.ListMailbox(WithRetryNow(context.Background(), now), 0, "")
		require.ErrorIs(t, err, ErrRateLimited) // three attempts, no real waiting
	})
	t.Run("cancel gives up", func(t *testing.T) {
		env := newEnv(t, h, func(c *Config) { c.After = never })
		ctx, cancel := context.WithCancel(context.Background())
		env.c.cfg.Retry.Notify = func(RetryEvent) { cancel() }
		_, err := env.c.ListMailbox(ctx, 0, "")
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorIs(t, err, ErrRateLimited, "the last failure stays visible")
	})
}

// TestClaimNeverRetriedAfterUnclearFailure: the server may have granted the
// first claim; a second would hit the active lease.
func TestClaimNeverRetriedAfterUnclearFailure(t *testing.T) {
	var n atomic.Int32
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		dropConn(t, w)
	}))
	_, err := env.c.Claim(context.Background(), "d-1")
	var ne *NetworkError
	require.ErrorAs(t, err, &ne)
	require.True(t, ne.Unclear)
	require.Equal(t, int32(1), n.Load())
	require.Empty(t, env.after.Waits())
}

func TestClaimRetriedWhenServerCertainlyDidNotAct(t *testing.T) {
	var n atomic.Int32
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			writeErr(w, http.StatusServiceUnavailable, CodeUnavailable, "busy")
			return
		}
		writeJSON(w, 200, map[string]any{"deliveryAttemptId": "d-1", "claimToken": canaryToken, "expiresAt": fixedNow})
	}))
	c, err := env.c.Claim(context.Background(), "d-1")
	require.NoError(t, err)
	require.Equal(t, int32(2), n.Load())
	require.Equal(t, canaryToken, c.Token.v.Reveal())

	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		after := &fakeclock.Clock{}
		c, err := New(Config{BaseURL: "http://" + addr, ConnectionID: "c", Credentials: StaticCredentials{Mailbox: canaryCred},
			After: after.After, Retry: RetryPolicy{MaxAttempts: 3}})
		require.NoError(t, err)
		_, err = c.Claim(context.Background(), "d-1")
		var ne *NetworkError
		require.ErrorAs(t, err, &ne)
		require.False(t, ne.Unclear)
		require.Len(t, after.Waits(), 2, "a refused connection is retried")
		assertNoCanary(t, "error", err.Error())
	})
}

// TestAcknowledgeRetriedWithSameTokenAfterDrop: the first answer is lost
// after the server acted; the retry carries the same token and gets the
// same receipt as a replay.
func TestAcknowledgeRetriedWithSameTokenAfterDrop(t *testing.T) {
	var mu sync.Mutex
	var tokens []string
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		tokens = append(tokens, r.Header.Get("X-B2B-Claim-Token"))
		first := len(tokens) == 1
		mu.Unlock()
		if first {
			dropConn(t, w)
			return
		}
		writeJSON(w, 200, map[string]any{"deliveryAttemptId": "d-1", "receiptId": "r-1", "acknowledgedAt": fixedNow, "replay": true})
	}))
	rc, err := env.c.Acknowledge(context.Background(), testClaim("d-1"))
	require.NoError(t, err)
	require.True(t, rc.Replay)
	require.Equal(t, "r-1", rc.ReceiptID)
	require.Equal(t, []string{canaryToken, canaryToken}, tokens)
	require.Equal(t, []time.Duration{30 * time.Second}, env.after.Waits())
}

func TestUploadRetriedWithSameKeyAndBytes(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	var bodies [][]byte
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		bodies = append(bodies, b)
		first := len(keys) == 1
		mu.Unlock()
		if first {
			dropConn(t, w)
			return
		}
		writeJSON(w, 200, map[string]any{"uploadId": "u-1", "status": "accepted", "replay": true})
	}))
	payload := bytes.Repeat([]byte("UNB+UNOC:3'"), 1000)
	res, err := env.c.Upload(context.Background(), "4012345000009:PO-1:orders:1", bytes.NewReader(payload), int64(len(payload)))
	require.NoError(t, err)
	require.True(t, res.Replay)
	require.GreaterOrEqual(t, len(keys), 2)
	for i := range keys {
		require.Equal(t, "4012345000009:PO-1:orders:1", keys[i])
		require.Equal(t, payload, bodies[i])
	}
}

func TestRateLimiterIsUsed(t *testing.T) {
	var n atomic.Int32
	lim := rate.NewLimiter(rate.Every(time.Hour), 1)
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		writeErr(w, 404, CodeNotFound, "x")
	}), func(c *Config) { c.Limiter = lim })
	_, err := env.c.ListMailbox(context.Background(), 0, "")
	require.ErrorIs(t, err, ErrNotFound)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = env.c.ListMailbox(ctx, 0, "")
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrNotFound))
	require.Equal(t, int32(1), n.Load(), "the limiter held the second request back")
	require.Equal(t, rate.Limit(DefaultRate), NewLimiter().Limit())
}

func TestRetryAfterHTTPDate(t *testing.T) {
	var n atomic.Int32
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", fixedNow.Add(5*time.Minute).Format(http.TimeFormat))
			writeErr(w, http.StatusServiceUnavailable, CodeUnavailable, "maintenance")
			return
		}
		writeJSON(w, 200, map[string]any{"data": []any{}, "meta": map[string]any{"hasMore": false}})
	}), func(c *Config) { c.Now = func() time.Time { return fixedNow } })
	_, err := env.c.ListMailbox(context.Background(), 0, "")
	require.NoError(t, err)
	require.Equal(t, []time.Duration{5 * time.Minute}, env.after.Waits())
}

// TestGatewayErrorsAreUnclear: a 502/504 may come after the backend acted,
// so claim does not repeat it while idempotent calls do.
func TestGatewayErrorsAreUnclear(t *testing.T) {
	for _, status := range []int{http.StatusBadGateway, http.StatusGatewayTimeout} {
		var n atomic.Int32
		env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			w.WriteHeader(status)
		}), func(c *Config) { c.Retry.MaxAttempts = 2 })
		_, err := env.c.Claim(context.Background(), "d-1")
		require.ErrorIs(t, err, ErrUnavailable)
		require.Equal(t, int32(1), n.Load(), "claim not repeated after %d", status)
		_, err = env.c.ListMailbox(context.Background(), 0, "")
		require.ErrorIs(t, err, ErrUnavailable)
		require.Equal(t, int32(3), n.Load(), "list repeated after %d", status)
	}
}
