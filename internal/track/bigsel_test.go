package track

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
)

// TestLinkedForLargeSelectionReadsWhatItNames: the pre-flight's history
// selects the newest 200 accepted payloads by SHA-256 (more than are
// looked up one by one). The index reads the upload items those values
// name through the key index, not every upload item since the
// selection's time (issue 23 §1: an upload's cost must not grow with the
// uploads a connection has), and the link input is the same.
func TestLinkedForLargeSelectionReadsWhatItNames(t *testing.T) {
	if testBackend != nil {
		t.Skip("counts the SQLite index's reads")
	}
	const n, picked = 400, matchKeysMax + 8
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	var recs []spool.UploadRecord
	for i := range n {
		ref, doc := fmt.Sprintf("ICRB%04d", i), fmt.Sprintf("PO-B%04d", i)
		recs = append(recs, uploaded(t, s, "conn-a", ref, doc, ordersIC(ref, doc), t0.Add(time.Duration(i)*time.Second), spool.OutcomeAccepted))
	}
	x := openIndex(t, dir, &clock{t: t0.Add(48 * time.Hour)}, nil)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	sel := orders.Selection{Since: t0.Add(-24 * time.Hour)}
	want := map[string]bool{}
	for _, r := range recs[n-picked:] {
		sel.SHAs = append(sel.SHAs, r.SHA256)
		want[r.Key] = true
	}
	before := statsOf(x)
	l, err := x.LinkedFor(t.Context(), s, "conn-a", &sel)
	require.NoError(t, err)
	work := statsOf(x).minus(before)
	var got []string
	for _, u := range l.Uploads {
		got = append(got, u.Key)
		require.True(t, want[u.Key], "upload %s is not selected", u.Key)
	}
	require.Len(t, slices.Compact(slices.Sorted(slices.Values(got))), picked, "every selected upload is in the link input")
	// each selected upload item, read by its SHA-256 and once more with
	// its conversation: not the other uploads
	require.LessOrEqual(t, work.ItemsRead, 2*picked+4, "items decoded for %d selected of %d uploads", picked, n)
}
