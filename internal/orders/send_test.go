package orders

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

const key1 = "4012345000009:PO-4711:orders:1"

func TestKeyNumberingAndChoice(t *testing.T) {
	e := newEnv(t)
	po := orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 12, "PO-4711"))

	p := e.plan(t, po)
	require.Equal(t, key1, p.Key)
	require.Equal(t, 1, p.N)
	require.Equal(t, "first-upload", p.DecisionName())
	require.False(t, p.NeedsChoice())
	require.Empty(t, mustHistory(t, e), "planning records nothing")
	o := e.send(t, p)
	require.Equal(t, ClassAccepted, o.Class)
	require.Equal(t, 202, o.Record.HTTPStatus)
	require.Equal(t, "202 accepted", o.Headline())
	require.Empty(t, o.Advice("again"))
	require.False(t, o.KeyKept)
	require.NotEmpty(t, o.Record.UploadID)
	require.False(t, o.Record.Time.IsZero(), "the history's time")

	// The same bytes again: the operator must choose.
	p = e.plan(t, po)
	require.True(t, p.NeedsChoice())
	require.Empty(t, p.Key)
	require.Equal(t, key1, p.ReplayKey)
	require.Equal(t, "4012345000009:PO-4711:orders:2", p.NewKey)
	require.Equal(t, o.Record.UploadID, p.Decision.Previous.UploadID)
	_, err := Send(t.Context(), e.client, p)
	require.ErrorIs(t, err, ErrChoiceNeeded)
	require.ErrorIs(t, p.Choose(ChoiceAbort), ErrAborted)
	require.Equal(t, 1, e.inboxRequests(), "no choice, no abort sends anything")

	require.NoError(t, p.Choose(ChoiceReplay))
	require.Equal(t, key1, p.Key)
	require.Equal(t, "replay", p.DecisionName())
	o = e.send(t, p)
	require.Equal(t, ClassReplay, o.Class)
	require.Equal(t, 200, o.Record.HTTPStatus)
	require.True(t, o.Record.Replay)
	require.Contains(t, o.Headline(), "200 replay")
	require.Len(t, e.sim.Uploads(testConn), 1, "a replay is no new order")

	p = e.plan(t, po)
	require.NoError(t, p.Choose(ChoiceNew))
	require.Equal(t, "4012345000009:PO-4711:orders:2", p.Key)
	require.Equal(t, ClassAccepted, e.send(t, p).Class)
	require.Len(t, e.sim.Uploads(testConn), 2)

	// A changed file for the same order gets the next number.
	p = e.plan(t, orderstest.WriteFile(t, "po2.edi", orderstest.Orders("REF1", 13, "PO-4711")))
	require.Equal(t, "4012345000009:PO-4711:orders:3", p.Key)
	require.Equal(t, "next-payload", p.DecisionName())
	require.Error(t, p.Choose(ChoiceReplay), "no choice for bytes never accepted")

	// Several ORDERS: the business id is the control reference.
	p = e.plan(t, orderstest.WriteFile(t, "multi.edi", orderstest.Orders("REF9", 1, "PO-1", "PO-2")))
	require.Equal(t, "4012345000009:REF9:orders:1", p.Key)
}

func TestNetworkFailureKeepsKey(t *testing.T) {
	e := newEnv(t)
	po := orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 12, "PO-4711"))
	p := e.plan(t, po)

	// The server stores the upload, but every answer is lost.
	e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointInbox, DropResponse: true})
	o := e.send(t, p)
	require.Equal(t, ClassNetwork, o.Class)
	require.Error(t, o.Err)
	require.Equal(t, spool.OutcomeUnclear, o.Record.Outcome)
	require.True(t, o.KeyKept)
	require.True(t, o.Retry)
	require.Contains(t, o.Advice("press R to retry"), "Press R to retry: it reuses the key")

	// A fresh plan of the same bytes reuses the key too.
	again := e.plan(t, po)
	require.Equal(t, key1, again.Key)
	require.Equal(t, "retry", again.DecisionName())

	// Retrying the same plan: same key; the server had it, so a replay.
	e.sim.ClearFaults()
	o = e.send(t, p)
	require.Equal(t, key1, o.Record.Key)
	require.Equal(t, ClassReplay, o.Class)
	require.Len(t, e.sim.Uploads(testConn), 1, "no duplicate")
	for _, u := range e.sim.Uploads(testConn) {
		require.Equal(t, key1, u.IdempotencyKey)
	}
}

func TestOutcomeClasses(t *testing.T) {
	for _, tc := range []struct {
		status        int
		class         Class
		code          string
		keyKept, retr bool
		action        string
	}{
		{503, ClassUnavailable, apiclient.CodeUnavailable, true, true, "retry with backoff"},
		{409, ClassConflict, apiclient.CodeConflict, false, false, "next upload of this file takes the next key number"},
		{413, ClassTooLarge, apiclient.CodePayloadTooLarge, true, false, "keep the payload at or below 16 MiB"},
		{400, ClassInvalid, apiclient.CodeInvalidRequest, true, false, "never repeat it unchanged"},
		{404, ClassNotFound, apiclient.CodeNotFound, true, false, "b2b_exchange_partner_inbox:create"},
		{500, ClassInternal, apiclient.CodeInternal, true, true, "may have arrived"},
	} {
		t.Run(string(tc.class), func(t *testing.T) {
			e := newEnv(t)
			e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointInbox, Status: tc.status})
			o := e.send(t, e.plan(t, orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 1, "PO-1"))))
			require.Equal(t, tc.class, o.Class)
			require.Equal(t, tc.status, o.Record.HTTPStatus)
			require.Equal(t, tc.code, o.Record.ErrorCode)
			require.NotEmpty(t, o.Record.CorrelationID)
			require.Equal(t, tc.keyKept, o.KeyKept, "key kept")
			require.Equal(t, tc.retr, o.Retry, "retry offered")
			require.Contains(t, o.Headline(), tc.code)
			require.Contains(t, o.Advice("retry"), tc.action)
			require.Empty(t, e.sim.Uploads(testConn))
		})
	}
}

func TestConflictMovesOn(t *testing.T) {
	e := newEnv(t)
	po := orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 1, "PO-1"))
	e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointInbox, Status: 409, Times: 1})
	p := e.plan(t, po)
	require.Equal(t, ClassConflict, e.send(t, p).Class)
	_, err := Send(t.Context(), e.client, p)
	require.ErrorIs(t, err, ErrHistoryChanged, "a conflicting key is not sent again")
	p = e.plan(t, po)
	require.Equal(t, "4012345000009:PO-1:orders:2", p.Key)
	require.Equal(t, "after-conflict", p.DecisionName())
}

func TestOperatorKey(t *testing.T) {
	e := newEnv(t)
	p := e.plan(t, orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 1, "PO-1")))
	gen := p.Key
	for _, bad := range []string{"bad key", "ä", strings.Repeat("k", 201)} {
		require.ErrorIs(t, p.SetKey(bad), apiclient.ErrInvalidKey)
		require.Equal(t, gen, p.Key, "an invalid key changes nothing")
		require.ErrorIs(t, ValidateKey(bad), apiclient.ErrInvalidKey)
	}
	require.NoError(t, ValidateKey(strings.Repeat("k", 200)))
	require.NoError(t, p.SetKey("my-key.1"))
	require.True(t, p.OperatorKey())
	require.Equal(t, "operator-key", p.DecisionName())
	require.NoError(t, p.SetKey(""))
	require.Equal(t, gen, p.Key)
	require.Equal(t, 1, p.N)
	require.NoError(t, p.SetKey("my-key.1"))
	o := e.send(t, p)
	require.Equal(t, ClassAccepted, o.Class)
	require.Equal(t, 0, o.Record.N)
	require.Equal(t, "my-key.1", e.sim.Uploads(testConn)[0].IdempotencyKey)

	// Typed keys do not take part in the numbering.
	require.Equal(t, gen, e.plan(t, orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 1, "PO-1"))).Key)
}

// TestHistoryChangedRefused: two plans from one snapshot of the history
// cannot both take number 1 for different bytes.
func TestHistoryChangedRefused(t *testing.T) {
	e := newEnv(t)
	a := e.plan(t, orderstest.WriteFile(t, "a.edi", orderstest.Orders("REF1", 1, "PO-1")))
	b := e.plan(t, orderstest.WriteFile(t, "b.edi", orderstest.Orders("REF1", 2, "PO-1")))
	require.Equal(t, a.Key, b.Key)
	e.send(t, a)
	_, err := Send(t.Context(), e.client, b)
	require.ErrorIs(t, err, ErrHistoryChanged)
	require.Equal(t, 1, e.inboxRequests())
}

func TestBlockedPlanSendsNothing(t *testing.T) {
	e := newEnv(t)
	p, err := Prepare(t.Context(), e.store, testConn, orderstest.WriteFile(t, "empty.edi", nil))
	require.NoError(t, err)
	require.True(t, p.Preflight.Blocked())
	require.Empty(t, p.Key)
	require.ErrorIs(t, p.SetKey("k"), ErrBlocked)
	_, err = Send(t.Context(), e.client, p)
	require.ErrorIs(t, err, ErrBlocked)
	require.Zero(t, e.inboxRequests())
	require.Empty(t, mustHistory(t, e))
}

func TestCancelledSendKeepsKey(t *testing.T) {
	e := newEnv(t)
	p := e.plan(t, orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 1, "PO-1")))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	o, err := Send(ctx, e.client, p)
	require.NoError(t, err)
	require.Equal(t, ClassCancelled, o.Class)
	require.True(t, o.KeyKept)
	require.True(t, o.Retry)
	require.Equal(t, p.Key, e.plan(t, orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 1, "PO-1"))).Key)
}

func TestHistoryRecordsEnvelope(t *testing.T) {
	e := newEnv(t)
	e.send(t, e.plan(t, orderstest.WriteFile(t, "one.edi", orderstest.Orders("REF1", 1, "PO-1"))))
	e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointInbox, Status: 503})
	e.send(t, e.plan(t, orderstest.WriteFile(t, "multi.edi", orderstest.Orders("REF2", 1, "PO-2", "PO-3"))))

	h := mustHistory(t, e)
	require.Len(t, h, 2, "one line per attempt: the reservation merged with its result")
	require.Equal(t, spool.OutcomeFailed, h[0].Outcome, "newest first")
	require.Equal(t, "REF2", h[0].ControlRef)
	require.Equal(t, []string{"PO-2", "PO-3"}, h[0].DocNumbers)
	require.Equal(t, "4098765000003", h[0].RecipientID)
	require.Equal(t, 503, h[0].HTTPStatus)
	require.Equal(t, spool.OutcomeAccepted, h[1].Outcome)
	require.Equal(t, "REF1", h[1].ControlRef)
	require.Equal(t, "4012345000009", h[1].SenderID)
	require.Equal(t, []string{"PO-1"}, h[1].DocNumbers)
	require.NotEmpty(t, h[1].UploadID)
	require.Equal(t, e.sim.Uploads(testConn)[0].ID, h[1].UploadID)
}

func mustHistory(t *testing.T, e *env) []spool.UploadRecord {
	t.Helper()
	h, err := History(e.store, testConn)
	require.NoError(t, err)
	return h
}
