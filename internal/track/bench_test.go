package track

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

// benchDeliveries is the store size of the speed and size goals.
var benchDeliveries = envInt("B2BX_BENCH_DELIVERIES", 100_000)

func envInt(k string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil && v > 0 {
		return v
	}
	return def
}

// writeStore writes n stored deliveries over two connections as the
// spool lays them out (payload + sidecar; no fsync, it is a fixture): per
// order one upload, its CONTRL and its ORDRSP, every tenth CONTRL a
// rejection.
func writeStore(tb testing.TB, dir string, n int) {
	tb.Helper()
	at := t0
	for c, conn := range []string{"conn-a", "conn-b"} {
		ddir := filepath.Join(dir, spool.SafeName(conn), "deliveries")
		require.NoError(tb, os.MkdirAll(ddir, 0o700))
		var hist []byte
		for i := c; i < n; i += 2 {
			order := i / 2
			doc := fmt.Sprintf("PO-%07d", order)
			ref := fmt.Sprintf("ICR%07d", order)
			var data []byte
			typ := "CONTRL"
			if i%4 < 2 {
				data = contrl(fmt.Sprintf("C%07d", i), ref, order%10 == 0)
				if c == 0 {
					line, _ := json.Marshal(spool.UploadRecord{Time: at, ConnectionID: conn, File: "/orders/" + doc + ".edi", Size: 300,
						SHA256: fmt.Sprintf("%064x", order), Key: buyer + ":" + doc + ":orders:1", SenderID: buyer, BusinessID: doc,
						RecipientID: supplier, ControlRef: ref, DocNumbers: []string{doc}, N: 1, Outcome: spool.OutcomeAccepted,
						HTTPStatus: 202, UploadID: "up-" + doc, InterchangeID: "ic-" + doc, Status: "accepted"})
					hist = append(append(hist, line...), '\n')
				}
			} else {
				typ = "ORDRSP"
				data = ordrsp(fmt.Sprintf("R%07d", i), fmt.Sprintf("PO-%07d", order-1))
			}
			orderstest.WriteAcked(tb, ddir, conn, fmt.Sprintf("d-%s-%07d", conn, i), typ, data, at)
			at = at.Add(time.Second)
		}
		if len(hist) > 0 {
			require.NoError(tb, os.WriteFile(filepath.Join(dir, spool.SafeName(conn), "uploads.jsonl"), hist, 0o600))
		}
	}
}

// ageFiles dates the connection directories an hour back: a directory
// changed in the last two seconds is always walked (see dirSignature).
func ageFiles(tb testing.TB, dir string) {
	tb.Helper()
	old := time.Now().Add(-time.Hour)
	for _, conn := range []string{"conn-a", "conn-b"} {
		for _, p := range []string{"deliveries", "uploads.jsonl"} {
			_ = os.Chtimes(filepath.Join(dir, conn, p), old, old)
		}
	}
}

// dbBytes is the database's size on disk after a checkpoint.
func dbBytes(tb testing.TB, x *Index) int64 {
	tb.Helper()
	s := x.raw.(*SQLite)
	_, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	require.NoError(tb, err)
	var total int64
	for _, ext := range []string{"", "-wal"} {
		if fi, err := os.Stat(x.path + ext); err == nil {
			total += fi.Size()
		}
	}
	return total
}

// BenchmarkBuild builds the index of benchDeliveries stored deliveries
// from scratch (a rebuild) and reports the time per delivery and the
// index size per delivery.
func BenchmarkBuild(b *testing.B) {
	dir := b.TempDir()
	writeStore(b, dir, benchDeliveries)
	b.ResetTimer()
	var size int64
	for range b.N {
		b.StopTimer()
		for _, ext := range []string{"", "-wal", "-shm"} {
			_ = os.Remove(DBPath(dir) + ext)
		}
		x, err := Open(b.Context(), Options{Dir: dir})
		require.NoError(b, err)
		b.StartTimer()
		st, err := x.Sync(b.Context())
		require.NoError(b, err)
		require.True(b, st.Rebuilt)
		b.StopTimer()
		size = dbBytes(b, x)
		x.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N), "s/build")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(benchDeliveries), "µs/delivery")
	b.ReportMetric(float64(size)/float64(benchDeliveries), "index-B/delivery")
}

// openBuilt is an index over a built store of benchDeliveries deliveries,
// shared by the benchmarks below (built once per process).
var built struct {
	dir string
	x   *Index
}

func openBuilt(b *testing.B) *Index {
	b.Helper()
	if built.x != nil {
		return built.x
	}
	dir, err := os.MkdirTemp("", "b2bx-track-bench-")
	require.NoError(b, err)
	writeStore(b, dir, benchDeliveries)
	ageFiles(b, dir)
	x, err := Open(b.Context(), Options{Dir: dir})
	require.NoError(b, err)
	_, err = x.Sync(b.Context())
	require.NoError(b, err)
	built.dir, built.x = dir, x
	return x
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.x != nil {
		built.x.Close()
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// BenchmarkIncremental indexes one newly stored delivery in a store of
// benchDeliveries (the hook after each download: IndexStored).
func BenchmarkIncremental(b *testing.B) {
	x := openBuilt(b)
	s, err := spool.Open(built.dir)
	require.NoError(b, err)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		id := fmt.Sprintf("inc-%d-%d", time.Now().UnixNano(), i)
		st := store(b, s, "conn-a", id, "CONTRL", contrl("CI", "ICR0000001", false), t0, true)
		b.StartTimer()
		require.NoError(b, x.IndexStored(b.Context(), built.dir, *st))
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/delivery")
}

// BenchmarkSyncUnchanged is the check b2bx find makes before each query
// when nothing changed, and BenchmarkSyncAfterChange the walk after one
// new file in a connection of benchDeliveries/2.
func BenchmarkSyncUnchanged(b *testing.B) {
	x := openBuilt(b)
	ageFiles(b, built.dir)
	_, err := x.Sync(b.Context())
	require.NoError(b, err)
	b.ResetTimer()
	for range b.N {
		st, err := x.Sync(b.Context())
		require.NoError(b, err)
		if st.Read != 0 {
			b.Fatalf("read %d files", st.Read)
		}
	}
}

func BenchmarkSyncAfterChange(b *testing.B) {
	x := openBuilt(b)
	s, err := spool.Open(built.dir)
	require.NoError(b, err)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		store(b, s, "conn-b", fmt.Sprintf("chg-%d-%d", time.Now().UnixNano(), i), "CONTRL", contrl("CI", "ICR0000001", false), t0, true)
		b.StartTimer()
		_, err := x.SyncConn(b.Context(), built.dir, "conn-b")
		require.NoError(b, err)
	}
}

// BenchmarkFind runs queries of every kind against the built index and
// reports the 95th percentile.
func BenchmarkFind(b *testing.B) {
	x := openBuilt(b)
	orders := benchDeliveries / 2
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, kind := range []string{"po", "icr", "id", "bare", "gln"} {
		b.Run(kind, func(b *testing.B) {
			var lat []time.Duration
			for range b.N {
				n := rnd.IntN(orders - 1)
				var text string
				switch kind {
				case "po":
					text = fmt.Sprintf("po:PO-%07d", n/2*2) // the even orders were uploaded
				case "icr":
					text = fmt.Sprintf("icr:ICR%07d", n/2*2) // the even orders have CONTRLs
				case "id":
					text = fmt.Sprintf("id:d-conn-a-%07d", 2*n)
				case "bare":
					text = fmt.Sprintf("PO-%07d", n/2*2)
				case "gln":
					text = "gln:" + buyer // every item: the newest 200 conversations
				}
				q, err := ParseQuery(text)
				require.NoError(b, err)
				start := time.Now()
				r, err := x.Find(b.Context(), q, nil)
				lat = append(lat, time.Since(start))
				require.NoError(b, err)
				if len(r.Conversations) == 0 {
					b.Fatalf("%s found nothing", text)
				}
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}

// TestWriteBenchStore writes the benchmarks' store of benchDeliveries
// into $B2BX_BENCH_STORE (a data directory) for measuring the built
// binary against sqlite3 and grep (BENCHMARKS.md); skipped without it.
func TestWriteBenchStore(t *testing.T) {
	dir := os.Getenv("B2BX_BENCH_STORE")
	if dir == "" {
		t.Skip("B2BX_BENCH_STORE not set")
	}
	writeStore(t, dir, benchDeliveries)
	ageFiles(t, dir)
}

// BenchmarkLinkInput is what `b2bx upload` (the resend guard), `b2bx
// uploads` and opening a tab read before anything else: the link input of
// one connection, from the store's files (every stored answer parsed:
// orders.LoadLinked, the fallback) and from the tracking index (Linked).
// The store is writeStore's: every delivery answers an upload, the worst
// case for the index (it reads what the uploads' conversations hold).
// B2BX_BENCH_LINK_DELIVERIES sets its size (default 10,000).
func BenchmarkLinkInput(b *testing.B) {
	n := envInt("B2BX_BENCH_LINK_DELIVERIES", 10_000)
	dir := b.TempDir()
	writeStore(b, dir, n)
	s, err := spool.Open(dir)
	require.NoError(b, err)
	x, err := Open(b.Context(), Options{Dir: dir, Now: func() time.Time { return t0 }})
	require.NoError(b, err)
	defer x.Close()
	_, err = x.Sync(b.Context())
	require.NoError(b, err)
	empty := b.TempDir()
	es, err := spool.Open(empty)
	require.NoError(b, err)
	ex, err := Open(b.Context(), Options{Dir: empty})
	require.NoError(b, err)
	defer ex.Close()
	b.Run(fmt.Sprintf("store/%d", n), func(b *testing.B) {
		for b.Loop() {
			if _, err := orders.LoadLinked(b.Context(), s, "conn-a", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("index/%d", n), func(b *testing.B) {
		for b.Loop() {
			if _, err := x.Linked(b.Context(), s, "conn-a"); err != nil {
				b.Fatal(err)
			}
		}
	})
	hist, err := s.Uploads("conn-a")
	require.NoError(b, err)
	one := hist[len(hist)-1]
	b.Run(fmt.Sprintf("index-one-upload/%d", n), func(b *testing.B) { // b2bx upload's guard
		for b.Loop() {
			if _, err := x.LinkedFor(b.Context(), s, "conn-a", &orders.Selection{SHAs: []string{one.SHA256}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("index/empty", func(b *testing.B) {
		for b.Loop() {
			if _, err := ex.Linked(b.Context(), es, "conn-a"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
