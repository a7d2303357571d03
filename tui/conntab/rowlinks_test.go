package conntab

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
)

// TestTabReadsItsRowsLinks: with the app's loaders (the tracking index),
// opening a tab reads the link input of its mailbox rows only, never the
// whole connection's (issue 23 §1: opening a tab must not cost what the
// store holds); a delivery downloaded in the tab is linked through the
// same rows' read; H reads every upload.
func TestTabReadsItsRowsLinks(t *testing.T) {
	e := newAnswerEnv(t)
	key := e.upload(t, "orders_d96a.edi", 2)
	root := e.conn.Spool.Root()
	vars := map[string]string{spool.EnvDataDir: root, credentials.EnvConfig: filepath.Join(t.TempDir(), "none.toml")}
	env := session.Env{Getenv: func(k string) string { return vars[k] }}
	x, err := track.Open(t.Context(), track.Options{Dir: root})
	require.NoError(t, err)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	require.NoError(t, x.Close())
	t.Cleanup(track.WaitIdle)

	var mu sync.Mutex
	var asked [][]string
	wholes := 0
	rows, whole := track.DeliveriesLoader(env), track.Loader(env)
	opts := Options{
		LinksOf: func(ctx context.Context, s *spool.Store, conn string, ids []string) (*up.Linked, error) {
			mu.Lock()
			asked = append(asked, slices.Sorted(slices.Values(ids)))
			mu.Unlock()
			return rows(ctx, s, conn, ids)
		},
		Links: func(ctx context.Context, s *spool.Store, conn string) (*up.Linked, error) {
			mu.Lock()
			wholes++
			mu.Unlock()
			return whole(ctx, s, conn)
		},
	}
	c := &common.Common{Width: 120, Height: 40, Styles: common.NewStyles(true), Now: time.Now}
	m := New(c, testTab, e.conn, opts)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m, notes := settle(t, m, m.Init())
	require.Empty(t, infoText(notes))
	var ids []string
	for _, r := range m.table.Rows() {
		ids = append(ids, r.ID())
	}
	require.Len(t, ids, 2)
	require.Equal(t, [][]string{slices.Sorted(slices.Values(ids))}, asked, "the first page's rows, once")
	require.Zero(t, wholes, "not the whole connection")
	require.Contains(t, flat(m.View()), "not downloaded yet: linked to its upload once downloaded (d)")

	m, n := pressAll(t, m, "c", "d")
	require.Empty(t, n)
	require.Equal(t, worker.PhaseFetched, m.run.Phase())
	require.Contains(t, flat(m.View()), "answers upload of PO-4711 (key "+key+")", "linked through the rows' read")
	require.Len(t, asked, 2)
	require.Zero(t, wholes)

	m, _ = pressAll(t, m, "H")
	require.Equal(t, 1, wholes, "H reads every upload")
	require.Contains(t, flat(m.View()), "Uploads (1 accepted)")
}
