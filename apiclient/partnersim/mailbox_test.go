package partnersim

import (
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func addN(t *testing.T, f *fixture, conn string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = f.addEntry(t, conn, payload(10+i), PayloadFault{})
		f.clock.Advance(time.Second)
	}
	return ids
}

func TestListLimit(t *testing.T) {
	f := newFixture(t, HTTP1)
	addN(t, f, connA, 120)
	for _, tc := range []struct {
		query string
		want  int
		more  bool
	}{
		{"", DefaultListLimit, true},
		{"?limit=1", 1, true},
		{"?limit=100", 100, true},
		{"?limit=7&other=x", 7, true},
	} {
		lr := f.list(t, connA, tc.query)
		require.Len(t, lr.Data, tc.want, tc.query)
		require.Equal(t, tc.more, lr.Meta.HasMore, tc.query)
	}
	for _, q := range []string{"?limit=0", "?limit=101", "?limit=-1", "?limit=abc", "?limit=", "?limit=1.5", "?limit=5&limit=6"} {
		resp, body := f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox") + q, auth: authAll})
		requireError(t, resp, body, http.StatusBadRequest, CodeInvalidRequest)
	}
}

// TestCursorPagingStableWhileClaiming: a cursor is a position, so claiming
// entries on earlier pages neither skips nor repeats entries on later ones.
func TestCursorPagingStableWhileClaiming(t *testing.T) {
	f := newFixture(t, HTTP1)
	ids := addN(t, f, connA, 25)
	var seen []string
	query := "?limit=10"
	for page := 0; ; page++ {
		lr := f.list(t, connA, query)
		for _, e := range lr.Data {
			seen = append(seen, e.DeliveryAttemptID)
		}
		if page == 0 {
			// Claim two on the first page and one not yet listed.
			f.claim(t, connA, lr.Data[0].DeliveryAttemptID)
			f.claim(t, connA, lr.Data[5].DeliveryAttemptID)
			f.claim(t, connA, ids[15])
		}
		if !lr.Meta.HasMore {
			require.Empty(t, lr.Meta.NextCursor)
			break
		}
		require.NotEmpty(t, lr.Meta.NextCursor)
		query = "?limit=10&cursor=" + lr.Meta.NextCursor
	}
	want := append(append([]string{}, ids[:15]...), ids[16:]...)
	require.Equal(t, want, seen, "in order, nothing skipped or repeated; the entry claimed before it was listed is absent")
}

func TestCursorNotIssuedIs400(t *testing.T) {
	f := newFixture(t, HTTP1)
	addN(t, f, connA, 5)
	addN(t, f, connA2, 5)
	lr := f.list(t, connA, "?limit=2")
	require.True(t, lr.Meta.HasMore)
	other := f.list(t, connA2, "?limit=2").Meta.NextCursor
	raw, err := base64.RawURLEncoding.DecodeString(lr.Meta.NextCursor)
	require.NoError(t, err)
	raw[7]++ // move the position without the MAC
	forged := base64.RawURLEncoding.EncodeToString(raw)
	for _, c := range []string{"abc", "MTA", forged, other, lr.Meta.NextCursor + "A", lr.Meta.NextCursor + "&cursor=" + lr.Meta.NextCursor} {
		resp, body := f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox") + "?cursor=" + c, auth: authAll})
		requireError(t, resp, body, http.StatusBadRequest, CodeInvalidRequest)
	}
	require.Len(t, f.list(t, connA, "?cursor="+lr.Meta.NextCursor).Data, 3)
}

func TestClaimDuringActiveLeaseIs409(t *testing.T) {
	f := newFixture(t, HTTP1)
	id := f.addEntry(t, connA, payload(10), PayloadFault{})
	f.claim(t, connA, id)
	f.clock.Advance(LeaseDuration - time.Second)
	resp, body := f.send(t, req{method: http.MethodPost, url: f.url(connA, "mailbox", id, "claim"), auth: authAll})
	requireError(t, resp, body, http.StatusConflict, CodeConflict)
	st, _ := f.sim.Entry(connA, id)
	require.Equal(t, 1, st.Attempts, "the refused claim is no attempt")
}

func TestLeaseExpiryMakesEntryDueAgain(t *testing.T) {
	f := newFixture(t, HTTP1)
	id := f.addEntry(t, connA, payload(10), PayloadFault{})
	first := f.claim(t, connA, id)
	f.clock.Advance(LeaseDuration)
	lr := f.list(t, connA, "")
	require.Len(t, lr.Data, 1, "due again once the lease ran out")
	// The old token is dead for payload and acknowledge.
	resp, body := f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox", id, "payload"), auth: authAll, token: first.ClaimToken})
	requireError(t, resp, body, http.StatusNotFound, CodeNotFound)
	code, _ := f.ack(t, connA, id, first.ClaimToken)
	require.Equal(t, http.StatusNotFound, code)
	second := f.claim(t, connA, id)
	require.NotEqual(t, first.ClaimToken, second.ClaimToken)
	code, _ = f.ack(t, connA, id, first.ClaimToken)
	require.Equal(t, http.StatusNotFound, code, "a stale token cannot acknowledge the new lease")
	code, _ = f.ack(t, connA, id, second.ClaimToken)
	require.Equal(t, http.StatusOK, code)
}

func TestAttemptLimitMarksFailed(t *testing.T) {
	f := newFixture(t, HTTP1)
	id := f.addEntry(t, connA, payload(10), PayloadFault{})
	for attempt := 1; attempt <= AttemptLimit; attempt++ {
		f.claim(t, connA, id)
		st, _ := f.sim.Entry(connA, id)
		require.Equal(t, attempt, st.Attempts)
		f.clock.Advance(LeaseDuration + time.Second)
	}
	st, _ := f.sim.Entry(connA, id)
	require.Equal(t, StatusFailed, st.Status)
	require.Empty(t, f.list(t, connA, "").Data)
	resp, body := f.send(t, req{method: http.MethodPost, url: f.url(connA, "mailbox", id, "claim"), auth: authAll})
	requireError(t, resp, body, http.StatusConflict, CodeConflict)
	var outcomes []string
	for _, ev := range f.sim.Audit() {
		if ev.Action == AuditLeaseExpired {
			outcomes = append(outcomes, ev.Outcome)
		}
	}
	require.Equal(t, []string{StatusDue, StatusDue, StatusDue, StatusDue, StatusFailed}, outcomes)
}

func TestClaimAfterAcknowledgeIs409(t *testing.T) {
	f := newFixture(t, HTTP1)
	id := f.addEntry(t, connA, payload(10), PayloadFault{})
	cr := f.claim(t, connA, id)
	code, _ := f.ack(t, connA, id, cr.ClaimToken)
	require.Equal(t, http.StatusOK, code)
	resp, body := f.send(t, req{method: http.MethodPost, url: f.url(connA, "mailbox", id, "claim"), auth: authAll})
	requireError(t, resp, body, http.StatusConflict, CodeConflict)
	resp, body = f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox", id, "payload"), auth: authAll, token: cr.ClaimToken})
	requireError(t, resp, body, http.StatusNotFound, CodeNotFound)
}

func TestDueAtHidesFutureEntries(t *testing.T) {
	f := newFixture(t, HTTP1)
	due := f.clock.Now().Add(time.Minute)
	id, err := f.sim.AddEntry(connA, Delivery{MessageType: "CONTRL", Payload: payload(5), DueAt: due})
	require.NoError(t, err)
	require.Empty(t, f.list(t, connA, "").Data)
	resp, body := f.send(t, req{method: http.MethodPost, url: f.url(connA, "mailbox", id, "claim"), auth: authAll})
	requireError(t, resp, body, http.StatusNotFound, CodeNotFound)
	f.clock.Advance(time.Minute)
	lr := f.list(t, connA, "")
	require.Len(t, lr.Data, 1)
	require.Equal(t, due.UTC().Format(time.RFC3339), lr.Data[0].CreatedAt)
}

func TestConnectionsAreSeparateMailboxes(t *testing.T) {
	f := newFixture(t, HTTP1)
	a := addN(t, f, connA, 3)
	b := addN(t, f, connA2, 2)
	require.Len(t, f.list(t, connA, "").Data, 3)
	require.Len(t, f.list(t, connA2, "").Data, 2)
	// An entry id of another connection is unknown here.
	resp, body := f.send(t, req{method: http.MethodPost, url: f.url(connA, "mailbox", b[0], "claim"), auth: authAll})
	requireError(t, resp, body, http.StatusNotFound, CodeNotFound)
	require.Equal(t, a[0], f.list(t, connA, "").Data[0].DeliveryAttemptID)
}

func TestAddEntryValidation(t *testing.T) {
	s := New()
	require.NoError(t, s.AddConnection(Connection{ID: "c", Tenant: "t"}))
	_, err := s.AddEntry("nope", Delivery{MessageType: "ORDRSP"})
	require.ErrorIs(t, err, ErrUnknownConnection)
	_, err = s.AddEntry("c", Delivery{})
	require.ErrorIs(t, err, ErrInvalid)
	_, err = s.AddEntry("c", Delivery{ID: "x", MessageType: "ORDRSP"})
	require.NoError(t, err)
	_, err = s.AddEntry("c", Delivery{ID: "x", MessageType: "ORDRSP"})
	require.ErrorIs(t, err, ErrDuplicate)
	require.ErrorIs(t, s.AddConnection(Connection{ID: "c", Tenant: "t"}), ErrDuplicate)
	require.ErrorIs(t, s.AddConnection(Connection{ID: "d"}), ErrInvalid)
	require.ErrorIs(t, s.AddKey(Key{ID: "k", Tenant: "t"}), ErrInvalid)
	require.NoError(t, s.AddKey(Key{ID: "k", Secret: "s", Tenant: "t"}))
	require.ErrorIs(t, s.AddKey(Key{ID: "k", Secret: "s", Tenant: "t"}), ErrDuplicate)
	require.Equal(t, []string{"c"}, s.ConnectionIDs())
	require.Len(t, s.Entries("c"), 1)
	require.Nil(t, s.Entries("nope"))
}
