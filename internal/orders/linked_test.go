package orders

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/edi/answers"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

const po4711Key = "4012345000009:PO-4711:orders:1"

// answered uploads testdata's ORDERS PO-4711 to a simulator whose partner
// answers at once, and downloads (and acknowledges) every answer into
// the spool. It returns the sent file and the stored deliveries by type.
func answered(t *testing.T) (*env, string, map[string]string) {
	t.Helper()
	e := newEnvWith(t, partnersim.WithResponseDelay(0))
	po := orderstest.WriteFile(t, "po.edi", fixture(t, "orders_d96a.edi"))
	o := e.send(t, e.plan(t, po))
	require.Equal(t, ClassAccepted, o.Class)
	require.NoError(t, o.KeepErr)

	w := worker.New(e.client, e.store, nil)
	ids := map[string]string{}
	require.Eventually(t, func() bool {
		p, err := e.client.ListMailbox(t.Context(), 10, "")
		require.NoError(t, err)
		return len(p.Entries) == 2
	}, 10*time.Second, 10*time.Millisecond, "the partner's CONTRL and ORDRSP")
	p, err := e.client.ListMailbox(t.Context(), 10, "")
	require.NoError(t, err)
	for _, en := range p.Entries {
		res, err := worker.NewRunner(w.Backend(), worker.RunnerOptions{}).Process(t.Context(), en, worker.ProcessOptions{Ack: true})
		require.NoError(t, err)
		require.True(t, res.OK())
		ids[en.MessageType] = en.DeliveryAttemptID
	}
	require.Len(t, ids, 2)
	return e, po, ids
}

func TestSendKeepsTheSentBytes(t *testing.T) {
	e := newEnv(t)
	data := orderstest.Orders("REF1", 12, "PO-1")
	o := e.send(t, e.plan(t, orderstest.WriteFile(t, "po.edi", data)))
	require.NoError(t, o.KeepErr)
	p, err := e.store.SentPath(testConn, o.Record.SHA256)
	require.NoError(t, err)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, data, got)
}

func TestSendGoesOnWhenTheCopyCannotBeKept(t *testing.T) {
	e := newEnv(t)
	// A file where the copies' directory would be.
	dir := filepath.Join(e.store.Root(), testConn)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sent"), nil, 0o600))
	o := e.send(t, e.plan(t, orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 12, "PO-1"))))
	require.Error(t, o.KeepErr)
	require.Equal(t, ClassAccepted, o.Class, "the upload itself went ahead")
	require.Equal(t, 1, e.inboxRequests())
}

func TestLoadLinkedBothDirections(t *testing.T) {
	e, _, ids := answered(t)
	l, err := LoadLinked(t.Context(), e.store, testConn, nil)
	require.NoError(t, err)
	require.Len(t, l.Uploads, 1)
	require.Equal(t, po4711Key, l.Uploads[0].Key)
	require.Len(t, l.Deliveries, 2)

	require.Equal(t, []string{"CONTRL: accepted — answers upload of PO-4711 (key " + po4711Key + ")"}, l.AnswerLines(ids["CONTRL"]))
	ordrsp := l.AnswerLines(ids["ORDRSP"])
	require.Len(t, ordrsp, 1)
	require.Regexp(t, `^ORDRSP: 1 of \d+ lines? changed — answers upload of PO-4711 \(key `+po4711Key+`\)$`, ordrsp[0])
	require.Regexp(t, `^answered by CONTRL: accepted; ORDRSP: 1 of \d+ lines? changed$`, l.UploadText(0))

	i, ok := l.OrdrspUpload(ids["ORDRSP"])
	require.True(t, ok)
	require.Equal(t, 0, i)
	_, ok = l.OrdrspUpload(ids["CONTRL"])
	require.False(t, ok, "a CONTRL has nothing to diff")
	id, ok := l.LatestOrdrsp(0)
	require.True(t, ok)
	require.Equal(t, ids["ORDRSP"], id)

	d, ok := l.Delivery(ids["ORDRSP"])
	require.True(t, ok)
	require.NoError(t, d.Err)
	require.False(t, d.Stored.Meta.CreatedAt.IsZero())
	require.Equal(t, d.Stored.Meta.CreatedAt, l.Index.Answers[d.Answers[0]].At, "answers are dated by the server's createdAt")
	_, ok = l.Delivery("not-downloaded")
	require.False(t, ok)
	require.Nil(t, l.AnswerLines("not-downloaded"))
	var none *Linked
	_, ok = none.Delivery("x")
	require.False(t, ok)
}

func TestCompareAnswer(t *testing.T) {
	e, po, ids := answered(t)
	l, err := LoadLinked(t.Context(), e.store, testConn, nil)
	require.NoError(t, err)
	d, _ := l.Delivery(ids["ORDRSP"])
	diffs, err := CompareAnswer(t.Context(), e.store, l.Uploads[0], d.Stored.Path)
	require.NoError(t, err)
	require.Len(t, diffs, 1)
	require.Contains(t, diffs[0].Headline(), "for order PO-4711")
	require.Contains(t, strings.Join(diffs[0].Rows(false), "\n"), "price 1.25 → 1.37", "the simulator amends PO-4711's price")

	// The kept copy wins over the file, which may change after sending.
	require.NoError(t, os.WriteFile(po, []byte("changed"), 0o600))
	_, err = CompareAnswer(t.Context(), e.store, l.Uploads[0], d.Stored.Path)
	require.NoError(t, err)
	kept, err := SentFile(e.store, l.Uploads[0])
	require.NoError(t, err)
	require.NotEqual(t, po, kept)

	// Without the copy (an upload from before copies were kept) the file
	// serves while it has the sent bytes ...
	require.NoError(t, os.Remove(kept))
	require.NoError(t, os.WriteFile(po, fixture(t, "orders_d96a.edi"), 0o600))
	f, err := SentFile(e.store, l.Uploads[0])
	require.NoError(t, err)
	require.Equal(t, po, f)
	// ... and not once it changed.
	require.NoError(t, os.WriteFile(po, []byte("changed"), 0o600))
	_, err = CompareAnswer(t.Context(), e.store, l.Uploads[0], d.Stored.Path)
	require.ErrorIs(t, err, ErrSentUnknown)
	require.Contains(t, err.Error(), "b2bx diff ORDERS ORDRSP")
	require.True(t, termsafe.IsSafe(err.Error()))
}

func TestLoadLinkedReusesWhatItRead(t *testing.T) {
	e, _, ids := answered(t)
	first, err := LoadLinked(t.Context(), e.store, testConn, nil)
	require.NoError(t, err)
	d, _ := first.Delivery(ids["ORDRSP"])
	require.NoError(t, os.WriteFile(d.Stored.Path, []byte("UNB+"), 0o600))

	again, err := LoadLinked(t.Context(), e.store, testConn, first)
	require.NoError(t, err)
	d2, _ := again.Delivery(ids["ORDRSP"])
	require.NoError(t, d2.Err, "read once: the same delivery and hash are not parsed again")
	require.Len(t, again.AnswerLines(ids["ORDRSP"]), 1)

	fresh, err := LoadLinked(t.Context(), e.store, testConn, nil)
	require.NoError(t, err)
	d3, _ := fresh.Delivery(ids["ORDRSP"])
	require.ErrorContains(t, d3.Err, "changed since the download")
	require.Empty(t, fresh.AnswerLines(ids["ORDRSP"]))
	require.Equal(t, "answered by CONTRL: accepted", fresh.UploadText(0), "the other answer is still linked")
}

func TestLoadLinkedOnlyAcceptedUploadsAndAnswerTypes(t *testing.T) {
	e := newEnv(t)
	st := e.store
	// A failed attempt is no upload the partner can answer.
	require.NoError(t, st.AppendUpload(spool.UploadRecord{ConnectionID: testConn, Key: "k-failed", SHA256: "aa", ControlRef: "R1", Outcome: spool.OutcomeFailed}))
	require.NoError(t, st.AppendUpload(spool.UploadRecord{ConnectionID: testConn, Key: "k-ok", SHA256: "bb", ControlRef: "R2",
		SenderID: "4012345000009", DocNumbers: []string{"PO-4711"}, Outcome: spool.OutcomeAccepted, UploadID: "u2"}))
	// An ORDERS delivery is stored but not read for answers.
	w, err := st.Begin(testConn, "da-orders")
	require.NoError(t, err)
	data := []byte("not even EDIFACT")
	_, err = w.Write(data)
	require.NoError(t, err)
	_, err = w.Commit(spool.Meta{ConnectionID: testConn, DeliveryAttemptID: "da-orders", MessageType: "ORDERS", Size: int64(len(data)), SHA256: sha(data)})
	require.NoError(t, err)

	l, err := LoadLinked(t.Context(), st, testConn, nil)
	require.NoError(t, err)
	require.Len(t, l.Uploads, 1)
	require.Equal(t, "k-ok", l.Uploads[0].Key)
	require.Equal(t, []string{"PO-4711"}, l.Index.Uploads[0].BGMNumbers)
	d, ok := l.Delivery("da-orders")
	require.True(t, ok)
	require.NoError(t, d.Err)
	require.Empty(t, d.Answers)
	require.Equal(t, "no answer yet", l.UploadText(0))
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestAnswersInTheOrderTheyWereCreated: whatever order the answers were
// downloaded in, they are listed as the partner created them; a CONTRL
// comes before a business answer of the same moment.
func TestAnswersInTheOrderTheyWereCreated(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	st := func(id, typ string, created, received time.Duration) spool.Stored {
		return spool.Stored{Meta: spool.Meta{DeliveryAttemptID: id, MessageType: typ,
			CreatedAt: at.Add(created), ReceivedAt: at.Add(received)}}
	}
	stored := []spool.Stored{
		st("ordrsp", "ORDRSP", time.Second, time.Minute),
		st("contrl", "CONTRL", time.Second, 2*time.Minute),
		st("old", "APERAK", 0, 3*time.Minute),
		{Meta: spool.Meta{DeliveryAttemptID: "no-created", MessageType: "ORDRSP", ReceivedAt: at.Add(-time.Hour)}},
	}
	sortByAnswerTime(stored)
	var ids []string
	for _, s := range stored {
		ids = append(ids, s.Meta.DeliveryAttemptID)
	}
	require.Equal(t, []string{"no-created", "old", "contrl", "ordrsp"}, ids)
}

// TestWithDeliveryEqualsLoading: the links built one download at a time
// (WithDelivery, in any order) are the links LoadLinked reads, and a
// delivery added again replaces its record.
func TestWithDeliveryEqualsLoading(t *testing.T) {
	e, _, ids := answered(t)
	full, err := LoadLinked(t.Context(), e.store, testConn, nil)
	require.NoError(t, err)
	contrl, _ := full.Delivery(ids["CONTRL"])
	ordrsp, _ := full.Delivery(ids["ORDRSP"])

	empty := &Linked{Uploads: full.Uploads, Index: answers.NewIndex(full.Index.Uploads, nil), byID: map[string]int{}}
	l, err := empty.WithDelivery(t.Context(), ordrsp.Stored) // downloaded out of order
	require.NoError(t, err)
	require.Equal(t, "answered by "+l.Index.Answers[0].Outcome(), l.UploadText(0))
	l, err = l.WithDelivery(t.Context(), contrl.Stored)
	require.NoError(t, err)
	l, err = l.WithDelivery(t.Context(), contrl.Stored) // again: replaced, not doubled
	require.NoError(t, err)

	require.Len(t, l.Deliveries, 2)
	require.Equal(t, full.UploadText(0), l.UploadText(0))
	for _, id := range ids {
		require.Equal(t, full.AnswerLines(id), l.AnswerLines(id))
	}
	i, ok := l.OrdrspUpload(ids["ORDRSP"])
	require.True(t, ok)
	require.Equal(t, 0, i)
	require.Len(t, empty.Deliveries, 0, "the receiver is not changed")

	var none *Linked
	l, err = none.WithDelivery(t.Context(), contrl.Stored)
	require.NoError(t, err)
	require.Equal(t, []string{"CONTRL: accepted — answers interchange ICR0001 from 4012345000009: no upload of this connection has it"}, l.AnswerLines(ids["CONTRL"]))
}

func TestMayAnswer(t *testing.T) {
	for typ, want := range map[string]bool{"CONTRL": true, "ordrsp": true, "APERAK": true, "": true, "ORDERS": false, "INVOIC": false} {
		require.Equal(t, want, MayAnswer(typ), "%q", typ)
	}
}

// TestUploadOfServerTimeIsTheEarliest: a slow send (the local steps take
// seconds) with a Date in the next second: the answer the server created
// on receiving the bytes is not dated before the upload (issue 23).
func TestUploadOfServerTimeIsTheEarliest(t *testing.T) {
	t0 := time.Date(2026, 3, 12, 10, 0, 0, 0, time.UTC)
	hist := []spool.UploadRecord{
		// an earlier upload with the same control reference (a resend)
		{Time: t0.Add(-time.Minute), Key: "k0", SHA256: "00", ControlRef: "R", Outcome: spool.OutcomeAccepted, UploadID: "u0", ServerTime: t0.Add(-time.Minute)},
		{Time: t0, Key: "k", SHA256: "aa", ControlRef: "R", Outcome: spool.OutcomePending},
		{Time: t0.Add(4 * time.Second), Key: "k", SHA256: "aa", ControlRef: "R", Outcome: spool.OutcomeAccepted, UploadID: "u", ServerTime: t0.Add(4 * time.Second)},
	}
	_, ups := AcceptedUploads(hist)
	require.Len(t, ups, 2)
	require.Equal(t, t0, ups[1].At, "sent when the bytes began to leave")
	require.Equal(t, t0, ups[1].ServerAt, "the Date less the round trip")
	// the server took them at 2.9 s and created its CONTRL then: it is
	// the resend's, not the earlier upload's
	a := answers.Answer{Type: "CONTRL", InterchangeRef: "R", At: t0.Add(2900 * time.Millisecond)}
	require.Equal(t, 1, answers.Find(ups, a).Upload)
}
