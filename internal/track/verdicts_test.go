package track

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
)

// acceptedSHAs are the SHA-256 of conn's accepted uploads, newest first,
// each once: what the pre-flight's history asks about.
func acceptedSHAs(t *testing.T, s *spool.Store, conn string) []string {
	t.Helper()
	hist, err := s.Uploads(conn)
	require.NoError(t, err)
	var out []string
	seen := map[string]bool{}
	atts := spool.Attempts(hist)
	for i := len(atts) - 1; i >= 0; i-- {
		if h := strings.ToLower(atts[i].SHA256); atts[i].Outcome == spool.OutcomeAccepted && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// fakeFeatures is a payload's shape for the verdict tests: derived from
// its SHA-256, so a kept verdict's features can be told apart.
func fakeFeatures(sha string) ([]string, bool) {
	if sha[0] < '4' { // some payloads' bytes cannot be read
		return nil, false
	}
	return []string{"BGM", "NAD+" + sha[:6]}, true
}

// withFake is v with the features a fresh VerdictLoader adds.
func withFake(sha string, v orders.Verdict) orders.Verdict {
	if v.Counts() {
		v.Features, _ = fakeFeatures(sha)
	}
	return v
}

// The verdict cache of issue 23 §1: after every step of random histories
// (uploads, replays, resends with the same and a new control reference,
// answers early, late and for other buyers), and after deliveries are
// removed and replaced and the index is rebuilt, the verdicts the index
// answers (kept ones where nothing they depend on changed) equal the
// verdicts computed afresh from the index and from the store's files.
func TestPropertyKeptVerdictsEqualFreshOnes(t *testing.T) {
	if testBackend != nil {
		t.Skip("the verdict cache is the SQLite index's")
	}
	kept0, computed0 := verdictStats.kept, verdictStats.computed
	for seed := uint64(1); seed <= 25; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 41))
			var x *Index
			removed := 0
			check := func(w *propWorld, now time.Time) {
				if x == nil {
					x = openIndex(t, w.dir, &clock{t: now}, nil)
				}
				switch r.IntN(8) {
				case 0: // a stored delivery removed from the store: its item goes (track_gone)
					if removed < 3 {
						for _, conn := range []string{"conn-a", "conn-b"} {
							sts, err := w.store.List(conn)
							require.NoError(t, err)
							if len(sts) > 0 {
								st := sts[r.IntN(len(sts))]
								require.NoError(t, os.Remove(st.Path))
								require.NoError(t, os.Remove(strings.TrimSuffix(st.Path, ".edi")+".json"))
								removed++
								break
							}
						}
					}
				case 1: // a delivery acknowledged later: its sidecar changes, its item is replaced
					for _, conn := range []string{"conn-a", "conn-b"} {
						sts, err := w.store.List(conn)
						require.NoError(t, err)
						for _, st := range sts {
							if st.Meta.AcknowledgedAt == nil {
								_, err := w.store.MarkAcknowledged(conn, st.Meta.DeliveryAttemptID, "rc-late", now)
								require.NoError(t, err)
								break
							}
						}
					}
				case 2: // the index rebuilt
					_, err := x.Rebuild(t.Context(), "test")
					require.NoError(t, err)
				}
				if r.IntN(3) == 0 {
					return // asked after some steps only: kept verdicts must span several changes
				}
				_, err := x.Sync(t.Context())
				require.NoError(t, err)
				for _, conn := range []string{"conn-a", "conn-b"} {
					shas := acceptedSHAs(t, w.store, conn)
					if len(shas) == 0 {
						continue
					}
					sel := orders.Selection{SHAs: shas}
					got, err := x.Verdicts(t.Context(), w.store, conn, sel, fakeFeatures)
					require.NoError(t, err)
					fromIndex, err := x.LinkedFor(t.Context(), w.store, conn, &sel)
					require.NoError(t, err)
					fromStore, err := orders.LoadLinked(t.Context(), w.store, conn, nil)
					require.NoError(t, err)
					if sq, ok := x.raw.(*SQLite); ok { // the verdicts kept are those asked about, at most
						epoch, err := sq.Meta(t.Context(), metaEpoch)
						require.NoError(t, err)
						b, ok := readVerdictFile(x.verdictPath(conn), epoch)
						require.True(t, ok)
						_, rows, ok := decodeCache(b)
						require.True(t, ok)
						require.LessOrEqual(t, len(rows), len(shas))
					}
					for _, h := range shas {
						require.Equal(t, withFake(h, orders.VerdictsOf(fromIndex, shas)[h]), got[h], "%s %s: kept vs index", conn, h[:12])
						require.Equal(t, withFake(h, orders.VerdictsOf(fromStore, shas)[h]), got[h], "%s %s: kept vs store", conn, h[:12])
					}
				}
			}
			genWorldWith(t, seed, check)
		})
	}
	kept, computed := verdictStats.kept-kept0, verdictStats.computed-computed0
	t.Logf("verdicts kept %d, computed %d", kept, computed)
	require.Greater(t, kept, 200, "verdicts were kept: the cache was used")
	require.Positive(t, computed)
}

// A kept verdict is used only by the binary that computed it, only while
// the log of removals reaches back to it, and never after a Reset.
func TestKeptVerdictsAreDroppedWhenTheyCannotBeTrusted(t *testing.T) {
	if testBackend != nil {
		t.Skip("the verdict cache is the SQLite index's")
	}
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	a := uploaded(t, s, "conn-a", "ICR0001", "PO-4711", ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeAccepted)
	store(t, s, "conn-a", "d1", "CONTRL", contrl("CTL1", "ICR0001", true), t0.Add(2*time.Minute), true)
	x := openIndex(t, dir, &clock{t: t0.Add(time.Hour)}, nil)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	sel := orders.Selection{SHAs: []string{a.SHA256}}
	ask := func() (orders.Verdict, int) {
		t.Helper()
		c0 := verdictStats.computed
		vs, err := x.Verdicts(t.Context(), s, "conn-a", sel, func(string) ([]string, bool) { return []string{"BGM"}, true })
		require.NoError(t, err)
		return vs[strings.ToLower(a.SHA256)], verdictStats.computed - c0
	}
	v, n := ask()
	require.Equal(t, orders.Verdict{Rejected: true, Contrl: true, Features: []string{"BGM"}}, v)
	require.Equal(t, 1, n, "computed")
	_, n = ask()
	require.Zero(t, n, "kept")

	sq := x.raw.(*SQLite)
	path := x.verdictPath("conn-a")
	epoch, err := sq.Meta(t.Context(), metaEpoch)
	require.NoError(t, err)
	require.NotEmpty(t, epoch)
	cache := func() []byte {
		b, ok := readVerdictFile(path, epoch)
		require.True(t, ok)
		return b
	}
	setCache := func(b []byte) { x.keepVerdicts(t.Context(), sq, "conn-a", epoch, b) }
	// another binary's cache
	m, rows, ok := decodeCache(cache())
	require.True(t, ok)
	require.Len(t, rows, 1)
	m.Rule = "other-" + m.Rule
	setCache(encodeCache(m, rows))
	_, n = ask()
	require.Equal(t, 1, n, "another binary's verdicts are computed again")
	_, n = ask()
	require.Zero(t, n)
	// another index's cache (a new database, or one reset)
	x.keepVerdicts(t.Context(), sq, "conn-a", "another-epoch", cache())
	_, n = ask()
	require.Equal(t, 1, n, "another index's verdicts are computed again")
	_, n = ask()
	require.Zero(t, n)
	// removals the log no longer reaches back to
	_, err = sq.db.ExecContext(t.Context(), `INSERT INTO track_gone (conn, convs) VALUES ('conn-b', '[]'), ('conn-b', '[]'), ('conn-b', '[]')`)
	require.NoError(t, err)
	_, err = sq.db.ExecContext(t.Context(), `DELETE FROM track_gone WHERE seq < (SELECT MAX(seq) FROM track_gone)`)
	require.NoError(t, err)
	_, n = ask()
	require.Equal(t, 1, n, "the log was swept past the cache's mark")
	// a damaged file: bytes flipped, cuts (a half-written file, two
	// writers at once)
	file, err := os.ReadFile(path)
	require.NoError(t, err)
	for i := 0; i < len(file); i += max(1, len(file)/40) {
		for _, bad := range [][]byte{file[:i], append(append(bytes.Clone(file[:i]), file[i]^0x40), file[i+1:]...)} {
			require.NoError(t, os.WriteFile(path, bad, 0o600))
			_, n = ask()
			require.Equal(t, 1, n, "byte %d", i)
			_, n = ask()
			require.Zero(t, n)
		}
	}
	// a cache that cannot be written is computed again, nothing fails
	require.NoError(t, os.RemoveAll(filepath.Dir(path)))
	require.NoError(t, os.WriteFile(filepath.Dir(path), nil, 0o600)) // a file where the directory was
	_, n = ask()
	require.Equal(t, 1, n)
	_, n = ask()
	require.Equal(t, 1, n)
	require.NoError(t, os.Remove(filepath.Dir(path)))
	// a reset index keeps no cache
	_, err = x.Rebuild(t.Context(), "test")
	require.NoError(t, err)
	epoch2, err := sq.Meta(t.Context(), metaEpoch)
	require.NoError(t, err)
	require.NotEqual(t, epoch, epoch2, "a reset index is another: its old verdicts are not used")
	v, n = ask()
	require.Equal(t, 1, n)
	require.Equal(t, orders.Verdict{Rejected: true, Contrl: true, Features: []string{"BGM"}}, v)
	// the answer goes: the verdict changes with it
	require.NoError(t, os.Remove(filepath.Join(dir, spool.SafeName("conn-a"), "deliveries", "d1.edi")))
	require.NoError(t, os.Remove(filepath.Join(dir, spool.SafeName("conn-a"), "deliveries", "d1.json")))
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	v, n = ask()
	require.Equal(t, 1, n)
	require.Equal(t, orders.Verdict{}, v)
}

// A cache value reads back as it was written, whatever its strings
// hold, and a damaged one is refused, never misread.
func TestKeptVerdictsReadBack(t *testing.T) {
	for _, v := range []keptVerdict{
		{},
		{Verdict: orders.Verdict{Rejected: true}, Convs: []string{}},
		{Verdict: orders.Verdict{Contrl: true, Features: []string{}}, Convs: []string{"po:po-4711"}},
		{Verdict: orders.Verdict{Rejected: true, Contrl: true, Features: []string{"BGM", "NAD+BY"}}, Convs: []string{"icr:4012345000009:\x1f\x00", strings.Repeat("é", 300), ""}},
	} {
		for _, h := range []string{strings.Repeat("ab", 32), "not-hex", strings.Repeat("AB", 32)} {
			rows := map[string]keptVerdict{h: v}
			b := encodeCache(verdictMarks{Rule: "r"}, rows)
			_, got, ok := decodeCache(b)
			require.True(t, ok, "%+v", v)
			want := v
			if want.Convs == nil {
				want.Convs = []string{}
			}
			require.Equal(t, map[string]keptVerdict{h: want}, got)
			for i := range b { // every truncation is refused
				_, _, ok := decodeCache(b[:i])
				require.False(t, ok, "%+v cut at %d", v, i)
			}
			_, _, ok = decodeCache(append(b, 0))
			require.False(t, ok, "trailing bytes")
		}
	}
}

// A connection's cache value reads back as written.
func TestVerdictCacheReadsBack(t *testing.T) {
	m := verdictMarks{Rule: "go:abc/def", Item: 1 << 40, Gone: 7}
	rows := map[string]keptVerdict{
		"aa": {Verdict: orders.Verdict{Rejected: true, Features: []string{"BGM"}}, Convs: []string{"po:x", "icr:\x1f"}},
		"bb": {Convs: []string{}},
	}
	gm, grows, ok := decodeCache(encodeCache(m, rows))
	require.True(t, ok)
	require.Equal(t, m, gm)
	require.Equal(t, rows, grows)
	_, _, ok = decodeCache(nil)
	require.False(t, ok)
}
