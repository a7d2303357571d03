package conntab

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/track"
)

// TestTheTabWritesTheSeenJournal: the tab's runner writes the seen
// journal the CLI's does, so the timeline (b2bx find --timeline, a
// bundle) shows the app's refusals and unused claims too: a download
// that failed its checks, and a claim dropped before its download.
func TestTheTabWritesTheSeenJournal(t *testing.T) {
	dir := t.TempDir()
	store, err := spool.Open(dir)
	require.NoError(t, err)
	m, be, _ := newTestWith(t, 5, 50, func(o *Options) { o.journal, o.journalConn = store, "conn-t" })
	be.fetchErr = map[string]error{"da-00000": errors.New("payload SHA-256 does not match")}

	m, _ = press(t, m, "P")
	m, _ = press(t, m, "x") // the refused entry's lease still runs: drop it
	m, _ = press(t, m, "y")
	m, _ = press(t, m, "down")
	m, _ = press(t, m, "c") // da-00001, the head now
	require.Equal(t, []string{"da-00000", "da-00001"}, be.claimed())
	m, _ = press(t, m, "x")
	m, _ = press(t, m, "y")
	require.False(t, m.run.Active())

	recs, err := store.Seen("conn-t")
	require.NoError(t, err)
	var got []string
	for _, r := range recs {
		got = append(got, r.DeliveryAttemptID+" "+string(r.State)+" "+r.Step)
	}
	require.Equal(t, []string{"da-00000 failed verify", "da-00001 claimed "}, got)

	x, err := track.Open(t.Context(), track.Options{Dir: dir})
	require.NoError(t, err)
	defer x.Close()
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	for id, kind := range map[string]string{"da-00000": "failed", "da-00001": "claimed"} {
		_, steps, ok, err := x.TimelineOf(t.Context(), "conn-t", id, nil)
		require.NoError(t, err)
		require.True(t, ok, id)
		var kinds []string
		for _, s := range steps {
			kinds = append(kinds, s.Kind)
		}
		require.Contains(t, strings.Join(kinds, " "), kind, id)
	}
}
