package partnersim

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestUnavailableForNCallsWithRetryAfter(t *testing.T) {
	inEachMode(t, func(t *testing.T, f *fixture) {
		f.addEntry(t, connA, payload(10), PayloadFault{})
		f.sim.InjectFault(EndpointFault{Endpoint: EndpointList, Times: 3, Status: http.StatusServiceUnavailable, RetryAfter: 30 * time.Second})
		for i := 0; i < 3; i++ {
			resp, body := f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox"), auth: authAll})
			requireError(t, resp, body, http.StatusServiceUnavailable, CodeUnavailable)
			require.Equal(t, "30", resp.Header.Get("Retry-After"))
		}
		require.Len(t, f.list(t, connA, "").Data, 1, "the storm is over after three calls")
		recs := f.sim.Requests()
		require.Len(t, recs, 4)
		require.True(t, recs[0].FaultInjected)
		require.False(t, recs[3].FaultInjected)
	})
}

func TestInternalErrorAndUnauthenticatedFaults(t *testing.T) {
	f := newFixture(t, HTTP1)
	id := f.addEntry(t, connA, payload(10), PayloadFault{})
	f.sim.InjectFault(EndpointFault{Endpoint: EndpointClaim, Entry: id, Status: http.StatusInternalServerError})
	for i := 0; i < 2; i++ { // Times 0: every call until cleared
		resp, body := f.send(t, req{method: http.MethodPost, url: f.url(connA, "mailbox", id, "claim"), auth: authAll})
		requireError(t, resp, body, http.StatusInternalServerError, CodeInternal)
		require.Empty(t, resp.Header.Get("Retry-After"))
	}
	other := f.addEntry(t, connA, payload(10), PayloadFault{})
	f.claim(t, connA, other) // the fault is bound to id only
	f.sim.ClearFaults()
	f.claim(t, connA, id)
	st, _ := f.sim.Entry(connA, id)
	require.Equal(t, 1, st.Attempts, "a 500 before handling changed nothing")
}

func TestLatencyIsCancellable(t *testing.T) {
	f := newFixture(t, HTTP1)
	f.sim.InjectFault(EndpointFault{Endpoint: EndpointList, Latency: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url(connA, "mailbox"), nil)
	require.NoError(t, err)
	hr.Header.Set("Authorization", authAll)
	_, err = f.hc.Do(hr)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Eventually(t, func() bool { return f.sim.RequestCount(EndpointList, "") == 1 }, 2*time.Second, 5*time.Millisecond,
		"the server gave up waiting when the client left")
}

func TestLatencyThenAnswer(t *testing.T) {
	f := newFixture(t, HTTP1)
	f.sim.InjectFault(EndpointFault{Endpoint: EndpointList, Latency: 50 * time.Millisecond, Times: 1})
	require.Empty(t, f.list(t, connA, "").Data)
	require.True(t, f.sim.Requests()[0].FaultInjected)
}

// doRaw sends a request and returns the transport error, if any.
func (f *fixture) doRaw(t *testing.T, r req) (*http.Response, error) {
	t.Helper()
	hr, err := http.NewRequestWithContext(context.Background(), r.method, r.url, r.body)
	require.NoError(t, err)
	hr.Header.Set("Authorization", r.auth)
	if r.token != "" {
		hr.Header.Set("X-B2B-Claim-Token", r.token)
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	resp, err := f.hc.Do(hr)
	if err == nil {
		_ = resp.Body.Close()
	}
	return resp, err
}

// TestAckDroppedAfterCommit: the ack is recorded but the client sees a
// network error; repeating with the same token replays the same receipt.
func TestAckDroppedAfterCommit(t *testing.T) {
	inEachMode(t, func(t *testing.T, f *fixture) {
		id := f.addEntry(t, connA, payload(10), PayloadFault{})
		cr := f.claim(t, connA, id)
		f.sim.InjectFault(EndpointFault{Endpoint: EndpointAcknowledge, Times: 1, DropResponse: true})
		_, err := f.doRaw(t, req{method: http.MethodPost, url: f.url(connA, "mailbox", id, "acknowledge"), auth: authAll, token: cr.ClaimToken})
		require.Error(t, err)
		st, _ := f.sim.Entry(connA, id)
		require.Equal(t, StatusAcknowledged, st.Status, "committed before the drop")
		code, ar := f.ack(t, connA, id, cr.ClaimToken)
		require.Equal(t, http.StatusOK, code)
		require.True(t, ar.Replay)
		require.Equal(t, st.ReceiptID, ar.ReceiptID)
		// The dropped request's record is written when its handler
		// returns, which on HTTP/1 may be after the client saw the reset
		// and sent the repeat: wait for it instead of assuming order.
		require.Eventually(t, func() bool {
			var aborted, answered int
			for _, r := range f.sim.Requests() {
				if r.Endpoint != EndpointAcknowledge {
					continue
				}
				if r.Aborted {
					aborted++
				} else if r.Status == http.StatusOK {
					answered++
				}
			}
			return aborted == 1 && answered == 1
		}, 2*time.Second, 5*time.Millisecond, "one dropped and one replayed acknowledge")
	})
}

func TestClaimDroppedAfterCommit(t *testing.T) {
	inEachMode(t, func(t *testing.T, f *fixture) {
		id := f.addEntry(t, connA, payload(10), PayloadFault{})
		f.sim.InjectFault(EndpointFault{Endpoint: EndpointClaim, Times: 1, DropResponse: true})
		_, err := f.doRaw(t, req{method: http.MethodPost, url: f.url(connA, "mailbox", id, "claim"), auth: authAll})
		require.Error(t, err)
		resp, body := f.send(t, req{method: http.MethodPost, url: f.url(connA, "mailbox", id, "claim"), auth: authAll})
		requireError(t, resp, body, http.StatusConflict, CodeConflict)
		f.clock.Advance(LeaseDuration)
		f.claim(t, connA, id)
	})
}

func TestUploadDroppedAfterCommitReplays(t *testing.T) {
	f := newFixture(t, HTTP2TLS)
	f.sim.InjectFault(EndpointFault{Endpoint: EndpointInbox, Times: 1, DropResponse: true})
	body := []byte("UNB+UNOC:3+1:14+2:14+250602:0800+1'UNZ+0+1'")
	hdr := map[string]string{"Content-Type": "application/edifact", "Idempotency-Key": "k-1"}
	_, err := f.doRaw(t, req{method: http.MethodPost, url: f.url(connA, "inbox"), auth: authAll, header: hdr, body: bytes.NewReader(body)})
	require.Error(t, err)
	require.Len(t, f.sim.Uploads(connA), 1)
	resp, rb := f.send(t, req{method: http.MethodPost, url: f.url(connA, "inbox"), auth: authAll, header: hdr, body: bytes.NewReader(body)})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(rb))
	require.Contains(t, string(rb), `"replay":true`)
}

func TestPayloadDropBeforeHeaders(t *testing.T) {
	f := newFixture(t, HTTP1)
	id := f.addEntry(t, connA, payload(10), PayloadFault{})
	cr := f.claim(t, connA, id)
	// Times 0: net/http retries a GET once on a fresh connection when a
	// reused one dies before any response byte, so drop every attempt.
	f.sim.InjectFault(EndpointFault{Endpoint: EndpointPayload, DropResponse: true})
	_, err := f.doRaw(t, req{method: http.MethodGet, url: f.url(connA, "mailbox", id, "payload"), auth: authAll, token: cr.ClaimToken})
	require.Error(t, err)
	require.False(t, errors.Is(err, context.Canceled))
	require.Equal(t, "failed", lastPayloadOutcome(f.sim, id))
}
