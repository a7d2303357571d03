package apiclient

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// stallingHandler answers with status and a JSON content type, sends
// the first bytes of a body and then stops sending (until the test
// ends): the headers came in time, the body never completes.
func stallingHandler(t *testing.T, status int, first string) http.Handler {
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(first))
		w.(http.Flusher).Flush()
		select {
		case <-done:
		case <-r.Context().Done():
		}
	})
}

// bounded bounds a test's call generously: without the answer timeouts it
// fails with the deadline instead of hanging.
func bounded(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// TestStalledAnswerBodyTimesOut: a JSON answer whose body stops after
// the headers fails after the idle timeout, for every JSON call, with an
// error that says so (it used to hang for ever: the response-header
// timeout ends with the headers).
func TestStalledAnswerBodyTimesOut(t *testing.T) {
	calls := map[string]func(c *Client) error{
		"mailbox page": func(c *Client) error { _, err := c.ListMailbox(bounded(t), 10, ""); return err },
		"claim":        func(c *Client) error { _, err := c.Claim(bounded(t), "d-1"); return err },
		"acknowledge":  func(c *Client) error { _, err := c.Acknowledge(bounded(t), testClaim("d-1")); return err },
		"upload": func(c *Client) error {
			_, err := c.Upload(bounded(t), "key-stall-0001", bytes.NewReader([]byte("UNA:+.? '")), 9)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			env := newEnv(t, stallingHandler(t, http.StatusOK, `{"items":[`), func(cfg *Config) {
				cfg.AnswerIdleTimeout = 20 * time.Millisecond
				cfg.AnswerTimeout = -1
			})
			err := call(env.c)
			require.ErrorIs(t, err, ErrAnswerStalled)
			var ne *NetworkError
			require.True(t, errors.As(err, &ne), "%v", err)
			require.True(t, ne.Unclear, "the server may have acted")
			require.Contains(t, err.Error(), "no byte for 20ms after the headers (the answer's idle timeout)")
		})
	}
}

// TestTricklingAnswerBodyTimesOut: a body that keeps sending a byte now
// and then (never idle long enough) is still bounded by the answer
// timeout.
func TestTricklingAnswerBodyTimesOut(t *testing.T) {
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"items":[`))
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-r.Context().Done():
				return
			case <-tick.C:
				_, _ = w.Write([]byte(" "))
				w.(http.Flusher).Flush()
			}
		}
	})
	env := newEnv(t, h, func(cfg *Config) {
		cfg.AnswerIdleTimeout = time.Hour
		cfg.AnswerTimeout = 50 * time.Millisecond
	})
	_, err := env.c.ListMailbox(bounded(t), 10, "")
	require.ErrorIs(t, err, ErrAnswerStalled)
	require.Contains(t, err.Error(), "the answer was not complete within 50ms (the answer timeout)")
}

// TestStalledErrorBodyTimesOut: an error answer (503) whose body stalls
// is bounded too; the error is the status's, read from what came.
func TestStalledErrorBodyTimesOut(t *testing.T) {
	env := newEnv(t, stallingHandler(t, http.StatusConflict, `{"error":`), func(cfg *Config) {
		cfg.AnswerIdleTimeout = 20 * time.Millisecond
	})
	c := bounded(t)
	_, err := env.c.ListMailbox(c, 10, "")
	require.NoError(t, c.Err(), "ended by the idle timeout, not the test's deadline")
	var ae *APIError
	require.True(t, errors.As(err, &ae), "%v", err)
	require.Equal(t, http.StatusConflict, ae.HTTPStatus)
}

// TestAnswerTimeoutDefaults: a zero Config gets the documented bounds.
func TestAnswerTimeoutDefaults(t *testing.T) {
	env := newEnv(t, http.NotFoundHandler())
	require.Equal(t, DefaultAnswerIdleTimeout, env.c.answerIdle)
	require.Equal(t, DefaultAnswerTimeout, env.c.answerTotal)
	env = newEnv(t, http.NotFoundHandler(), func(cfg *Config) { cfg.AnswerIdleTimeout, cfg.AnswerTimeout = -1, -1 })
	require.Negative(t, env.c.answerIdle)
	require.Negative(t, env.c.answerTotal)
}

// TestStalledAcknowledgeEndsWithTheLease: the answer of a call carrying
// the claim token (acknowledge) is not waited for past the claim's
// lease, even when the idle timeout is longer: the app said
// "acknowledging…" after the lease had run out.
func TestStalledAcknowledgeEndsWithTheLease(t *testing.T) {
	now := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	env := newEnv(t, stallingHandler(t, http.StatusOK, `{"deliveryAttemptId":`), func(cfg *Config) {
		cfg.AnswerIdleTimeout, cfg.AnswerTimeout = time.Hour, time.Hour
		cfg.Now = func() time.Time { return now }
	})
	claim := testClaim("d-1")
	claim.ExpiresAt = now.Add(-time.Minute) // by the client's clock, the lease is over: the 1 s minimum applies
	c := bounded(t)
	_, err := env.c.Acknowledge(c, claim)
	require.NoError(t, c.Err(), "ended by the lease, not the test's deadline")
	require.ErrorIs(t, err, ErrAnswerStalled)
	require.ErrorContains(t, err, "the claim's lease ended (2026-12-01T21:59:00Z) before the answer was complete")
}
