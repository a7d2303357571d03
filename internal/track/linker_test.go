package track

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
)

// A Linker answers as LoadLinkedFor does, question after question, over
// one index: from the index when it is built, from the store when it is
// not (no index yet) and when it is closed and asked again.
func TestLinkerAnswersAsLoadLinkedFor(t *testing.T) {
	if testBackend != nil {
		t.Skip("the machine's own SQLite index")
	}
	dir := t.TempDir()
	vars := map[string]string{spool.EnvDataDir: dir, credentials.EnvConfig: filepath.Join(t.TempDir(), "none.toml")}
	env := session.Env{Getenv: func(k string) string { return vars[k] }}
	s, err := spool.Open(dir)
	require.NoError(t, err)
	a := uploaded(t, s, "conn-a", "ICR0001", "PO-4711", ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeAccepted)
	b := uploaded(t, s, "conn-a", "ICR0002", "PO-4712", ordersIC("ICR0002", "PO-4712"), t0.Add(time.Minute), spool.OutcomeAccepted)
	store(t, s, "conn-a", "d1", "CONTRL", contrl("CTL1", "ICR0001", true), t0.Add(2*time.Minute), true)
	store(t, s, "conn-a", "d2", "CONTRL", contrl("CTL2", "ICR0002", false), t0.Add(3*time.Minute), true)
	sels := []orders.Selection{{SHAs: []string{a.SHA256}}, {SHAs: []string{b.SHA256}}, {Keys: []string{a.Key}, SHAs: []string{a.SHA256, b.SHA256}}}
	same := func(l *Linker) {
		t.Helper()
		for _, sel := range sels {
			want, err := LoadLinkedFor(t.Context(), env, s, "conn-a", &sel)
			require.NoError(t, err)
			got, err := l.LinkedFor(t.Context(), &sel)
			require.NoError(t, err)
			require.Equal(t, len(want.Uploads), len(got.Uploads), "%v", sel)
			require.Equal(t, orders.Rejections(want), orders.Rejections(got), "%v", sel)
			for _, d := range []string{"d1", "d2"} {
				require.Equal(t, want.AnswerLines(d), got.AnswerLines(d), "%v %s", sel, d)
			}
		}
	}
	// no index yet: the store answers
	l := NewLinker(env, s, "conn-a")
	same(l)
	require.Error(t, l.err, "no index: every answer read the store")
	l.Close()

	x := openIndex(t, dir, &clock{t: t0.Add(time.Hour)}, nil)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	l = NewLinker(env, s, "conn-a")
	defer l.Close()
	same(l)
	require.NoError(t, l.err)
	require.NotNil(t, l.x, "the index is held open for the next question")
	rej := orders.Rejections(must(l.LinkedFor(t.Context(), &sels[0])))
	require.Len(t, rej, 1, "PO-4711's CONTRL rejected it")
	l.Close()
	require.Nil(t, l.x)
	same(l) // asked after Close: opened again
	// another connection or store goes to LoadLinkedFor
	other, err := l.SelectLoader()(t.Context(), s, "conn-b", sels[0])
	require.NoError(t, err)
	require.Empty(t, other.Uploads)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
