package worker

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
)

// TestProcessHeldStopsAfterTheStore: the whole worker order up to the
// durable store, then the lease is the caller's: nothing is acknowledged
// until Ack, which sends the same token once; a failed download hands
// back a lease that cannot be acknowledged.
func TestProcessHeldStopsAfterTheStore(t *testing.T) {
	e := newEnv(t, false)
	data := payload(32 << 10)
	entry := e.add(t, data, partnersim.PayloadFault{})
	l, res, err := e.w.ProcessHeld(t.Context(), entry, Options{Ack: true})
	require.NoError(t, err)
	require.NotNil(t, l)
	require.NotNil(t, res.Stored)
	require.False(t, res.Acknowledged, "held: Options.Ack does not acknowledge")
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
	got, err := os.ReadFile(res.Stored.Path)
	require.NoError(t, err)
	require.Equal(t, data, got, "the operator can read the stored file before deciding")

	res, err = l.Ack(t.Context())
	require.NoError(t, err)
	require.True(t, res.Acknowledged)
	st, _ := e.sim.Entry(testConn, entry.DeliveryAttemptID)
	require.Equal(t, partnersim.StatusAcknowledged, st.Status)

	bad := e.add(t, payload(1000), partnersim.PayloadFault{WrongHashHeader: true})
	l, res, err = e.w.ProcessHeld(t.Context(), bad, Options{})
	require.Error(t, err)
	require.NotNil(t, l, "a claim was made: its lease is handed back")
	require.Nil(t, res.Stored)
	require.ErrorIs(t, l.CanAck(), ErrNotVerified)
	_, err = l.Ack(t.Context())
	require.ErrorIs(t, err, ErrNotVerified)
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, bad.DeliveryAttemptID))
	l.Release()

	big := entry
	big.DeliveryAttemptID, big.PayloadSize = "too-big", 17<<20
	l, _, err = e.w.ProcessHeld(t.Context(), big, Options{})
	require.ErrorIs(t, err, ErrTooLarge)
	require.Nil(t, l, "nothing claimed, no lease")
}
