package track

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// IndexAfter, the update both faces run: a stored delivery is found at
// once, an upload once the history is read again, and a pending rebuild
// is left to the next Sync.
func TestIndexAfter(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{spool.EnvDataDir: dir, credentials.EnvConfig: filepath.Join(t.TempDir(), "none.toml")}
	env := session.Env{Getenv: func(k string) string { return vars[k] }}
	s, err := spool.Open(dir)
	require.NoError(t, err)

	// no index yet: nothing is built behind the person's back
	uploaded(t, s, "conn-a", "ICR0001", "PO-4711", ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeAccepted)
	require.NoError(t, IndexAfter(t.Context(), env, dir, "conn-a"))
	x := openIndex(t, dir, &clock{t: t0}, nil)
	require.NotEmpty(t, x.NeedsRebuild(), "the first build is left to a sync")
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	require.Empty(t, x.NeedsRebuild())

	uploaded(t, s, "conn-a", "ICR0002", "PO-4712", ordersIC("ICR0002", "PO-4712"), t0.Add(time.Minute), spool.OutcomeAccepted)
	require.NoError(t, IndexAfter(t.Context(), env, dir, "conn-a"))
	r := mustFind(t, x, "po:PO-4712")
	require.Len(t, r.Conversations, 1, "the upload is indexed without a sync")

	st := store(t, s, "conn-a", "d1", "CONTRL", contrl("CTL1", "ICR0002", false), t0.Add(2*time.Minute), false)
	require.NoError(t, IndexAfter(t.Context(), env, dir, "conn-a", *st))
	r = mustFind(t, x, "po:PO-4712")
	require.Len(t, r.Conversations[0].Items, 2, "the stored CONTRL joins its upload without a sync")
	inc := dump(t, x)
	_, err = x.Rebuild(t.Context(), "test")
	require.NoError(t, err)
	require.Equal(t, inc, dump(t, x))
}

// TimelineOf finds a conversation by a delivery ID, an upload ID or an
// idempotency key on one connection; TimelineText tells it as lines.
func TestTimelineOf(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	x := openIndex(t, dir, &clock{t: t0}, nil)
	rec := uploaded(t, s, "conn-a", "ICR0001", "PO-4711", ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeAccepted)
	store(t, s, "conn-a", "d1", "CONTRL", contrl("CTL1", "ICR0001", true), t0.Add(time.Minute), true)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	for _, id := range []string{"d1", rec.UploadID, rec.Key} {
		c, steps, ok, err := x.TimelineOf(t.Context(), "conn-a", id, nil)
		require.NoError(t, err)
		require.True(t, ok, id)
		require.Equal(t, "order PO-4711", c.Label)
		text := strings.Join(TimelineText(c, steps), "\n")
		require.Regexp(t, `(?s)NEEDS ACTION.*upload +ORDERS uploaded.*answer +CONTRL: rejected.*source: delivery d1`, text)
	}
	_, _, ok, err := x.TimelineOf(t.Context(), "conn-b", "d1", nil)
	require.NoError(t, err)
	require.False(t, ok, "another connection's")
}
