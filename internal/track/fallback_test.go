package track

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestQueryWhenTrackDBIsADirectory: the files answer, said once.
func TestQueryWhenTrackDBIsADirectory(t *testing.T) {
	dir, _ := world(t)
	require.NoError(t, os.MkdirAll(DBPath(dir), 0o700))
	var said []string
	x, err := openQuery(t.Context(), Options{Dir: dir, Now: (&clock{t: t0}).now, Wait: time.Second, Say: func(m string) { said = append(said, m) }})
	require.NoError(t, err)
	defer x.Close()
	require.NotEmpty(t, x.Fallback())
	r := mustFind(t, x, "po:PO-4711")
	require.Len(t, r.Conversations, 1)
	require.Len(t, r.Conversations[0].Items, 3, "upload, CONTRL, ORDRSP from the files")
	require.Len(t, said, 1, "said once: %q", said)
	require.Contains(t, said[0], "cannot be used")
	require.Contains(t, said[0], "answering from the stored files")
}

// TestQueryWhenAnotherProcessHoldsTheIndex: a bounded wait, said before
// it, then the answer from the files (not 30 s of silence, then exit 5).
func TestQueryWhenAnotherProcessHoldsTheIndex(t *testing.T) {
	dir, s := world(t)
	x := openIndex(t, dir, &clock{t: t0}, nil)
	_, err := x.Sync(t.Context())
	require.NoError(t, err)
	require.NoError(t, x.Close())
	// another process: a write transaction held throughout
	other, err := sql.Open("sqlite", "file:"+DBPath(dir))
	require.NoError(t, err)
	defer other.Close()
	conn, err := other.Conn(t.Context())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(t.Context(), `BEGIN IMMEDIATE`)
	require.NoError(t, err)
	defer conn.ExecContext(t.Context(), `ROLLBACK`)
	// something new the sync must write
	store(t, s, "conn-b", "d-new", "ORDRSP", ordrsp("RSPN", "PO-4712"), t0.Add(5*time.Hour), false)
	var said []string
	y, err := openQuery(t.Context(), Options{Dir: dir, Now: (&clock{t: t0}).now, Wait: 50 * time.Millisecond, Say: func(m string) { said = append(said, m) }})
	require.NoError(t, err)
	defer y.Close()
	require.Len(t, said, 2, "%q", said)
	require.Contains(t, said[0], "waiting at most 50ms")
	require.Contains(t, said[1], "answering from the stored files")
	require.Contains(t, y.Fallback(), "another process")
	r := mustFind(t, y, "po:PO-4712")
	require.Len(t, r.Conversations, 1)
	var refs []string
	for _, it := range r.Conversations[0].Items {
		refs = append(refs, it.Ref)
	}
	require.Contains(t, strings.Join(refs, " "), "d-new", "the new delivery, from the files")
}

// TestQueryUsesTheIndexWhenItCan: no fallback, nothing said.
func TestQueryUsesTheIndexWhenItCan(t *testing.T) {
	dir, _ := world(t)
	var said []string
	x, err := openQuery(t.Context(), Options{Dir: dir, Now: (&clock{t: t0}).now, Wait: time.Second, Say: func(m string) { said = append(said, m) }})
	require.NoError(t, err)
	defer x.Close()
	require.Empty(t, x.Fallback())
	require.Len(t, said, 1, "the first build only: %q", said)
	require.Contains(t, said[0], "rebuilt")
	_, err = os.Stat(filepath.Join(dir, ".index", "track.db"))
	require.NoError(t, err)
}
