package track

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

func TestTimelineOrderWithFakeClock(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	c := &clock{t: t0}
	s.SetClock(c.now)
	at := func(d time.Duration) time.Time { c.t = t0.Add(d); return c.t }

	uploaded(t, s, "conn-a", "ICR0001", "PO-4711", ordersIC("ICR0001", "PO-4711"), at(0), spool.OutcomeAccepted)
	// the CONTRL was refused once (hash mismatch), then stored and acknowledged
	require.NoError(t, s.NoteSeen(spool.SeenRecord{Time: at(3 * time.Minute), ConnectionID: "conn-a", DeliveryAttemptID: "d-c", MessageType: "CONTRL",
		State: spool.SeenRefused, Checks: []string{"hash vs header"}}))
	at(8 * time.Minute)
	store(t, s, "conn-a", "d-c", "CONTRL", contrl("CTL1", "ICR0001", false), t0.Add(2*time.Minute), false) // due since 2m, received at 8m
	_, err = s.MarkAcknowledged("conn-a", "d-c", "rc-d-c", at(9*time.Minute))
	require.NoError(t, err)
	at(5 * time.Hour)
	store(t, s, "conn-a", "d-r", "ORDRSP", ordrsp("RSP1", "PO-4711"), t0.Add(4*time.Hour), false)

	x := openIndex(t, dir, c, nil)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	r := mustFind(t, x, "PO-4711")
	require.Len(t, r.Conversations, 1)
	steps := x.Timeline(t.Context(), r.Conversations[0])
	var got []string
	for _, st := range steps {
		got = append(got, st.At.Sub(t0).String()+" "+st.Kind)
	}
	require.Equal(t, []string{"0s upload", "2m0s answer", "3m0s refused", "8m0s stored", "9m0s acknowledged", "4h0m0s answer", "5h0m0s stored"}, got)

	up := steps[0]
	require.Equal(t, "ORDERS uploaded: accepted (HTTP 202)", up.Title)
	require.Contains(t, up.Lines, "key 4012345000009:PO-4711:orders:1")
	require.Contains(t, up.Lines, "HTTP 202")
	require.Contains(t, up.Lines, "upload ID up-PO-4711, interchange ID ic-up-PO-4711")
	require.Equal(t, OpenViewer, up.Open.Screen)
	require.FileExists(t, up.Open.Path, "opens the kept copy of the bytes sent")

	ctl := steps[1]
	// issue 23: acknowledged, so gone from the mailbox: not "due"
	require.Equal(t, "CONTRL: accepted (created in the mailbox)", ctl.Title)
	require.Contains(t, ctl.Lines[0], "answers upload of PO-4711")
	require.Contains(t, strings.Join(ctl.Lines, "\n"), "interchange ICR0001: 7 acknowledged")

	require.Contains(t, steps[2].Title, "refused: hash vs header")
	require.Equal(t, OpenClaim, steps[2].Open.Screen)
	require.Equal(t, "acknowledged, receipt rc-d-c", steps[4].Title)

	rsp := steps[5]
	require.Equal(t, "ORDRSP: 1 of 1 line changed (due in the mailbox)", rsp.Title)
	require.Equal(t, OpenDiff, rsp.Open.Screen)
	require.FileExists(t, rsp.Open.Orders)
	joined := strings.Join(rsp.Lines, "\n")
	require.Contains(t, joined, "quantity", "today's diff per line: %s", joined)
}

func TestTimelineRejectedReasonsInWords(t *testing.T) {
	dir, _ := world(t)
	x := openIndex(t, dir, &clock{t: t0}, nil)
	_, err := x.Sync(t.Context())
	require.NoError(t, err)
	r := mustFind(t, x, "po:PO-4712")
	steps := x.Timeline(t.Context(), r.Conversations[0])
	require.Equal(t, "CONTRL: rejected (1 error) (due in the mailbox)", steps[1].Title)
	joined := strings.Join(steps[1].Lines, "\n")
	require.Contains(t, joined, "interchange ICR0002: 4 rejected")
	require.Contains(t, joined, "message M1 (ORDERS D:96A): 4 rejected")
	require.Contains(t, joined, "segment 3 of the message: 13 ")
}

// The partner's clock (the answer's createdAt, the receipt's time) and
// this machine's (stored) disagree a little: one delivery's steps still
// read due, stored, acknowledged.
func TestTimelineStepsOfADeliveryKeepTheirOrder(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	c := &clock{t: t0.Add(3 * time.Second)} // this machine stores 3 s after the server's clock
	s.SetClock(c.now)
	uploaded(t, s, "conn-a", "ICR0001", "PO-4711", ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeAccepted)
	store(t, s, "conn-a", "d1", "CONTRL", contrl("C1", "ICR0001", false), t0.Add(time.Second), false)
	_, err = s.MarkAcknowledged("conn-a", "d1", "rc-1", t0.Add(2*time.Second)) // the server's receipt time
	require.NoError(t, err)
	x := openIndex(t, dir, c, nil)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	var kinds []string
	for _, st := range x.Timeline(t.Context(), mustFind(t, x, "po:PO-4711").Conversations[0]) {
		kinds = append(kinds, st.Kind)
	}
	require.Equal(t, []string{"upload", "answer", "stored", "acknowledged"}, kinds)
}
