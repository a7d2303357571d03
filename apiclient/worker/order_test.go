package worker

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
)

// TestOrderMarkedOneClaimNeverTwice: the marked entries run through the
// runner's order in the order given, one claim at a time, an ID given
// twice taken once; a second order, or a claim, is refused while one
// runs; the first failure ends it and the entries after it are not
// claimed.
func TestOrderMarkedOneClaimNeverTwice(t *testing.T) {
	e := newEnv(t, false)
	a := e.add(t, payload(100), partnersim.PayloadFault{})
	b := e.add(t, payload(100), partnersim.PayloadFault{})
	bad := e.add(t, payload(100), partnersim.PayloadFault{WrongHashHeader: true})
	after := e.add(t, payload(100), partnersim.PayloadFault{})
	r := e.runner()

	require.NoError(t, r.Start(Order{Kind: OrderMarked, Entries: []apiclient.Entry{a, b, a}}))
	require.Error(t, r.Start(Order{Kind: OrderHead}), "one order at a time")
	var claimed []string
	for {
		mv := r.Next()
		if mv.Kind == MoveEnd {
			require.Equal(t, EndDone, mv.End)
			require.Equal(t, OrderMarked, mv.Order)
			break
		}
		switch mv.Kind {
		case MoveClaim:
			require.True(t, r.Active(), "Next began the claim")
			require.ErrorIs(t, r.Refuse(after), ErrOneClaim, "one claim per connection while the order runs")
			require.ErrorIs(t, r.Begin(after), ErrOneClaim)
			claimed = append(claimed, mv.Entry.DeliveryAttemptID)
			_, err := r.Claim(t.Context(), ClaimOptions{})
			require.NoError(t, err)
		case MoveFetch:
			_, err := r.Fetch(t.Context(), FetchOptions{})
			require.NoError(t, err)
		case MoveAck:
			_, err := r.Ack(t.Context())
			require.NoError(t, err)
		default:
			t.Fatalf("move %v", mv.Kind)
		}
	}
	require.Equal(t, []string{a.DeliveryAttemptID, b.DeliveryAttemptID}, claimed, "in order, the repeated ID once")
	require.Equal(t, 2, e.sim.RequestCount(partnersim.EndpointClaim, ""))

	// Run: the failure ends the order, the entry after it is not claimed,
	// and an entry acknowledged before is refused, not claimed again.
	var got []string
	err := r.Run(t.Context(), Order{Kind: OrderMarked, Entries: []apiclient.Entry{bad, after}}, nil, func(c Choice, res *Result, _ error) {
		got = append(got, c.Entry.DeliveryAttemptID+" "+string(res.FailedStep))
	})
	require.Error(t, err)
	require.Equal(t, []string{bad.DeliveryAttemptID + " verify"}, got)
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointClaim, after.DeliveryAttemptID))
	_, _, running := r.Order()
	require.False(t, running)

	got = nil
	err = r.Run(t.Context(), Order{Kind: OrderMarked, Entries: []apiclient.Entry{a}}, nil, func(c Choice, res *Result, _ error) {
		got = append(got, c.Entry.DeliveryAttemptID+" "+string(res.FailedStep))
	})
	require.ErrorIs(t, err, ErrDone)
	require.Equal(t, []string{a.DeliveryAttemptID + " claim"}, got)
	require.Equal(t, 1, e.sim.RequestCount(partnersim.EndpointClaim, a.DeliveryAttemptID), "never an ID twice")
}

// TestOrderWorkerPauseAndExtend: W pauses after the entry it works on; W
// during P turns it into worker mode (it goes on after the head); an
// order over several entries refuses to leave leases unacknowledged.
func TestOrderWorkerPauseAndExtend(t *testing.T) {
	e := newEnv(t, false)
	for range 3 {
		e.add(t, payload(100), partnersim.PayloadFault{})
	}
	r := e.runner()
	require.Error(t, r.Start(Order{Kind: OrderWorker, NoAck: true}))
	require.Error(t, r.Start(Order{Kind: OrderMarked}), "no entries")

	require.NoError(t, r.Start(Order{Kind: OrderHead}))
	require.Equal(t, MoveHead, r.Next().Kind)
	require.True(t, r.Extend(), "P becomes W")
	o, _, _ := r.Order()
	require.Equal(t, OrderWorker, o.Kind)
	acked := 0
	for {
		mv := r.Next()
		if mv.Kind == MoveHead {
			c, err := r.Head(t.Context())
			mv = r.Headed(c, err)
		}
		switch mv.Kind {
		case MoveClaim:
			_, err := r.Claim(t.Context(), ClaimOptions{})
			require.NoError(t, err)
		case MoveFetch:
			_, err := r.Fetch(t.Context(), FetchOptions{})
			require.NoError(t, err)
		case MoveAck:
			_, err := r.Ack(t.Context())
			require.NoError(t, err)
			if acked++; acked == 2 {
				require.True(t, r.Pause())
				_, pausing, _ := r.Order()
				require.True(t, pausing)
			}
		case MoveEnd:
			require.Equal(t, EndPaused, mv.End, "paused after the second entry")
			require.Equal(t, 2, acked)
			require.False(t, r.Pause(), "nothing left to pause")

			// W again: the rest, then the end of the mailbox.
			require.NoError(t, r.Run(t.Context(), Order{Kind: OrderWorker}, nil, nil))
			require.Equal(t, 3, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
			return
		}
	}
}
