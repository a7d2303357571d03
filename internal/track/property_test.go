package track

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi/answers"
	"github.com/nutrab2b/b2bx/internal/orders"
)

// The property tests of issue 23: random histories on two connections —
// uploads, replays, resends with the same and with a new control
// reference, changed orders, answers arriving early, late and out of
// order, answers for orders of other buyers — and the rules every face
// must keep.

var propBuyers = []string{"4012345000009", "4000001000005"}

func propOrders(buyer, ref, doc string, qty int) []byte {
	return fmt.Appendf(nil, "UNA:+.? 'UNB+UNOC:3+%s:14+%s:14+260312:1030+%s'UNH+M1+ORDERS:D:96A:UN'BGM+220+%s+9'"+
		"DTM+137:20260312:102'NAD+BY+%s::9'NAD+SU+%s::9'LIN+1++4000862141404:SRS'QTY+21:%d'UNS+S'UNT+9+M1'UNZ+1+%s'",
		buyer, supplier, ref, doc, buyer, supplier, qty, ref)
}

func propContrl(buyer, own, ref string, rejected bool) []byte {
	action := "7'"
	if rejected {
		action = "4'UCM+M1+ORDERS:D:96A:UN+4'UCS+3+13'"
	}
	return fmt.Appendf(nil, "UNB+UNOA:3+%s:14+%s:14+260312:1031+%s'UNH+C1+CONTRL:2:2:UN'UCI+%s+%s:14+%s:14+%sUNT+3+C1'UNZ+1+%s'",
		supplier, buyer, own, ref, buyer, supplier, action, own)
}

func propOrdrsp(buyer, own, doc string) []byte {
	return fmt.Appendf(nil, "UNA:+.? 'UNB+UNOC:3+%s:14+%s:14+260312:1200+%s'UNH+R1+ORDRSP:D:96A:UN'BGM+231+RSP-%s+29'"+
		"DTM+137:20260312:102'RFF+ON:%s'NAD+BY+%s::9'NAD+SU+%s::9'UNS+S'UNT+8+R1'UNZ+1+%s'",
		supplier, buyer, own, own, doc, buyer, supplier, own)
}

// propUpload is one upload of the generated history, as the truth the
// checks compare with.
type propUpload struct {
	conn, buyer, po, ref, key, id string
	sent                          time.Time // on the server's clock
	local                         time.Time
	serverKnown                   bool
}

type propWorld struct {
	dir     string
	store   *spool.Store
	uploads []propUpload
	end     time.Time
}

// genWorld writes a random history into a fresh store.
func genWorld(t *testing.T, seed uint64) *propWorld {
	t.Helper()
	return genWorldWith(t, seed, nil)
}

// genWorldWith is genWorld calling after (when not nil) after each step,
// with the world so far and the step's clock.
func genWorldWith(t *testing.T, seed uint64, after func(w *propWorld, now time.Time)) *propWorld {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 23))
	w := &propWorld{dir: t.TempDir()}
	s, err := spool.Open(w.dir)
	require.NoError(t, err)
	w.store = s
	conns := []string{"conn-a", "conn-b"}
	now := t0
	nKey := map[string]int{}
	var icr, ans int
	for step := 0; step < 14+r.IntN(14); step++ {
		now = now.Add(time.Duration(1+r.IntN(20)) * time.Minute)
		switch k := r.IntN(10); {
		case k < 4 || len(w.uploads) == 0: // a new upload, a resend or a changed order
			conn, buyer := conns[r.IntN(2)], propBuyers[r.IntN(2)]
			po := fmt.Sprintf("PO-%d", 1+r.IntN(3))
			ref := ""
			fixes := ""
			for i := len(w.uploads) - 1; i >= 0; i-- {
				if u := w.uploads[i]; u.conn == conn && u.buyer == buyer && u.po == po {
					if r.IntN(2) == 0 {
						ref = u.ref // a resend that keeps the control reference
					}
					if r.IntN(2) == 0 {
						fixes = u.id
					}
					break
				}
			}
			if ref == "" {
				icr++
				ref = fmt.Sprintf("ICR%04d", icr)
			}
			kk := conn + buyer + po
			nKey[kk]++
			key := fmt.Sprintf("%s:%s:orders:%d", buyer, po, nKey[kk])
			data := propOrders(buyer, ref, po, nKey[kk])
			_, err := s.KeepSent(conn, data)
			require.NoError(t, err)
			sum := sha256.Sum256(data)
			u := propUpload{conn: conn, buyer: buyer, po: po, ref: ref, key: key, id: fmt.Sprintf("up-%d", len(w.uploads)), sent: now, local: now,
				serverKnown: r.IntN(5) != 0}
			if r.IntN(4) == 0 {
				u.local = now.Add(30 * time.Second) // this machine's clock runs ahead
			}
			rec := spool.UploadRecord{Time: u.local, ConnectionID: conn, File: "/tmp/" + po + ".edi", Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]),
				Key: key, SenderID: buyer, BusinessID: po, RecipientID: supplier, ControlRef: ref, DocNumbers: []string{po}, N: nKey[kk],
				Outcome: spool.OutcomePending, Fixes: fixes, BuyerID: buyer, SupplierID: supplier}
			require.NoError(t, s.AppendUpload(rec))
			rec.Outcome, rec.HTTPStatus, rec.UploadID, rec.InterchangeID, rec.Status = spool.OutcomeAccepted, 202, u.id, "ic-"+u.id, "accepted"
			if u.serverKnown {
				rec.ServerTime = u.sent
			}
			require.NoError(t, s.AppendUpload(rec))
			w.uploads = append(w.uploads, u)
		case k < 5: // a replay: 200, the same uploadId
			u := w.uploads[r.IntN(len(w.uploads))]
			hist, err := s.Uploads(u.conn)
			require.NoError(t, err)
			for _, rec := range hist {
				if rec.UploadID == u.id && rec.Outcome == spool.OutcomeAccepted {
					rec.Time, rec.HTTPStatus, rec.Replay, rec.Status = now, 200, true, "replayed"
					if !rec.ServerTime.IsZero() {
						rec.ServerTime = now
					}
					require.NoError(t, s.AppendUpload(rec))
					break
				}
			}
		default: // an answer: early, late, for another buyer, out of order
			u := w.uploads[r.IntN(len(w.uploads))]
			created := now
			switch r.IntN(4) {
			case 0:
				created = u.sent.Add(-time.Duration(1+r.IntN(10)) * time.Minute) // created before that upload
			case 1:
				created = u.sent.Add(time.Duration(r.IntN(3)) * time.Second)
			}
			buyer := u.buyer
			if r.IntN(5) == 0 {
				buyer = propBuyers[0]
				if u.buyer == buyer {
					buyer = propBuyers[1]
				}
			}
			ans++
			id := fmt.Sprintf("d-%d", ans)
			if r.IntN(2) == 0 {
				store(t, s, u.conn, id, "CONTRL", propContrl(buyer, fmt.Sprintf("C%d", ans), u.ref, r.IntN(3) == 0), created, r.IntN(2) == 0)
			} else {
				store(t, s, u.conn, id, "ORDRSP", propOrdrsp(buyer, fmt.Sprintf("R%d", ans), u.po), created, r.IntN(2) == 0)
			}
		}
		if after != nil {
			after(w, now)
		}
	}
	w.end = now.Add(48 * time.Hour)
	return w
}

// candidates are the uploads of the truth an answer could answer: same
// connection, its reference, its parties.
func (w *propWorld) candidates(conn string, a answers.Answer) []propUpload {
	var out []propUpload
	for _, u := range w.uploads {
		if u.conn != conn {
			continue
		}
		switch a.Type {
		case "CONTRL":
			if u.ref == a.InterchangeRef && u.buyer == a.InterchangeSender {
				out = append(out, u)
			}
		case "ORDRSP":
			if slices.Contains(a.Refs, u.po) && u.buyer == a.Buyer && u.buyer == a.To {
				out = append(out, u)
			}
		}
	}
	return out
}

func TestPropertyLinksTimelinesAndStatesAgree(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			w := genWorld(t, seed)
			sla := SLA{Contrl: 15 * time.Minute, Ordrsp: 24 * time.Hour}
			h := map[string]string{} // conn key → H's flag

			for _, conn := range []string{"conn-a", "conn-b"} {
				l, err := orders.LoadLinked(t.Context(), w.store, conn, nil)
				require.NoError(t, err)
				x := l.Index
				// a replay is the upload it repeats: one entry per upload id
				ids := map[string]bool{}
				for _, u := range x.Uploads {
					require.False(t, ids[u.UploadID], "upload %s twice", u.UploadID)
					ids[u.UploadID] = true
				}
				n := 0
				for _, u := range w.uploads {
					if u.conn == conn {
						n++
					}
				}
				require.Len(t, x.Uploads, n)

				for j, a := range x.Answers {
					lk := x.Link(j)
					cands := w.candidates(conn, a)
					if !lk.Linked() {
						for _, c := range cands {
							require.False(t, !c.sent.After(a.At), "answer %s unlinked though upload %s was sent before it", a.ID, c.id)
						}
						continue
					}
					up := x.Uploads[lk.Upload]
					var truth *propUpload
					for i := range cands {
						if cands[i].id == up.UploadID {
							truth = &cands[i]
						}
					}
					require.NotNil(t, truth, "answer %s linked to %s: not its reference, connection or parties", a.ID, up.UploadID)
					if truth.serverKnown {
						require.False(t, truth.sent.After(a.At), "answer %s created %s before its upload %s (%s)", a.ID, a.At, up.UploadID, truth.sent)
					}
					for _, c := range cands {
						if c.id != truth.id && c.serverKnown && truth.serverKnown {
							require.False(t, c.sent.After(truth.sent) && !c.sent.After(a.At),
								"answer %s: upload %s was sent later than %s and still before the answer", a.ID, c.id, truth.id)
						}
					}
				}
				for i, u := range x.Uploads {
					h[conn+" "+u.Key] = StateOf(x, i, sla, w.end).Flag()
				}
			}

			c := &clock{t: w.end}
			x := openIndex(t, w.dir, c, nil)
			_, err := x.Sync(t.Context())
			require.NoError(t, err)
			sf := func(string) SLA { return sla }

			// the link input read from the index is the store's, without
			// parsing a payload
			for _, conn := range []string{"conn-a", "conn-b"} {
				fromStore, err := orders.LoadLinked(t.Context(), w.store, conn, nil)
				require.NoError(t, err)
				fromIndex, err := x.Linked(t.Context(), w.store, conn)
				require.NoError(t, err)
				require.Equal(t, len(fromStore.Uploads), len(fromIndex.Uploads))
				for i := range fromStore.Uploads {
					require.Equal(t, fromStore.UploadText(i), fromIndex.UploadText(i), "upload %d of %s", i, conn)
					require.Equal(t, StateOf(fromStore.Index, i, sla, w.end), StateOf(fromIndex.Index, i, sla, w.end))
					// the guard's narrow read: that upload's conversations only
					rec := fromStore.Uploads[i]
					one, err := x.LinkedFor(t.Context(), w.store, conn, &orders.Selection{Keys: []string{rec.Key}})
					require.NoError(t, err)
					// it holds the uploads of that upload's conversations
					at := slices.IndexFunc(one.Uploads, func(r spool.UploadRecord) bool {
						return r.Key == rec.Key && r.SHA256 == rec.SHA256 && r.Time.Equal(rec.Time)
					})
					require.GreaterOrEqual(t, at, 0, "upload %d of %s read alone", i, conn)
					require.Equal(t, fromStore.UploadText(i), one.UploadText(at), "upload %d of %s read alone", i, conn)
				}
			}

			// --overdue and the dashboard read the same states as H
			states, err := x.UploadStates(t.Context(), time.Time{}, "", sf)
			require.NoError(t, err)
			got := map[string]string{}
			for _, s := range states {
				got[s.Conn+" "+s.Key] = s.Flag()
			}
			require.Equal(t, h, got, "H and the index disagree")
			od, err := x.Overdue(t.Context(), time.Time{}, "", sf)
			require.NoError(t, err)
			var open, want []string
			for _, s := range od {
				open = append(open, s.Conn+" "+s.Key)
			}
			for k, f := range h {
				if f == "overdue" || f == "needs action" {
					want = append(want, k)
				}
			}
			sort.Strings(open)
			sort.Strings(want)
			require.Equal(t, want, open, "--overdue")
			for _, conn := range []string{"conn-a", "conn-b"} {
				f, err := x.ConnFigures(t.Context(), conn, sla)
				require.NoError(t, err)
				var na, ov, aw int
				for k, fl := range h {
					if !strings.HasPrefix(k, conn+" ") {
						continue
					}
					switch fl {
					case "needs action":
						na++
					case "overdue":
						ov++
					case "awaiting":
						aw++
					}
				}
				require.Equal(t, [3]int{na, ov, aw}, [3]int{f.NeedsAction, f.Overdue, f.Awaiting}, "the dashboard of %s", conn)
			}

			// find: every table and timeline in time order; each state as H says
			for _, po := range []string{"PO-1", "PO-2", "PO-3"} {
				res, err := x.Find(t.Context(), mustQuery(t, "po:"+po), sf)
				require.NoError(t, err)
				for _, cv := range res.Conversations {
					steps := x.Timeline(t.Context(), cv)
					for i := 1; i < len(steps); i++ {
						require.False(t, steps[i].At.Before(steps[i-1].At), "timeline of %s not in time order at step %d: %s after %s",
							cv.Label, i, steps[i].At, steps[i-1].At)
					}
					for _, st := range Assess(cv.Items, sf, w.end) {
						require.Equal(t, h[st.Conn+" "+st.Key], st.Flag(), "find's state of %s", st.Key)
					}
					for _, it := range cv.Items {
						if it.Kind == KindDelivery && it.State == "acknowledged" {
							for _, s := range steps {
								if s.Kind == "answer" && strings.Contains(s.Source, "delivery "+it.Ref+" ") {
									require.NotContains(t, s.Title, "due in the mailbox")
								}
							}
						}
					}
				}
			}
		})
	}
}

func mustQuery(t *testing.T, s string) Query {
	t.Helper()
	q, err := ParseQuery(s)
	require.NoError(t, err)
	return q
}

// TestFixedRejectionIsResolved is the demo's story: PO-4712 rejected by
// its CONTRL, fixed with the same control reference and sent again; the
// old CONTRL stays on the first upload, the new one goes to the resend,
// and nothing needs action once the resend is accepted.
func TestFixedRejectionIsResolved(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	b := propBuyers[0]
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	rec := func(key, id string, n int, sent time.Time, fixes string, qty int) {
		data := propOrders(b, "DEMO004712", "PO-4712", qty)
		_, err := s.KeepSent("conn-a", data)
		require.NoError(t, err)
		sum := sha256.Sum256(data)
		r := spool.UploadRecord{Time: sent, ConnectionID: "conn-a", SHA256: hex.EncodeToString(sum[:]), Key: key, SenderID: b, BusinessID: "PO-4712",
			RecipientID: supplier, ControlRef: "DEMO004712", DocNumbers: []string{"PO-4712"}, N: n, Outcome: spool.OutcomeAccepted, HTTPStatus: 202,
			UploadID: id, ServerTime: sent, Fixes: fixes, BuyerID: b, SupplierID: supplier}
		require.NoError(t, s.AppendUpload(r))
	}
	rec(b+":PO-4712:orders:1", "up-1", 1, at(54*time.Second), "", 5)
	store(t, s, "conn-a", "d-old", "CONTRL", propContrl(b, "C1", "DEMO004712", true), at(56*time.Second), true)
	rec(b+":PO-4712:orders:2", "up-2", 2, at(3*time.Minute+40*time.Second), "up-1", 6)
	store(t, s, "conn-a", "d-new", "CONTRL", propContrl(b, "C2", "DEMO004712", false), at(3*time.Minute+42*time.Second), false)

	l, err := orders.LoadLinked(t.Context(), s, "conn-a", nil)
	require.NoError(t, err)
	require.Len(t, l.Uploads, 2)
	require.Equal(t, "answered by CONTRL: rejected (1 error)", l.UploadText(0))
	require.Equal(t, "answered by CONTRL: accepted", l.UploadText(1))
	require.Equal(t, "resent", StateOf(l.Index, 0, DefaultSLA, at(time.Hour)).Flag())
	require.Equal(t, "awaiting", StateOf(l.Index, 1, DefaultSLA, at(time.Hour)).Flag())

	c := &clock{t: at(time.Hour)}
	x := openIndex(t, dir, c, nil)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	od, err := x.Overdue(t.Context(), time.Time{}, "", nil)
	require.NoError(t, err)
	require.Empty(t, od, "--overdue is quiet once the resend is answered")
	res := mustFind(t, x, "po:PO-4712")
	require.Len(t, res.Conversations, 1)
	require.Equal(t, "awaiting", res.Conversations[0].State.Flag(), "the conversation follows its latest attempt")
	steps := x.Timeline(t.Context(), res.Conversations[0])
	var order []string
	for _, st := range steps {
		if st.Kind == "upload" || st.Kind == "answer" {
			order = append(order, st.At.Sub(t0).String()+" "+st.Kind)
		}
	}
	require.Equal(t, []string{"54s upload", "56s answer", "3m40s upload", "3m42s answer"}, order)
	require.Contains(t, steps[1].Lines[0], "key "+b+":PO-4712:orders:1")
	require.Contains(t, steps[1].Lines[0], "the upload sent last before it was created; 1 later upload with that interchange reference came after it")
	require.NotContains(t, steps[1].Title, "due in the mailbox", "acknowledged")
}
