package track

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// manyOrdrsp is one ORDRSP interchange of n messages, each answering its
// own order PO-M<i> (f02_find_many_messages.py's delivery).
func manyOrdrsp(n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "UNA:+.? 'UNB+UNOC:3+%s:14+%s:14+250312:1030+ICRMANY'", supplier, buyer)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "UNH+%d+ORDRSP:D:96A:UN'BGM+231+R%d+9'RFF+ON:PO-M%d'UNT+4+%d'", i, i, i, i)
	}
	fmt.Fprintf(&b, "UNZ+%d+ICRMANY'", n)
	return []byte(b.String())
}

// wideMessages is the size of the wide interchange of the tests: the
// goal's 100,000, fewer with -short (the race detector).
func wideMessages() int {
	if testing.Short() {
		return 5000
	}
	return 100_000
}

// statsOf is the query counts of x's database.
func statsOf(x *Index) QueryStats { return x.raw.(interface{ Stats() QueryStats }).Stats() }

func (a QueryStats) minus(b QueryStats) QueryStats {
	return QueryStats{KeyQueries: a.KeyQueries - b.KeyQueries, ItemQueries: a.ItemQueries - b.ItemQueries, ItemsRead: a.ItemsRead - b.ItemsRead}
}

// TestWideInterchangeQueriesReadTheirAnswer: one stored interchange of
// 100,000 messages, each with its own order: find, timeline, bundle's
// timeline, overdue and the start screen's figures read what they answer
// (a few items), not the interchange once per order (finding H1).
func TestWideInterchangeQueriesReadTheirAnswer(t *testing.T) {
	n := wideMessages()
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	uploaded(t, s, "conn-a", "ICR0005", "PO-M5", ordersIC("ICR0005", "PO-M5"), t0, spool.OutcomeAccepted)
	store(t, s, "conn-a", "da-many", "ORDRSP", manyOrdrsp(n), t0.Add(time.Hour), true)
	c := &clock{t: t0.Add(48 * time.Hour)}
	x := openIndex(t, dir, c, nil)
	start := time.Now()
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	t.Logf("sync %s", time.Since(start))
	start = time.Now()
	defer func() { t.Logf("queries %s", time.Since(start)) }()

	for _, q := range []string{"PO-M5", "po:PO-M5", fmt.Sprintf("po:PO-M%d", n)} {
		before := statsOf(x)
		r := mustFind(t, x, q)
		work := statsOf(x).minus(before)
		require.Len(t, r.Conversations, 1, q)
		conv := r.Conversations[0]
		require.Equal(t, "order "+strings.ToUpper(strings.TrimPrefix(q, "po:")), conv.Label, q)
		var parts int
		for _, it := range conv.Items {
			if it.Kind == KindDelivery {
				parts++
				require.Positive(t, it.Part, "the order's part of the delivery, not the whole delivery")
				require.Len(t, it.Answers(), 1, "the part holds its order's answer only")
				require.Equal(t, []string{strings.ToUpper(strings.TrimPrefix(q, "po:"))}, it.Answers()[0].Refs, "the part's keys are its own")
			}
		}
		require.Equal(t, 1, parts, q)
		require.LessOrEqual(t, work.ItemsRead, 4, "%s: items decoded", q)
		require.LessOrEqual(t, work.KeyQueries+work.ItemQueries, 12, "%s: statements run", q)
	}

	// the uploaded order: its part answers it; the timeline has its steps only
	r := mustFind(t, x, "po:PO-M5")
	st := r.Conversations[0].State
	require.Equal(t, []string{"PO-M5"}, st.Orders)
	require.Len(t, st.Answers, 1, "the ORDRSP message of PO-M5 answers the upload")
	steps := x.Timeline(t.Context(), r.Conversations[0])
	require.Less(t, len(steps), 10)

	// the interchange as a whole: its head, not 100,000 orders in one conversation
	for _, q := range []string{"id:da-many", "icr:ICRMANY"} {
		before := statsOf(x)
		r := mustFind(t, x, q)
		work := statsOf(x).minus(before)
		require.Len(t, r.Conversations, 1, q)
		require.Equal(t, "delivery da-many", r.Conversations[0].Label, q)
		require.Len(t, r.Conversations[0].Items, 1, q)
		require.Contains(t, r.Conversations[0].Items[0].Status, fmt.Sprintf("%d messages for %d conversations", n, n))
		require.LessOrEqual(t, work.ItemsRead, 4, "%s: items decoded", q)
	}

	r = mustFind(t, x, "gln:"+supplier)
	require.Len(t, r.Conversations, 2, "the delivery's head and the upload (it names the supplier)")

	// a type: query of every part reads at most DefaultLimit items and
	// shows MaxConversations
	before := statsOf(x)
	r = mustFind(t, x, "type:ORDRSP")
	work := statsOf(x).minus(before)
	require.True(t, r.Truncated)
	require.Len(t, r.Conversations, min(n+1, MaxConversations))
	require.LessOrEqual(t, work.ItemsRead, 2*DefaultLimit+10)

	// the bundle's timeline of the delivery
	_, steps, ok, err := x.TimelineOf(t.Context(), "conn-a", "da-many", nil)
	require.NoError(t, err)
	require.True(t, ok)
	require.Less(t, len(steps), 10)

	// overdue and the start screen's figures
	before = statsOf(x)
	over, err := x.Overdue(t.Context(), time.Time{}, "", nil)
	require.NoError(t, err)
	require.Len(t, over, 1, "no CONTRL for PO-M5's upload")
	f, err := x.ConnFigures(t.Context(), "conn-a", DefaultSLA)
	require.NoError(t, err)
	require.Equal(t, 1, f.Overdue)
	work = statsOf(x).minus(before)
	require.LessOrEqual(t, work.ItemsRead, 12, "overdue and figures: items decoded")
}

// TestWideUploadBridgesNothing: an upload of more orders than wideConvs
// joins the conversation asked for, not every order it carries.
func TestWideUploadBridgesNothing(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	rec := uploaded(t, s, "conn-a", "ICRBULK", "PO-B0", ordersIC("ICRBULK", "PO-B0"), t0, spool.OutcomeAccepted)
	_ = rec
	// a second history line: the same upload naming many orders
	var docs []string
	for i := range 3 * wideConvs {
		docs = append(docs, fmt.Sprintf("PO-B%d", i))
	}
	big := spool.UploadRecord{Time: t0.Add(time.Minute), ConnectionID: "conn-a", Key: "bulk:1", SenderID: buyer, RecipientID: supplier,
		ControlRef: "ICRBULK2", DocNumbers: docs, N: len(docs), Outcome: spool.OutcomeAccepted, HTTPStatus: 202, UploadID: "up-bulk"}
	require.NoError(t, s.AppendUpload(big))
	store(t, s, "conn-a", "d-r7", "ORDRSP", ordrsp("RSP7", "PO-B7"), t0.Add(time.Hour), true)
	x := openIndex(t, dir, &clock{t: t0}, nil)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	r := mustFind(t, x, "po:PO-B7")
	require.Len(t, r.Conversations, 1)
	for _, it := range r.Conversations[0].Items {
		require.LessOrEqual(t, countConv(it.Keys), 3, "%s %s keeps the conversations asked for", it.Kind, it.Ref)
	}
	require.Len(t, r.Conversations[0].Items, 2, "the bulk upload and PO-B7's ORDRSP; not PO-B0's upload")
}

// BenchmarkWideSync indexes one stored interchange of 100,000 ORDRSP
// messages, each for its own order (B2BX_BENCH_MESSAGES).
func BenchmarkWideSync(b *testing.B) {
	n := envInt("B2BX_BENCH_MESSAGES", 100_000)
	dir := b.TempDir()
	s, err := spool.Open(dir)
	require.NoError(b, err)
	store(b, s, "conn-a", "da-many", "ORDRSP", manyOrdrsp(n), t0, true)
	b.ResetTimer()
	for range b.N {
		x, err := Open(b.Context(), Options{Dir: dir})
		require.NoError(b, err)
		_, err = x.Rebuild(b.Context(), "bench")
		require.NoError(b, err)
		x.Close()
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/sync")
}

// BenchmarkWideFind finds one order of a stored interchange of 100,000
// messages (each its own order), the whole interchange (icr:) and every
// part (type:).
func BenchmarkWideFind(b *testing.B) {
	n := envInt("B2BX_BENCH_MESSAGES", 100_000)
	dir := b.TempDir()
	s, err := spool.Open(dir)
	require.NoError(b, err)
	store(b, s, "conn-a", "da-many", "ORDRSP", manyOrdrsp(n), t0, true)
	x, err := Open(b.Context(), Options{Dir: dir})
	require.NoError(b, err)
	defer x.Close()
	_, err = x.Sync(b.Context())
	require.NoError(b, err)
	for _, kind := range []string{"po", "icr", "type"} {
		b.Run(kind, func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				text := map[string]string{"po": fmt.Sprintf("po:PO-M%d", 1+i*7919%n), "icr": "icr:ICRMANY", "type": "type:ORDRSP"}[kind]
				q, err := ParseQuery(text)
				require.NoError(b, err)
				r, err := x.Find(b.Context(), q, nil)
				require.NoError(b, err)
				if len(r.Conversations) == 0 {
					b.Fatalf("%s found nothing", text)
				}
			}
		})
	}
}
