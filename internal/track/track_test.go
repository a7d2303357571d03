package track

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// world is a data directory with two connections: PO-4711 uploaded on
// conn-a, answered by CONTRL and ORDRSP; PO-4712 uploaded on conn-b and
// rejected by its CONTRL; PO-4713 on conn-b never answered.
func world(t *testing.T) (string, *spool.Store) {
	t.Helper()
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	uploaded(t, s, "conn-a", "ICR0001", "PO-4711", ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeAccepted)
	store(t, s, "conn-a", "d-contrl-1", "CONTRL", contrl("CTL1", "ICR0001", false), t0.Add(2*time.Minute), true)
	store(t, s, "conn-a", "d-ordrsp-1", "ORDRSP", ordrsp("RSP1", "PO-4711"), t0.Add(3*time.Hour), true)
	uploaded(t, s, "conn-b", "ICR0002", "PO-4712", ordersIC("ICR0002", "PO-4712"), t0.Add(time.Hour), spool.OutcomeAccepted)
	store(t, s, "conn-b", "d-contrl-2", "CONTRL", contrl("CTL2", "ICR0002", true), t0.Add(time.Hour+time.Minute), false)
	uploaded(t, s, "conn-b", "ICR0003", "PO-4713", ordersIC("ICR0003", "PO-4713"), t0.Add(2*time.Hour), spool.OutcomeAccepted)
	return dir, s
}

func mustFind(t *testing.T, x *Index, text string) Result {
	t.Helper()
	q, err := ParseQuery(text)
	require.NoError(t, err)
	r, err := x.Find(t.Context(), q, nil)
	require.NoError(t, err)
	return r
}

func TestFindAcrossConnections(t *testing.T) {
	dir, s := world(t)
	c := &clock{t: t0.Add(30 * time.Hour)}
	var said []string
	x := openIndex(t, dir, c, &said)
	st, err := x.Sync(t.Context())
	require.NoError(t, err)
	require.True(t, st.Rebuilt)
	require.Len(t, said, 1)
	require.Contains(t, said[0], "there was no index yet")

	r := mustFind(t, x, "po:PO-4711")
	require.Len(t, r.Conversations, 1)
	cv := r.Conversations[0]
	require.Equal(t, "order PO-4711", cv.Label)
	require.Equal(t, []string{"conn-a"}, cv.Conns)
	var kinds []string
	for _, it := range cv.Items {
		kinds = append(kinds, string(it.Kind)+":"+it.Type)
	}
	require.Equal(t, []string{"upload:ORDERS", "delivery:CONTRL", "delivery:ORDRSP"}, kinds, "the CONTRL joins through the upload's interchange")
	require.Equal(t, "answered", cv.State.Flag())

	// the CONTRL's interchange finds the same conversation
	r = mustFind(t, x, "icr:ICR0001")
	require.Len(t, r.Conversations, 1)
	require.Equal(t, "order PO-4711", r.Conversations[0].Label)

	// a GLN every item carries finds every conversation on both connections, newest first
	r = mustFind(t, x, buyer)
	var labels []string
	for _, c := range r.Conversations {
		labels = append(labels, c.Label)
	}
	require.Equal(t, []string{"order PO-4711", "order PO-4713", "order PO-4712"}, labels)

	// -c narrows to one connection
	q, _ := ParseQuery(buyer)
	q.Conn = "conn-b"
	r, err = x.Find(t.Context(), q, nil)
	require.NoError(t, err)
	require.Len(t, r.Conversations, 2)
	// ... and to its items, even where an order lives on both
	uploaded(t, s, "conn-b", "ICR0009", "PO-4711", ordersIC("ICR0009", "PO-4711"), t0.Add(5*time.Hour), spool.OutcomeAccepted)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	q, _ = ParseQuery("po:PO-4711")
	require.Len(t, mustFind(t, x, "po:PO-4711").Conversations[0].Conns, 2)
	q.Conn = "conn-b"
	r, err = x.Find(t.Context(), q, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"conn-b"}, r.Conversations[0].Conns)
	require.Len(t, r.Conversations[0].Items, 1)

	// needs action and overdue
	r = mustFind(t, x, "PO-4712")
	require.Equal(t, "needs action", r.Conversations[0].State.Flag())
	require.Equal(t, []string{"CONTRL: rejected (1 error)"}, r.Conversations[0].State.NeedsAction)
	r = mustFind(t, x, "po-4713")
	require.Equal(t, "overdue", r.Conversations[0].State.Flag())
	require.Equal(t, []string{"no CONTRL 28h after the upload (sla.contrl 15m)", "no ORDRSP 28h after the upload (sla.ordrsp 24h)"},
		r.Conversations[0].State.Overdue)

	// type: lists by message type
	r = mustFind(t, x, "type:contrl")
	require.Len(t, r.Conversations, 2)
	// the idempotency key and the server's upload ID
	require.Len(t, mustFind(t, x, "key:"+buyer+":PO-4711:orders:1").Conversations, 1)
	require.Len(t, mustFind(t, x, "id:up-PO-4711").Conversations, 1)
	require.Empty(t, mustFind(t, x, "po:PO-9999").Conversations)
}

func TestOverdueAndSLA(t *testing.T) {
	dir, _ := world(t)
	c := &clock{t: t0.Add(2*time.Hour + 10*time.Minute)}
	x := openIndex(t, dir, c, nil)
	_, err := x.Sync(t.Context())
	require.NoError(t, err)

	// 10 minutes after PO-4713: within sla.contrl; PO-4712 needs action
	sts, err := x.Overdue(t.Context(), time.Time{}, "", nil)
	require.NoError(t, err)
	require.Len(t, sts, 1)
	require.Equal(t, "4012345000009:PO-4712:orders:1", sts[0].Key)
	require.True(t, sts[0].IsNeedsAction())

	// 20 minutes: PO-4713 has no CONTRL in time; a 30m SLA on conn-b says it is not
	c.t = t0.Add(2*time.Hour + 20*time.Minute)
	sts, err = x.Overdue(t.Context(), time.Time{}, "", nil)
	require.NoError(t, err)
	require.Len(t, sts, 2)
	require.Equal(t, []string{"no CONTRL 20m after the upload (sla.contrl 15m)"}, sts[1].Overdue)
	sts, err = x.Overdue(t.Context(), time.Time{}, "", func(string) SLA { return SLA{Contrl: 30 * time.Minute} })
	require.NoError(t, err)
	require.Len(t, sts, 1)

	// PO-4711 had its CONTRL, and its ORDRSP after 3h: never overdue
	c.t = t0.Add(100 * time.Hour)
	sts, err = x.Overdue(t.Context(), time.Time{}, "conn-a", nil)
	require.NoError(t, err)
	require.Empty(t, sts)
}

func TestRebuildEqualsIncremental(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	c := &clock{t: t0.Add(48 * time.Hour)}
	x := openIndex(t, dir, c, nil)
	// incremental: sync after every change, as the CLI does
	steps := []func(){
		func() {
			uploaded(t, s, "conn-a", "ICR0001", "PO-4711", ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeAccepted)
		},
		func() {
			store(t, s, "conn-a", "d1", "CONTRL", contrl("CTL1", "ICR0001", false), t0.Add(time.Minute), false)
		},
		func() {
			_, err := s.MarkAcknowledged("conn-a", "d1", "rc-d1", t0.Add(2*time.Minute))
			require.NoError(t, err)
		},
		func() { store(t, s, "conn-b", "d2", "ORDRSP", ordrsp("R2", "PO-4711"), t0.Add(time.Hour), true) },
		func() {
			require.NoError(t, s.NoteSeen(spool.SeenRecord{Time: t0.Add(2 * time.Hour), ConnectionID: "conn-b", DeliveryAttemptID: "d3",
				State: spool.SeenRefused, Checks: []string{"hash vs header"}}))
		},
		func() { require.NoError(t, os.Remove(filepath.Join(dir, "conn-b", "deliveries", "d2.json"))) },
	}
	for _, step := range steps {
		step()
		_, err := x.SyncConn(t.Context(), dir, "conn-a")
		require.NoError(t, err)
		_, err = x.SyncConn(t.Context(), dir, "conn-b")
		require.NoError(t, err)
	}
	inc := dump(t, x)
	require.NotEmpty(t, inc)
	_, err = x.Rebuild(t.Context(), "test")
	require.NoError(t, err)
	require.Equal(t, inc, dump(t, x))

	// a fresh database from scratch is the same too
	require.NoError(t, x.Close())
	for _, ext := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(DBPath(dir) + ext)
	}
	y := openIndex(t, dir, c, nil)
	_, err = y.Sync(t.Context())
	require.NoError(t, err)
	require.Equal(t, inc, dump(t, y))
}

// IndexStored after each download (the hook's path) leaves the same index
// as a rebuild, and sees the receipt an acknowledge wrote afterwards.
func TestIndexStoredEqualsRebuild(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	c := &clock{t: t0}
	x := openIndex(t, dir, c, nil)
	uploaded(t, s, "conn-a", "ICR0001", "PO-4711", ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeAccepted)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	st := store(t, s, "conn-a", "d1", "CONTRL", contrl("CTL1", "ICR0001", false), t0.Add(time.Minute), false)
	require.NoError(t, x.IndexStored(t.Context(), dir, *st))
	r := mustFind(t, x, "po:PO-4711")
	require.Len(t, r.Conversations[0].Items, 2, "found at once, without a sync")
	require.Equal(t, "stored", r.Conversations[0].Items[1].State)
	st, err = s.MarkAcknowledged("conn-a", "d1", "rc-1", t0.Add(2*time.Minute))
	require.NoError(t, err)
	require.NoError(t, x.IndexStored(t.Context(), dir, *st))
	st2 := store(t, s, "conn-a", "d2", "ORDRSP", ordrsp("R1", "PO-4711"), t0.Add(time.Hour), true)
	require.NoError(t, x.IndexStored(t.Context(), dir, *st2))
	inc := dump(t, x)
	_, err = x.Rebuild(t.Context(), "test")
	require.NoError(t, err)
	require.Equal(t, inc, dump(t, x))
	r = mustFind(t, x, "id:d1")
	require.Equal(t, "acknowledged", r.Conversations[0].Items[1].State)
}

func TestConnFiguresAndMailboxPage(t *testing.T) {
	dir, s := world(t)
	// a refused delivery on conn-b, never stored; one on conn-a stored since
	require.NoError(t, s.NoteSeen(spool.SeenRecord{ConnectionID: "conn-b", DeliveryAttemptID: "d-bad", State: spool.SeenRefused, Checks: []string{"hashHeader"}}))
	require.NoError(t, s.NoteSeen(spool.SeenRecord{ConnectionID: "conn-a", DeliveryAttemptID: "d-contrl-1", State: spool.SeenRefused, Checks: []string{"trailer"}}))
	c := &clock{t: t0.Add(2*time.Hour + 10*time.Minute)}
	x := openIndex(t, dir, c, nil)
	_, err := x.Sync(t.Context())
	require.NoError(t, err)
	f, err := x.ConnFigures(t.Context(), "conn-b", DefaultSLA)
	require.NoError(t, err)
	require.Equal(t, 1, f.Refused)
	require.Equal(t, 1, f.NeedsAction, "PO-4712 rejected")
	require.Equal(t, 1, f.Awaiting, "PO-4713 within sla.contrl")
	require.Equal(t, 0, f.Overdue)
	c.t = t0.Add(3 * time.Hour)
	f, err = x.ConnFigures(t.Context(), "conn-b", DefaultSLA)
	require.NoError(t, err)
	require.Equal(t, 1, f.Overdue)
	require.Equal(t, 0, f.Awaiting)
	require.Equal(t, "refused here 1 · awaiting answer 0 · overdue 1 · needs action 1 (this machine's files)", f.StoreText())
	a, err := x.ConnFigures(t.Context(), "conn-a", DefaultSLA)
	require.NoError(t, err)
	require.Equal(t, 0, a.Refused, "stored since it was refused")
	require.Equal(t, 0, a.Awaiting+a.Overdue+a.NeedsAction, "PO-4711 has both answers")

	require.Equal(t, "due: reading page 1…", f.DueText())
	now := t0.Add(100 * time.Hour)
	var created []time.Time
	for i := range 50 {
		created = append(created, now.Add(-time.Duration(i)*time.Hour))
	}
	f.AddMailboxPage(created, true, now)
	require.Equal(t, "50+ due (page 1)", f.DueText())
	require.Equal(t, "oldest 2d1h (page 1)", f.OldestText(now))
	require.Equal(t, [5]int{1, 5, 18, 26, 0}, f.Ages)
	require.Equal(t, "age <1h ▁1 1-6h ▂5 6-24h ▅18 1-3d █26 >3d  0", f.Chart())
	f.AddMailboxPage(created[:3], false, now)
	require.Equal(t, "3 due", f.DueText())
	require.Equal(t, "oldest 2h", f.OldestText(now))
	f.AddMailboxPage(nil, false, now)
	require.Equal(t, "none due", f.DueText())
	require.Empty(t, f.Chart())
}

// Events of a capture the inspector read join their order's conversation
// (by subject) and timeline, and survive a rebuild (the list of captures
// is a file, not the database).
func TestEventCapturesJoinTheirOrder(t *testing.T) {
	dir, _ := world(t)
	x := openIndex(t, dir, &clock{t: t0}, nil)
	_, err := x.Sync(t.Context())
	require.NoError(t, err)
	capture, err := filepath.Abs(filepath.Join("..", "..", "apiclient", "events", "testdata", "valid_event.json"))
	require.NoError(t, err)
	require.NoError(t, x.NoteCaptures(t.Context(), []string{capture, capture}))
	check := func() {
		t.Helper()
		r := mustFind(t, x, "po:PO-4711")
		require.Len(t, r.Conversations, 1)
		var ev *Item
		for i, it := range r.Conversations[0].Items {
			if it.Kind == KindEvent {
				ev = &r.Conversations[0].Items[i]
			}
		}
		require.NotNil(t, ev, "the event joins PO-4711 by its subject")
		require.Equal(t, "evt-0001", ev.Ref)
		require.Equal(t, "nutrab2b.orders.confirmed.v2", ev.Type)
		steps := x.Timeline(t.Context(), r.Conversations[0])
		var titles []string
		for _, s := range steps {
			if s.Kind == "event" {
				titles = append(titles, s.Title)
				require.Equal(t, OpenEvent, s.Open.Screen)
				require.Equal(t, capture, s.Open.Path)
			}
		}
		require.Len(t, titles, 1)
		require.Contains(t, titles[0], "event nutrab2b.orders.confirmed.v2 evt-0001: processed, sequence 1")
		require.Len(t, mustFind(t, x, "id:evt-0001").Conversations, 1)
		require.Len(t, mustFind(t, x, "id:corr-PO-4711").Conversations, 1, "the correlation ID is a key")
	}
	check()
	_, err = x.Rebuild(t.Context(), "test")
	require.NoError(t, err)
	check()
}

// IndexHistory (the hook after an upload) reads the history only, and
// leaves the same index as a rebuild.
func TestIndexHistoryEqualsRebuild(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	x := openIndex(t, dir, &clock{t: t0}, nil)
	store(t, s, "conn-a", "d1", "CONTRL", contrl("CTL1", "ICR0001", false), t0.Add(time.Minute), true)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	uploaded(t, s, "conn-a", "ICR0001", "PO-4711", ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeAccepted)
	require.NoError(t, x.IndexHistory(t.Context(), dir, "conn-a"))
	r := mustFind(t, x, "po:PO-4711")
	require.Len(t, r.Conversations, 1)
	require.Len(t, r.Conversations[0].Items, 2, "the upload, and the CONTRL it bridges to")
	uploaded(t, s, "conn-a", "ICR0002", "PO-4712", ordersIC("ICR0002", "PO-4712"), t0.Add(time.Hour), spool.OutcomeAccepted)
	require.NoError(t, x.IndexHistory(t.Context(), dir, "conn-a"))
	inc := dump(t, x)
	_, err = x.Rebuild(t.Context(), "test")
	require.NoError(t, err)
	require.Equal(t, inc, dump(t, x))
}

// --since keeps the conversations with a matching item in the window.
func TestFindSince(t *testing.T) {
	dir, _ := world(t)
	x := openIndex(t, dir, &clock{t: t0}, nil)
	_, err := x.Sync(t.Context())
	require.NoError(t, err)
	q, err := ParseQuery("gln:" + buyer)
	require.NoError(t, err)
	q.Since = t0.Add(90 * time.Minute) // PO-4712's CONTRL (1h1m) and upload (1h) are older; PO-4713's upload (2h) and PO-4711's ORDRSP (3h) are in
	r, err := x.Find(t.Context(), q, nil)
	require.NoError(t, err)
	var labels []string
	for _, c := range r.Conversations {
		labels = append(labels, c.Label)
	}
	require.Equal(t, []string{"order PO-4711", "order PO-4713"}, labels)
}

// TestEventsJoinByTheIDsTheyCarry: the platform's events name the upload
// by its interchange ID (correlationid) and uploadId, with a subject that
// is no order number ("connection/…"): they join that upload's order, and
// an event caused by another of the same moment follows it (issue 23 §2).
func TestEventsJoinByTheIDsTheyCarry(t *testing.T) {
	dir, _ := world(t)
	x := openIndex(t, dir, &clock{t: t0}, nil)
	_, err := x.Sync(t.Context())
	require.NoError(t, err)
	ev := func(id, typ, cause, data string) string {
		c := ""
		if cause != "" {
			c = `"causationid": "` + cause + `",`
		}
		return `{"specversion": "2.0", "id": "` + id + `", "type": "` + typ + `", "source": "https://sim.example/b2b", "subject": "connection/conn-a",
			"time": "2026-03-12T10:31:00Z", "sender": "4000001000005", "receiver": "4012345000009", "correlationid": "ic-up-PO-4711", ` + c + `
			"idempotencykey": "k-` + id + `", "sequence": 1, "env": "prod", "data": ` + data + `}`
	}
	// the caused event comes first in the file: the causation orders them
	body := "[" + ev("evt-2", "nutrab2b.answer_produced.v2", "evt-1", `{"deliveryAttemptId": "d-none"}`) + "," +
		ev("evt-1", "nutrab2b.upload_accepted.v2", "", `{"uploadId": "up-PO-4711", "interchangeId": "ic-up-PO-4711"}`) + "]"
	capture := filepath.Join(t.TempDir(), "001.json")
	require.NoError(t, os.WriteFile(capture, []byte(body), 0o600))
	require.NoError(t, x.NoteCaptures(t.Context(), []string{capture}))

	r := mustFind(t, x, "po:PO-4711")
	require.Len(t, r.Conversations, 1, "no conversation of their own by subject")
	var refs []string
	for _, st := range x.Timeline(t.Context(), r.Conversations[0]) {
		if st.Kind == "event" {
			refs = append(refs, st.Open.Event)
		}
	}
	require.Equal(t, []string{"evt-1", "evt-2"}, refs, "both events, the cause first")
}
