package track

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/who"
)

// useShare replaces sharedParses with a fresh one, on or off, for the
// test (the tests of this package do not run in parallel).
func useShare(t *testing.T, on bool) *parseShare {
	t.Helper()
	old := sharedParses
	s := newParseShare(shareKeep, shareBudget)
	s.on.Store(on)
	sharedParses = s
	t.Cleanup(func() { sharedParses = old })
	return s
}

// parsesSince counts the payload parses since the count was from.
func parsesSince(from int64) int64 { return factParses.Load() - from }

// longOrdrsp is one ORDRSP for PO-L1 of at least size bytes (lines).
func longOrdrsp(size int) []byte {
	b := fmt.Appendf(nil, "UNA:+.? 'UNB+UNOC:3+%s:14+%s:14+260312:1200+ICRLONG'UNH+R1+ORDRSP:D:96A:UN'BGM+231+RSP-L1+4'"+
		"DTM+137:20260312:102'RFF+ON:PO-L1'NAD+BY+%s::9'NAD+SU+%s::9'", supplier, buyer, buyer, supplier)
	segs := 6
	for n := 1; len(b) < size; n++ {
		b = fmt.Appendf(b, "LIN+%d+3+4000862141404:SRS'QTY+21:%d'", n, n%97+1)
		segs += 2
	}
	return fmt.Appendf(b, "UNS+S'UNT+%d+R1'UNZ+1+ICRLONG'", segs+2)
}

// wideOrdrsp is one ORDRSP interchange of n messages (more than
// wideConvs: indexed as a head and parts), each answering its own order
// PO-M<i>, of at least size bytes in all (free texts: few segments, so
// the race detector's runs stay short).
func wideOrdrsp(n, size int) []byte {
	text := strings.Repeat("SPARE PARTS AS AGREED ", 16)
	b := fmt.Appendf(nil, "UNA:+.? 'UNB+UNOC:3+%s:14+%s:14+250312:1030+ICRWIDE'", supplier, buyer)
	per := size/n + 1
	for i := 1; i <= n; i++ {
		start, segs := len(b), 4
		b = fmt.Appendf(b, "UNH+%d+ORDRSP:D:96A:UN'BGM+231+R%d+9'RFF+ON:PO-M%d'", i, i, i)
		for len(b)-start < per {
			b = fmt.Appendf(b, "FTX+AAI+++%s'", text)
			segs++
		}
		b = fmt.Appendf(b, "UNT+%d+%d'", segs, i)
	}
	return fmt.Appendf(b, "UNZ+%d+ICRWIDE'", n)
}

func sha(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func itemsHaveKey(items []Item, kind KeyKind, value string) bool {
	for _, it := range items {
		if slices.Contains(it.Keys, Key{Kind: kind, Value: value}) {
			return true
		}
	}
	return false
}

// The local index's parse of a big payload serves the team store's
// pushes of the same bytes (stored, then acknowledged): one parse, and
// items equal to what each side makes on its own.
func TestSharedParseServesTheTeamPush(t *testing.T) {
	bob := who.Who{User: "bob", Host: "host-2"}
	for name, tc := range map[string]struct {
		data []byte
		po   string
		n    int // items
	}{
		"one long message": {longOrdrsp(shareMin + 4096), "po-l1", 1},
		"wide interchange": {wideOrdrsp(200, shareMin), "po-m177", 201},
	} {
		t.Run(name, func(t *testing.T) {
			require.GreaterOrEqual(t, len(tc.data), shareMin)
			ctx := context.Background()
			sp, err := spool.Open(t.TempDir())
			require.NoError(t, err)
			st := store(t, sp, "conn-a", "d1", "ORDRSP", tc.data, t0, true)
			before := *st // as first pushed: before the acknowledge
			before.Meta.AcknowledgedAt, before.Meta.ReceiptID = nil, ""

			useShare(t, false)
			wantLocal := deliveryItems(ctx, *st)
			wantAcked := TeamDeliveryItems(ctx, *st, tc.data, bob)
			wantStored := TeamDeliveryItems(ctx, before, tc.data, bob)
			require.Len(t, wantLocal, tc.n)
			require.Empty(t, wantLocal[0].Note)
			require.True(t, itemsHaveKey(wantLocal, KeyPO, tc.po))
			require.Equal(t, "acknowledged", wantAcked[0].State)
			require.Equal(t, "stored", wantStored[0].State)

			useShare(t, true)
			from := factParses.Load()
			require.Equal(t, wantLocal, deliveryItems(ctx, *st))
			require.EqualValues(t, 1, parsesSince(from))
			require.Equal(t, wantStored, TeamDeliveryItems(ctx, before, tc.data, bob))
			require.Equal(t, wantAcked, TeamDeliveryItems(ctx, *st, tc.data, bob))
			require.Equal(t, wantLocal, deliveryItems(ctx, *st)) // the facts were not changed by their users
			require.EqualValues(t, 1, parsesSince(from), "one parse for the local index and both pushes")
		})
	}
}

// Bytes that are not the ones their sidecar names are parsed on their
// own: a damaged local copy never gives the team its facts, nor takes
// the facts of the verified bytes.
func TestSharedParseNeverSharesOtherBytes(t *testing.T) {
	ctx := context.Background()
	s := useShare(t, true)
	data := wideOrdrsp(1000, shareMin)
	sp, err := spool.Open(t.TempDir())
	require.NoError(t, err)
	st := store(t, sp, "conn-a", "d1", "ORDRSP", data, t0, true)
	damaged := bytes.Replace(data, []byte("RFF+ON:PO-M777'"), []byte("RFF+ON:PO-X777'"), 1)
	require.Len(t, damaged, len(data))
	require.NoError(t, os.WriteFile(st.Path, damaged, 0o600))

	from := factParses.Load()
	local := deliveryItems(ctx, *st)
	require.True(t, itemsHaveKey(local, KeyPO, "po-x777"))
	require.Empty(t, s.entries, "the damaged bytes' facts are nobody's")

	team := TeamDeliveryItems(ctx, *st, data, who.Who{User: "alice"})
	require.True(t, itemsHaveKey(team, KeyPO, "po-m777"))
	require.False(t, itemsHaveKey(team, KeyPO, "po-x777"))
	require.EqualValues(t, 2, parsesSince(from))
	require.Len(t, s.entries, 1)

	again := deliveryItems(ctx, *st)
	require.True(t, itemsHaveKey(again, KeyPO, "po-x777"), "the damaged copy is still indexed as it is")
	require.False(t, itemsHaveKey(again, KeyPO, "po-m777"))
	require.EqualValues(t, 3, parsesSince(from))
}

// Callers at once wait for one parse.
func TestSharedParseOnceAtOnce(t *testing.T) {
	s := useShare(t, true)
	data := longOrdrsp(shareMin)
	sum := sha(data)
	from := factParses.Load()
	got := make([]payloadFacts, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = s.facts(context.Background(), data, sum, i%2 == 0) })
	}
	wg.Wait()
	require.EqualValues(t, 1, parsesSince(from))
	require.NoError(t, got[0].err)
	require.Equal(t, "ORDRSP", got[0].firstType)
	for _, f := range got[1:] {
		require.Equal(t, got[0], f)
	}
}

// A parse that failed (here: its context ended) is not shared, and the
// next caller parses for itself.
func TestSharedParseFailureIsNotShared(t *testing.T) {
	s := useShare(t, true)
	data := longOrdrsp(shareMin)
	sum := sha(data)
	from := factParses.Load()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	require.Error(t, s.facts(ended, data, sum, true).err)
	require.Empty(t, s.entries)
	f := s.facts(context.Background(), data, sum, true)
	require.NoError(t, f.err)
	require.EqualValues(t, 2, parsesSince(from))
}

// At most keep parses are kept, the newest, holding at most budget
// bytes (the newest whatever it holds); small payloads and a process
// without a team store keep none.
func TestSharedParseKeepsTheNewest(t *testing.T) {
	ctx := context.Background()
	s := useShare(t, true)
	const keep = 3
	s.keep = keep
	from := factParses.Load()
	var all [][]byte
	for i := range keep + 2 {
		data := append(longOrdrsp(shareMin), fmt.Sprintf("UNA%d", i)...) // distinct bytes
		all = append(all, data)
		s.facts(ctx, data, sha(data), true)
	}
	require.Len(t, s.entries, keep)
	require.Len(t, s.order, keep)
	last := all[len(all)-1]
	s.facts(ctx, last, sha(last), true)
	require.EqualValues(t, keep+2, parsesSince(from), "the newest is kept")
	s.facts(ctx, all[0], sha(all[0]), true)
	require.EqualValues(t, keep+3, parsesSince(from), "the oldest was dropped")

	small := ordrsp("ICR1", "PO-1")
	require.NoError(t, s.facts(ctx, small, sha(small), true).err)
	require.NotContains(t, s.entries, shareKey{sha(small), len(small)}, "a small payload is parsed where it is needed, not kept")
	require.Len(t, s.entries, keep)

	off := useShare(t, false)
	off.facts(ctx, last, sha(last), true)
	off.facts(ctx, last, sha(last), true)
	require.Empty(t, off.entries)
	require.EqualValues(t, keep+5, parsesSince(from), "without a team store every parse is its own")
}

// TestSharedParseOffDropsWhatIsKept: turning sharing off releases the
// facts kept; on again, the same bytes are parsed anew. A parse still
// running is left for its waiters.
func TestSharedParseOffDropsWhatIsKept(t *testing.T) {
	ctx := context.Background()
	s := useShare(t, true)
	data := longOrdrsp(shareMin)
	from := factParses.Load()
	s.facts(ctx, data, sha(data), true)
	s.facts(ctx, data, sha(data), true)
	require.EqualValues(t, 1, parsesSince(from))
	require.Positive(t, s.held)

	running := shareKey{"running", 1}
	s.entries[running] = &shareEntry{done: make(chan struct{})}
	s.order = append(s.order, running)
	s.setOn(false)
	require.Equal(t, []shareKey{running}, s.order, "only the running parse stays")
	require.Len(t, s.entries, 1)
	require.Zero(t, s.held)

	s.setOn(true)
	s.facts(ctx, data, sha(data), true)
	require.EqualValues(t, 2, parsesSince(from), "parsed again after off")
}

// The facts kept hold at most the budget: a wide interchange's facts
// (many keys) push out older ones, and are kept themselves while newest.
func TestSharedParseKeepsToItsBudget(t *testing.T) {
	ctx := context.Background()
	s := useShare(t, true)
	long := longOrdrsp(shareMin)
	wide := wideOrdrsp(2000, 2*shareMin)
	f := s.facts(ctx, long, sha(long), true)
	s.budget = 2*f.cost() + 1024 // two long ones, not one wide
	long2 := append(longOrdrsp(shareMin), "UNA2"...)
	s.facts(ctx, long2, sha(long2), true)
	require.Len(t, s.entries, 2)
	require.Equal(t, 2*f.cost(), s.held)

	w := s.facts(ctx, wide, sha(wide), true)
	require.Greater(t, w.cost(), s.budget)
	require.Equal(t, []shareKey{{sha(wide), len(wide)}}, s.order, "the newest stays, however big; the others went")
	require.Equal(t, w.cost(), s.held)

	s.facts(ctx, long, sha(long), true)
	require.Equal(t, []shareKey{{sha(long), len(long)}}, s.order)
	require.Equal(t, f.cost(), s.held)
}

// A mapped payload that another program shortens while it is read: the
// SHA-256 check beside the parse faults as the parse does, guarded (a
// mismatch, not a crash), and nothing is shared.
func TestSharedParseOfAShortenedMapping(t *testing.T) {
	s := useShare(t, true)
	data := longOrdrsp(shareMin + 1<<16)
	path := filepath.Join(t.TempDir(), "p.edi")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	f, err := edi.OpenFileContext(t.Context(), path, maxRead)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, os.Truncate(path, 0))
	got := s.facts(t.Context(), f.Bytes(), sha(data), false)
	require.ErrorIs(t, got.err, edi.ErrFileChanged)
	require.Empty(t, s.entries)
}
