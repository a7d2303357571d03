package conntab

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/tui/fix"

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
	m, rl := rowLinksTab(t, e)
	asked := func() [][]string { return rl.asked() }
	m, notes := settle(t, m, m.Init())
	require.Empty(t, infoText(notes))
	var ids []string
	for _, r := range m.table.Rows() {
		ids = append(ids, r.ID())
	}
	require.Len(t, ids, 2)
	require.Equal(t, [][]string{slices.Sorted(slices.Values(ids))}, asked(), "the first page's rows, once")
	require.Zero(t, rl.wholes(), "not the whole connection")
	require.Contains(t, flat(m.View()), "not downloaded yet: linked to its upload once downloaded (d)")

	m, n := pressAll(t, m, "c", "d")
	require.Empty(t, n)
	require.Equal(t, worker.PhaseFetched, m.run.Phase())
	require.Contains(t, flat(m.View()), "answers upload of PO-4711 (key "+key+")", "linked through the rows' read")
	require.Len(t, asked(), 2)
	require.Zero(t, rl.wholes())

	m, _ = pressAll(t, m, "H")
	require.Equal(t, 1, rl.wholes(), "H reads every upload")
	require.Contains(t, flat(m.View()), "Uploads (1 accepted)")
}

// rowLinks counts what a tab with the app's loaders read: the rows'
// link inputs (asked) and the whole connection's (wholes).
type rowLinks struct {
	mu     sync.Mutex
	ids    [][]string
	nWhole int
}

func (r *rowLinks) asked() [][]string { r.mu.Lock(); defer r.mu.Unlock(); return slices.Clone(r.ids) }
func (r *rowLinks) wholes() int       { r.mu.Lock(); defer r.mu.Unlock(); return r.nWhole }

// rowLinksTab is a tab over e's store with the app's loaders (the
// tracking index, built first): it reads its rows' links until H or a
// fix needs every upload.
func rowLinksTab(t *testing.T, e *answerEnv) (Model, *rowLinks) {
	t.Helper()
	root := e.conn.Spool.Root()
	vars := map[string]string{spool.EnvDataDir: root, credentials.EnvConfig: filepath.Join(t.TempDir(), "none.toml")}
	env := session.Env{Getenv: func(k string) string { return vars[k] }}
	x, err := track.Open(t.Context(), track.Options{Dir: root})
	require.NoError(t, err)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	require.NoError(t, x.Close())
	t.Cleanup(track.WaitIdle)

	rl := &rowLinks{}
	rows, whole := track.DeliveriesLoader(env), track.Loader(env)
	opts := Options{
		LinksOf: func(ctx context.Context, s *spool.Store, conn string, ids []string) (*up.Linked, error) {
			rl.mu.Lock()
			rl.ids = append(rl.ids, slices.Sorted(slices.Values(ids)))
			rl.mu.Unlock()
			return rows(ctx, s, conn, ids)
		},
		Links: func(ctx context.Context, s *spool.Store, conn string) (*up.Linked, error) {
			rl.mu.Lock()
			rl.nWhole++
			rl.mu.Unlock()
			return whole(ctx, s, conn)
		},
	}
	c := &common.Common{Width: 120, Height: 40, Styles: common.NewStyles(true), Now: time.Now}
	m := New(c, testTab, e.conn, opts)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	return m, rl
}

// TestAFixAskedOnRowsLinksGoesOnOnceEveryUploadIsRead: a fix asked for
// (a timeline's v on a rejected upload) while the tab holds only its
// rows' links reads every upload and then opens, on the one request; no
// "press again".
func TestAFixAskedOnRowsLinksGoesOnOnceEveryUploadIsRead(t *testing.T) {
	e := newAnswerEnv(t)
	e.upload(t, "orders_rejectable.edi", 1)
	m, rl := rowLinksTab(t, e)
	m, _ = settle(t, m, m.Init())
	m, _ = pressAll(t, m, "P")
	require.Equal(t, worker.PhaseAcked, m.run.Phase())
	require.True(t, m.links.of, "the tab holds its rows' links")
	hist, err := e.conn.Spool.Uploads(answerConn)
	require.NoError(t, err)
	rec := hist[len(hist)-1]
	require.Zero(t, rl.wholes())

	m, cmd := m.Update(fix.OpenMsg{Tab: testTab, Upload: rec})
	m, notes := settle(t, m, cmd)
	require.Equal(t, 1, rl.wholes(), "every upload read once")
	require.False(t, m.links.of)
	require.NotContains(t, infoText(notes), "press again")
	require.NotNil(t, m.stack.Top(), "the fix's viewer is open")
	require.Equal(t, "segment viewer", m.stack.Top().Title())
	require.Nil(t, m.links.fix, "nothing waits any more")
}
