package teamstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/testshared/benchstat"
	"github.com/nutrab2b/b2bx/internal/track"
)

// benchDeliveries is how many deliveries the find benchmark's team store holds.
const benchDeliveries = 100_000

// fillDirect writes n acknowledged ORDRSP delivery items (each with its
// order number, ID and conversation keys) straight into the index tables:
// building them through n pushes would take the run's whole budget.
func fillDirect(b *testing.B, s *Store, n int) {
	b.Helper()
	at0 := t0.UnixMilli()
	stmts := []string{
		fmt.Sprintf(`INSERT INTO track_sources (id, path, conn, size, mtime) SELECT g, 'team:conn-a/deliveries/d' || g || '.json', 'conn-a', 0, 0 FROM generate_series(1, %d) g`, n),
		fmt.Sprintf(`INSERT INTO track_items (id, source, conn, kind, ref, type, at, state, status, note, detail, convs, part, who)
			SELECT g, g, 'conn-a', 'delivery', 'd' || g, 'ORDRSP', %d + g * 1000, 'acknowledged', 'ORDRSP: accepted', '', '', '["po:po-' || g || '"]', 0,
			'{"user":"alice","host":"host-3"}' FROM generate_series(1, %d) g`, at0, n),
		fmt.Sprintf(`INSERT INTO track_keys (value, at, item, kind)
			SELECT 'po-' || g, (%d + g * 1000) / 1000, g, 'po' FROM generate_series(1, %[2]d) g
			UNION ALL SELECT 'd' || g, (%[1]d + g * 1000) / 1000, g, 'id' FROM generate_series(1, %[2]d) g
			UNION ALL SELECT 'po:po-' || g, (%[1]d + g * 1000) / 1000, g, 'conv' FROM generate_series(1, %[2]d) g`, at0, n),
		`SELECT setval('track_sources_id_seq', (SELECT MAX(id) FROM track_sources))`,
		`SELECT setval('track_items_id_seq', (SELECT MAX(id) FROM track_items))`,
		`ANALYZE`,
	}
	for _, q := range stmts {
		_, err := s.db.ExecContext(b.Context(), q)
		require.NoError(b, err, q)
	}
}

// BenchmarkTeamFind is `find po:NUMBER` on a team store of 100,000
// deliveries: the whole query (key walk, items, conversation closure),
// over a loopback connection. p95-ms is the 95th percentile of the
// iterations.
func BenchmarkTeamFind(b *testing.B) {
	s, _ := newStore(b, alice)
	fillDirect(b, s, benchDeliveries)
	x, err := s.Index(b.Context())
	require.NoError(b, err)
	defer x.Close()
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		q, err := track.ParseQuery(fmt.Sprintf("po:PO-%d", 1+(i*7919)%benchDeliveries))
		require.NoError(b, err)
		start := time.Now()
		r, err := x.Find(b.Context(), q, nil)
		took = append(took, time.Since(start))
		require.NoError(b, err)
		require.Len(b, r.Conversations, 1)
	}
	b.StopTimer()
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
}

// BenchmarkPushDelivery pushes small deliveries (a CONTRL of ~150 bytes),
// each its own transaction with its index items (what the outbox does
// with a single entry waiting; BenchmarkPushBatched is a backlog).
func BenchmarkPushDelivery(b *testing.B) {
	s, _ := newStore(b, alice)
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		data := contrl(fmt.Sprintf("C%07d", i), "ICR0001", false)
		st := delivery("conn-a", fmt.Sprintf("d%07d", i), "CONTRL", data, t0, true)
		if err := s.PushDelivery(b.Context(), "conn-a", st, data, alice); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "deliveries/s")
}

// BenchmarkPushBatched pushes the same small deliveries as the outbox
// pushes a backlog: 64 to a transaction (Store.Batch), one durable
// commit each.
func BenchmarkPushBatched(b *testing.B) {
	s, _ := newStore(b, alice)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; {
		err := s.Batch(b.Context(), func(ctx context.Context) error {
			for n := 0; n < 64 && i < b.N; n, i = n+1, i+1 {
				data := contrl(fmt.Sprintf("C%07d", i), "ICR0001", false)
				st := delivery("conn-a", fmt.Sprintf("d%07d", i), "CONTRL", data, t0, true)
				if err := s.PushDelivery(ctx, "conn-a", st, data, alice); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "deliveries/s")
}

// BenchmarkPush16MiBVsLocalWrite is issue 22's "a 16 MiB payload ≤ 2×
// the local write", one of each in turn: the spool's durable write of a
// 16 MiB ORDRSP (temp file, fsync, rename, directory fsync, sidecar)
// against its push to the team store (record, the blob deduplicated by
// SHA-256, the index items of its messages: one commit). local-ms and
// push-ms are medians, ratio their quotient.
func BenchmarkPush16MiBVsLocalWrite(b *testing.B) {
	s, _ := newStore(b, alice)
	sp, err := spool.Open(b.TempDir())
	require.NoError(b, err)
	var local, push []float64
	for i := 0; b.Loop(); i++ {
		data := bigOrdrsp(i, payload16MiB)
		start := time.Now()
		st := spoolWrite(b, sp, i, data)
		local = append(local, float64(time.Since(start))/1e6)
		start = time.Now()
		require.NoError(b, s.PushDelivery(b.Context(), "conn-a", *st, data, alice))
		push = append(push, float64(time.Since(start))/1e6)
	}
	l, p := benchstat.Median(local), benchstat.Median(push)
	b.ReportMetric(l, "local-ms")
	b.ReportMetric(p, "push-ms")
	b.ReportMetric(p/l, "ratio")
}

// BenchmarkPush16MiBVsLocalStore is the same comparison with this
// machine's whole store of a delivery on the local side, as after every
// download: the spool's durable write, then the delivery's items in the
// local tracking index (IndexStored, which parses the payload). The push
// after it takes that parse's facts of the same bytes instead of parsing
// again (track.SharePayloadParses). local-ms is both local writes,
// spool-ms the spool's alone; ratio is push/local, ratio-spool
// push/spool (what BenchmarkPush16MiBVsLocalWrite's ratio compares).
func BenchmarkPush16MiBVsLocalStore(b *testing.B) {
	s, _ := newStore(b, alice)
	dir := b.TempDir()
	sp, err := spool.Open(dir)
	require.NoError(b, err)
	x, err := track.Open(b.Context(), track.Options{Dir: dir})
	require.NoError(b, err)
	defer x.Close()
	_, err = x.Sync(b.Context()) // built: IndexStored indexes (it leaves a pending rebuild to the next Sync)
	require.NoError(b, err)
	require.Empty(b, x.NeedsRebuild())
	var spooled, local, push []float64
	last := 0
	for i := 0; b.Loop(); i++ {
		data := bigOrdrsp(i, payload16MiB)
		start := time.Now()
		st := spoolWrite(b, sp, i, data)
		spooled = append(spooled, float64(time.Since(start))/1e6)
		require.NoError(b, x.IndexStored(b.Context(), dir, *st))
		local = append(local, float64(time.Since(start))/1e6)
		start = time.Now()
		require.NoError(b, s.PushDelivery(b.Context(), "conn-a", *st, data, alice))
		push = append(push, float64(time.Since(start))/1e6)
		last = i
	}
	b.StopTimer()
	// both indexes hold the last delivery under its order number (parsed:
	// not an item from its sidecar only)
	po := track.Query{Value: fmt.Sprintf("po-%d", last), Kinds: []track.KeyKind{track.KeyPO}}
	team, err := s.Index(b.Context())
	require.NoError(b, err)
	for n, ix := range []*track.Index{x, team} {
		res, err := ix.Find(b.Context(), po, nil)
		require.NoError(b, err)
		require.Len(b, res.Conversations, 1, "index %d", n)
	}
	sp50, l, p := benchstat.Median(spooled), benchstat.Median(local), benchstat.Median(push)
	b.ReportMetric(sp50, "spool-ms")
	b.ReportMetric(l, "local-ms")
	b.ReportMetric(p, "push-ms")
	b.ReportMetric(p/l, "ratio")
	b.ReportMetric(p/sp50, "ratio-spool")
}

// spoolWrite stores data durably as delivery i of conn-a, as a download
// does (temp file, fsync, rename, directory fsync, sidecar).
func spoolWrite(b *testing.B, sp *spool.Store, i int, data []byte) *spool.Stored {
	id := fmt.Sprintf("d%07d", i)
	w, err := sp.Begin("conn-a", id)
	require.NoError(b, err)
	_, err = w.Write(data)
	require.NoError(b, err)
	st, err := w.Commit(spool.Meta{ConnectionID: "conn-a", DeliveryAttemptID: id, MessageType: "ORDRSP", CreatedAt: t0,
		Size: int64(len(data)), SHA256: shaHex(data)})
	require.NoError(b, err)
	return st
}

// payload16MiB is the size of the 16 MiB benchmarks' payloads: just
// under the Partner API's limit of 16 MiB (orders.MaxSize), which is the
// most the local index reads.
const payload16MiB = 16<<20 - 1024

// bigOrdrsp is an ORDRSP interchange of at least size bytes: one
// message of many lines, its own control reference from i. The lines
// vary as a real one's do (articles of a catalog of 5,000 with their
// numbers, descriptions and prices; quantities, dates and a free text
// from a vocabulary on every line), so the payload compresses about as
// much as the corpus's real ORDRSP does (7×), not the 45× of numbered
// identical lines.
func bigOrdrsp(i, size int) []byte {
	b := fmt.Appendf(nil, "UNA:+.? 'UNB+UNOC:3+%s:14+%s:14+260312:1200+B%07d'UNH+1+ORDRSP:D:96A:UN'BGM+231+RSP-%d+4'"+
		"DTM+137:20260312:102'RFF+ON:PO-%d'NAD+BY+%s::9'NAD+SU+%s::9'", supplier, buyer, i, i, i, buyer, supplier)
	words := []string{"STEEL", "BOLT", "M8", "M10", "ZINC", "PLATED", "HEX", "NUT", "WASHER", "DIN", "125", "933", "A2", "A4",
		"PACK", "OF", "100", "50", "GREY", "BLACK", "PVC", "HOSE", "CLAMP", "BRASS", "FITTING", "ELBOW", "90", "DEG", "TEE"}
	rng := rand.New(rand.NewPCG(uint64(i), 22))
	text := func(n int) string {
		var w []string
		for range n {
			w = append(w, words[rng.IntN(len(words))])
		}
		return strings.Join(w, " ")
	}
	catalog := make([]string, 5000)
	for a := range catalog {
		catalog[a] = fmt.Sprintf("%013d:SRV'PIA+1+%07d:SA'IMD+F++:::%s'", 4000000000000+rng.Int64N(1e9), rng.IntN(1e7), text(3+rng.IntN(4)))
	}
	segs := 6
	for n := 1; len(b) < size; n++ {
		b = fmt.Appendf(b, "LIN+%d+%d+%sQTY+21:%d:PCE'DTM+2:202604%02d:102'PRI+AAA:%d.%02d:CT'", n, 3+rng.IntN(3),
			catalog[rng.IntN(len(catalog))], 1+rng.IntN(500), 1+rng.IntN(28), rng.IntN(900), rng.IntN(100))
		segs += 6
		if rng.IntN(4) == 0 {
			b = fmt.Appendf(b, "FTX+AAI+++%s'", text(2+rng.IntN(6)))
			segs++
		}
	}
	return fmt.Appendf(b, "UNS+S'UNT+%d+1'UNZ+1+B%07d'", segs+2, i)
}
