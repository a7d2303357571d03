package worker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
)

// TestLeaseIsCountedOnTheServersClock: the lease left is expiresAt minus
// the answer's Date (the server's clock), whatever this machine's clock
// says; an expiresAt already past by the server's own time is no lease
// at all: nothing is downloaded or acknowledged.
func TestLeaseIsCountedOnTheServersClock(t *testing.T) {
	t.Run("expiresAt already past", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, payload(4096), partnersim.PayloadFault{})
		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointClaim, LeaseAnnounced: -30 * time.Second, Times: 1})
		res, err := e.process(t.Context(), entry, procOpts{Ack: true})
		require.ErrorIs(t, err, ErrLeaseExpired)
		require.Equal(t, StepClaim, res.FailedStep)
		require.ErrorContains(t, err, "is not after the server's own time")
		require.ErrorContains(t, err, "nothing is downloaded or acknowledged")
		require.Zero(t, e.sim.RequestCount(partnersim.EndpointPayload, ""))
		require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
	})
	t.Run("a shorter lease by the server's clock", func(t *testing.T) {
		e := newEnv(t, false)
		clock := e.localClock() // this machine's clock is years off the server's
		entry := e.add(t, payload(4096), partnersim.PayloadFault{})
		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointClaim, LeaseAnnounced: 90 * time.Second, Times: 1})
		l, err := e.w.Claim(t.Context(), entry, ClaimOptions{})
		require.NoError(t, err)
		require.Equal(t, 90*time.Second, l.Remaining(), "expiresAt − Date, on the server's clock")
		require.Equal(t, clock.Now().Add(90*time.Second), l.Deadline())
		require.Negative(t, l.ClockSkew(), "the server's clock is behind the local one")
		require.Contains(t, SkewNote(l.ClockSkew()), "behind this machine's")
		l.Release()
	})
	t.Run("clocks agree", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, payload(4096), partnersim.PayloadFault{})
		l, err := e.w.Claim(t.Context(), entry, ClaimOptions{})
		require.NoError(t, err)
		require.Zero(t, l.ClockSkew())
		require.Empty(t, SkewNote(l.ClockSkew()))
		require.LessOrEqual(t, l.Remaining(), LeaseDuration)
		l.Release()
	})
	t.Run("server clock ahead", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, payload(4096), partnersim.PayloadFault{})
		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointClaim, DateSkew: 10 * time.Minute, Times: 1})
		// expiresAt is five minutes before the answer's own Date: by the
		// server's clock the lease is over, and the message says the
		// clocks disagree.
		_, err := e.w.Claim(t.Context(), entry, ClaimOptions{})
		require.ErrorIs(t, err, ErrLeaseExpired)
		require.ErrorContains(t, err, "ahead of this machine's")
		require.Zero(t, e.sim.RequestCount(partnersim.EndpointPayload, ""))
	})
}

// TestLeaseStopsADownloadInFlight: a download still running when the
// lease ends is stopped then, its checks "not run" with that cause, and
// the lease cannot be acknowledged.
func TestLeaseStopsADownloadInFlight(t *testing.T) {
	e := newEnv(t, false)
	entry := e.add(t, payload(200<<10), partnersim.PayloadFault{BytesPerSecond: 16 << 10}) // ~12 s
	e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointClaim, LeaseAnnounced: time.Second, Times: 1})
	l, err := e.w.Claim(t.Context(), entry, ClaimOptions{})
	require.NoError(t, err)
	res, err := l.Fetch(t.Context(), FetchOptions{})
	require.ErrorIs(t, err, ErrLeaseExpired)
	require.Equal(t, StepDownload, res.FailedStep)
	require.Contains(t, res.NotRunCause(), "the lease has expired")
	for _, c := range res.Checks()[:5] {
		require.Equal(t, StateNotRun, c.State, c.Name)
		require.Contains(t, c.Detail, "stopped here", c.Name)
	}
	require.NotEqual(t, ClassIntegrity, Classify(res), "the partner's bytes were not judged")
	_, err = l.Ack(t.Context())
	require.Error(t, err)
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
}
