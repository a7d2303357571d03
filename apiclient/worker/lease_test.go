package worker

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/internal/fakeclock"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// localClock is the worker's own clock in lease tests (the simulator's
// clock is separate: the two may disagree, as in production).
func (e *env) localClock() *fakeclock.Clock {
	c := fakeclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	e.w.now = c.Now
	return c
}

func TestLeaseFetchInspectThenAck(t *testing.T) {
	e := newEnv(t, false)
	data := payload(64 << 10)
	entry := e.add(t, data, partnersim.PayloadFault{})
	var evs []Event
	l, err := e.w.Claim(t.Context(), entry, ClaimOptions{OnEvent: func(ev Event) { evs = append(evs, ev) }})
	require.NoError(t, err)
	require.Equal(t, entry, l.Entry())
	require.False(t, l.ExpiresAt().IsZero())
	require.Greater(t, l.Remaining(), 4*time.Minute)
	require.ErrorIs(t, l.CanAck(), ErrNotVerified, "nothing fetched yet")

	res, err := l.Fetch(t.Context(), FetchOptions{})
	require.NoError(t, err)
	require.False(t, res.Acknowledged)
	require.NoError(t, l.CanAck())
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""), "Fetch never acknowledges")

	// The operator inspects the stored file before deciding.
	got, err := os.ReadFile(res.Stored.Path)
	require.NoError(t, err)
	require.Equal(t, data, got)

	res, err = l.Ack(t.Context())
	require.NoError(t, err)
	require.True(t, res.Acknowledged)
	require.Equal(t, []string{"Claimed", "Downloading", "Verified", "Stored", "Acknowledged"}, eventNames(evs))
	side, err := e.store.Lookup(testConn, entry.DeliveryAttemptID)
	require.NoError(t, err)
	require.Equal(t, res.Receipt.ReceiptID, side.Meta.ReceiptID)
	st, _ := e.sim.Entry(testConn, entry.DeliveryAttemptID)
	require.Equal(t, partnersim.StatusAcknowledged, st.Status)

	// Ack again: nothing new is sent. Release afterwards is harmless.
	again, err := l.Ack(t.Context())
	require.NoError(t, err)
	require.Same(t, res, again)
	require.Equal(t, 1, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
	l.Release()
	l.Release()
	require.NoError(t, l.CanAck(), "an acknowledged lease stays acknowledged")

	// The token is nowhere in what the caller can print.
	require.NotContains(t, fmt.Sprintf("%+v %#v", res, res), strings.TrimSuffix(canaryToken, "-"))
	e.requireNoLeak(t)
}

func TestLeaseRefusesAckUnlessEverythingPassed(t *testing.T) {
	data := payload(32 << 10)
	for _, tc := range []struct {
		name   string
		fault  partnersim.PayloadFault
		export func(*spool.Stored) error
		step   Step
	}{
		{name: "hash header", fault: partnersim.PayloadFault{WrongHashHeader: true}, step: StepVerify},
		{name: "trailer absent", fault: partnersim.PayloadFault{Trailer: partnersim.TrailerAbsent}, step: StepVerify},
		{name: "reset", fault: partnersim.PayloadFault{Reset: true, ResetAt: 1000}, step: StepDownload},
		{name: "export fails", export: func(*spool.Stored) error { return errors.New("disk full") }, step: StepExport},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, false)
			entry := e.add(t, data, tc.fault)
			l, err := e.w.Claim(t.Context(), entry, ClaimOptions{})
			require.NoError(t, err)
			res, err := l.Fetch(t.Context(), FetchOptions{Export: tc.export})
			require.Error(t, err)
			require.Equal(t, tc.step, res.FailedStep)
			require.ErrorIs(t, l.CanAck(), ErrNotVerified)
			require.Contains(t, l.CanAck().Error(), string(tc.step)+" step failed")

			res2, err := l.Ack(t.Context())
			require.ErrorIs(t, err, ErrNotVerified)
			require.Equal(t, tc.step, res2.FailedStep, "the fetch's failure stays the result")
			require.False(t, res2.Acknowledged)
			require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""), "no acknowledge request")
			st, _ := e.sim.Entry(testConn, entry.DeliveryAttemptID)
			require.Equal(t, partnersim.StatusClaimed, st.Status)

			_, err = l.Fetch(t.Context(), FetchOptions{})
			require.ErrorIs(t, err, ErrFetched, "one fetch per lease")
			st, _ = e.sim.Entry(testConn, entry.DeliveryAttemptID)
			require.Equal(t, 1, st.PayloadReads)
		})
	}
}

func TestLeaseExpiredIsNotAcknowledged(t *testing.T) {
	e := newEnv(t, false)
	clock := e.localClock()
	entry := e.add(t, payload(4096), partnersim.PayloadFault{})
	l, err := e.w.Claim(t.Context(), entry, ClaimOptions{})
	require.NoError(t, err)
	_, err = l.Fetch(t.Context(), FetchOptions{})
	require.NoError(t, err)
	clock.Advance(LeaseDuration - time.Second)
	require.NoError(t, l.CanAck())
	require.Equal(t, time.Second, l.Remaining())

	clock.Advance(time.Second)
	require.ErrorIs(t, l.CanAck(), ErrLeaseExpired)
	require.Zero(t, l.Remaining())
	res, err := l.Ack(t.Context())
	require.ErrorIs(t, err, ErrLeaseExpired)
	require.Equal(t, StepAcknowledge, res.FailedStep)
	require.Contains(t, err.Error(), "fetch it again")
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
}

func TestLeaseLength(t *testing.T) {
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	require.Equal(t, LeaseDuration, leaseLength(at, at.Add(LeaseDuration)))
	require.Equal(t, LeaseDuration, leaseLength(at, at.Add(time.Hour)), "never longer than the contract's")
	require.Equal(t, 2*time.Minute, leaseLength(at, at.Add(2*time.Minute)), "a shorter server lease counts")
	require.Equal(t, LeaseDuration, leaseLength(at, at.Add(-time.Hour)), "a server clock far behind ours is not believed")
}

func TestLeaseAckAgainAfterUnclearNetworkError(t *testing.T) {
	e := newEnv(t, true)
	entry := e.add(t, payload(8192), partnersim.PayloadFault{})
	l, err := e.w.Claim(t.Context(), entry, ClaimOptions{})
	require.NoError(t, err)
	_, err = l.Fetch(t.Context(), FetchOptions{})
	require.NoError(t, err)
	// Every attempt of the first Ack loses its answer (the server did act).
	e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointAcknowledge, DropResponse: true, Times: 10})
	res, err := l.Ack(t.Context())
	require.Error(t, err)
	firstErr := err.Error()
	var ne *apiclient.NetworkError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, StepAcknowledge, res.FailedStep)
	require.False(t, res.Acknowledged)
	sent := e.sim.RequestCount(partnersim.EndpointAcknowledge, "")
	require.Positive(t, sent)
	st, _ := e.sim.Entry(testConn, entry.DeliveryAttemptID)
	require.Equal(t, partnersim.StatusAcknowledged, st.Status, "the server acknowledged")
	require.NoError(t, l.CanAck(), "the token is kept for another try")

	e.sim.ClearFaults()
	res, err = l.Ack(t.Context())
	require.NoError(t, err, "the same token is accepted again")
	require.True(t, res.Acknowledged)
	require.True(t, res.Receipt.Replay)
	require.Empty(t, res.FailedStep)
	require.Equal(t, sent+1, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
	side, err := e.store.Lookup(testConn, entry.DeliveryAttemptID)
	require.NoError(t, err)
	require.Equal(t, res.Receipt.ReceiptID, side.Meta.ReceiptID)
	e.requireNoLeak(t, firstErr)
}

func TestLeaseRecordRetriedByAck(t *testing.T) {
	e := newEnv(t, false)
	entry := e.add(t, payload(4096), partnersim.PayloadFault{})
	l, err := e.w.Claim(t.Context(), entry, ClaimOptions{})
	require.NoError(t, err)
	res, err := l.Fetch(t.Context(), FetchOptions{})
	require.NoError(t, err)
	// A directory where the sidecar should be: the record fails (even
	// for root, unlike a read-only directory).
	sidecar := strings.TrimSuffix(res.Stored.Path, ".edi") + ".json"
	require.NoError(t, os.Rename(sidecar, sidecar+".away"))
	require.NoError(t, os.Mkdir(sidecar, 0o700))
	res, err = l.Ack(t.Context())
	require.Error(t, err)
	require.Equal(t, StepRecord, res.FailedStep)
	require.True(t, res.Acknowledged)
	require.Contains(t, err.Error(), "IS acknowledged")
	require.NoError(t, l.CanAck())

	require.NoError(t, os.Remove(sidecar))
	require.NoError(t, os.Rename(sidecar+".away", sidecar))
	res, err = l.Ack(t.Context())
	require.NoError(t, err)
	require.Empty(t, res.FailedStep)
	require.Equal(t, 1, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""), "only the record was retried")
	side, err := e.store.Lookup(testConn, entry.DeliveryAttemptID)
	require.NoError(t, err)
	require.Equal(t, res.Receipt.ReceiptID, side.Meta.ReceiptID)
}

func TestLeaseRelease(t *testing.T) {
	e := newEnv(t, false)
	entry := e.add(t, payload(4096), partnersim.PayloadFault{})
	l, err := e.w.Claim(t.Context(), entry, ClaimOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, e.tempFiles(t), "a staged file waits for the fetch")
	l.Release()
	l.Release()
	require.Empty(t, e.tempFiles(t), "Release removes the staged file")
	require.Nil(t, l.claim, "the token is forgotten")
	_, err = l.Fetch(t.Context(), FetchOptions{})
	require.ErrorIs(t, err, ErrReleased)
	require.ErrorIs(t, l.CanAck(), ErrReleased)
	_, err = l.Ack(t.Context())
	require.ErrorIs(t, err, ErrReleased)
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointPayload, ""))
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))

	// Released after a good fetch: the file stays, the ack is refused.
	entry = e.add(t, payload(4096), partnersim.PayloadFault{})
	l, err = e.w.Claim(t.Context(), entry, ClaimOptions{})
	require.NoError(t, err)
	res, err := l.Fetch(t.Context(), FetchOptions{})
	require.NoError(t, err)
	l.Release()
	require.FileExists(t, res.Stored.Path)
	_, err = l.Ack(t.Context())
	require.ErrorIs(t, err, ErrReleased)
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
}

func TestClaimRefusesBeforeClaiming(t *testing.T) {
	t.Run("listed above the payload limit", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, payload(100), partnersim.PayloadFault{})
		entry.PayloadSize = apiclient.MaxPayloadSize + 1
		var evs []Event
		l, err := e.w.Claim(t.Context(), entry, ClaimOptions{OnEvent: func(ev Event) { evs = append(evs, ev) }})
		require.Nil(t, l)
		require.ErrorIs(t, err, ErrTooLarge)
		require.ErrorIs(t, err, apiclient.ErrPayloadTooLarge)
		require.Contains(t, err.Error(), "no lease or attempt was spent")
		require.NotContains(t, err.Error(), "lease expires")
		require.Equal(t, []string{"Failed:claim"}, eventNames(evs))
		require.Zero(t, e.sim.RequestCount(partnersim.EndpointClaim, ""))
		require.Empty(t, e.tempFiles(t))
		res, err := e.process(t.Context(), entry, procOpts{Ack: true})
		require.ErrorIs(t, err, ErrTooLarge)
		require.Equal(t, ClassAPI, Classify(res))
		require.Zero(t, e.sim.RequestCount(partnersim.EndpointClaim, ""))
	})
	t.Run("export preflight fails", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, payload(100), partnersim.PayloadFault{})
		res, err := e.process(t.Context(), entry, procOpts{Ack: true, PreflightExport: func() error { return errors.New("out is not a directory") }})
		require.ErrorContains(t, err, "out is not a directory")
		require.ErrorContains(t, err, "no lease or attempt was spent")
		require.Equal(t, StepExport, res.FailedStep)
		require.Equal(t, ClassStorage, Classify(res))
		require.Zero(t, e.sim.RequestCount(partnersim.EndpointClaim, ""))
		require.Empty(t, e.tempFiles(t), "the staged file is removed")
	})
}

func TestCallerCorrelationIDIsKept(t *testing.T) {
	e := newEnv(t, false)
	entry := e.add(t, payload(4096), partnersim.PayloadFault{})
	before := len(e.sim.Requests())
	ctx := apiclient.WithCorrelationID(t.Context(), "caller-corr-1")
	res, err := e.process(ctx, entry, procOpts{Ack: true})
	require.NoError(t, err)
	require.Equal(t, "caller-corr-1", res.CorrelationID)
	reqs := e.sim.Requests()[before:]
	require.Len(t, reqs, 3, "claim, payload, acknowledge")
	for _, r := range reqs {
		require.Equal(t, "caller-corr-1", r.CorrelationID, r.Endpoint)
	}

	// Without one, the lease's own ID ties the steps together, even when
	// Fetch and Ack get fresh contexts.
	entry = e.add(t, payload(4096), partnersim.PayloadFault{})
	before = len(e.sim.Requests())
	l, err := e.w.Claim(t.Context(), entry, ClaimOptions{})
	require.NoError(t, err)
	_, err = l.Fetch(t.Context(), FetchOptions{})
	require.NoError(t, err)
	_, err = l.Ack(t.Context())
	require.NoError(t, err)
	require.NotEqual(t, "caller-corr-1", l.CorrelationID())
	for _, r := range e.sim.Requests()[before:] {
		require.Equal(t, l.CorrelationID(), r.CorrelationID, r.Endpoint)
	}
}

func TestChecksAndClassify(t *testing.T) {
	states := func(res *Result) string {
		var b strings.Builder
		for _, c := range res.Checks() {
			fmt.Fprintf(&b, "%s=%s ", c.Name, c.State)
		}
		return strings.TrimSpace(b.String())
	}
	t.Run("claim conflict: nothing ran", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, payload(100), partnersim.PayloadFault{})
		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointClaim, Status: 409})
		res, err := e.process(t.Context(), entry, procOpts{Ack: true})
		require.Error(t, err)
		require.Equal(t, "sizeHeader=not run sizeListing=not run hashHeader=not run hashListing=not run trailer=not run stored=not run", states(res))
		require.Equal(t, ClassAPI, Classify(res))
	})
	t.Run("payload 503: nothing ran", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, payload(100), partnersim.PayloadFault{})
		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointPayload, Status: 503, Times: 10})
		res, err := e.process(t.Context(), entry, procOpts{Ack: true})
		require.Error(t, err)
		require.Equal(t, "sizeHeader=not run sizeListing=not run hashHeader=not run hashListing=not run trailer=not run stored=not run", states(res))
		require.Equal(t, ClassAPI, Classify(res))
	})
	t.Run("hash header wrong", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, payload(100), partnersim.PayloadFault{WrongHashHeader: true})
		res, _ := e.process(t.Context(), entry, procOpts{Ack: true})
		require.Equal(t, "sizeHeader=passed sizeListing=passed hashHeader=failed hashListing=passed trailer=passed stored=not run", states(res))
		require.NotEmpty(t, res.Checks()[2].Detail)
		require.Equal(t, ClassIntegrity, Classify(res))
	})
	t.Run("reset mid-stream", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, payload(64<<10), partnersim.PayloadFault{Reset: true, ResetAt: 1000})
		res, _ := e.process(t.Context(), entry, procOpts{Ack: true})
		require.Equal(t, StepDownload, res.FailedStep)
		require.Equal(t, ClassIntegrity, Classify(res))
		require.Equal(t, StateFailed, res.Checks()[4].State)
	})
	t.Run("store conflict", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, payload(100), partnersim.PayloadFault{})
		w, err := e.store.Begin(testConn, entry.DeliveryAttemptID)
		require.NoError(t, err)
		_, _ = w.Write([]byte("different"))
		_, err = w.Commit(spool.Meta{Size: 9, SHA256: "4a1b13b45c8e2ee3ae8ad0dd8dee1a4c7ac9ef2f6d8ef04dd7be0883b2b12dd2"})
		require.NoError(t, err)
		res, _ := e.process(t.Context(), entry, procOpts{Ack: true})
		require.Equal(t, "sizeHeader=passed sizeListing=passed hashHeader=passed hashListing=passed trailer=passed stored=failed", states(res))
		require.Equal(t, ClassStorage, Classify(res))
	})
	t.Run("all passed", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, payload(100), partnersim.PayloadFault{})
		res, err := e.process(t.Context(), entry, procOpts{Ack: true})
		require.NoError(t, err)
		require.Equal(t, "sizeHeader=passed sizeListing=passed hashHeader=passed hashListing=passed trailer=passed stored=passed", states(res))
		require.Equal(t, ClassOK, Classify(res))
	})
}

func TestStateLabel(t *testing.T) {
	require.Equal(t, "ok", StatePassed.Label())
	require.Equal(t, "FAILED", StateFailed.Label())
	require.Equal(t, "not run", StateNotRun.Label())
}

func TestLeaseReleaseDuringFetch(t *testing.T) {
	e := newEnv(t, false)
	entry := e.add(t, payload(256<<10), partnersim.PayloadFault{BytesPerSecond: 1 << 20})
	l, err := e.w.Claim(t.Context(), entry, ClaimOptions{})
	require.NoError(t, err)
	res, err := l.Fetch(t.Context(), FetchOptions{OnEvent: func(ev Event) {
		if _, ok := ev.(Downloading); ok {
			go l.Release() // e.g. the operator closed the screen
		}
	}})
	require.NoError(t, err, "the fetch itself finishes")
	require.NotNil(t, res.Stored)
	require.ErrorIs(t, l.CanAck(), ErrReleased)
	_, err = l.Ack(t.Context())
	require.ErrorIs(t, err, ErrReleased)
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
	require.Empty(t, e.tempFiles(t))
}
