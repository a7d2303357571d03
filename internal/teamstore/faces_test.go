package teamstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/track"
)

// facesEnv is an engineer's environment: config.toml with [store] url
// (user bob) and a data directory of their own.
func facesEnv(t *testing.T, url string) func(string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[store]\nurl = \""+url+"\"\nuser = \"bob\"\n"), 0o600))
	env := map[string]string{credentials.EnvConfig: filepath.Join(dir, "profiles.toml"), "HOME": dir, spool.EnvDataDir: t.TempDir()}
	return func(k string) string { return env[k] }
}

// alicesRejectedUpload pushes, as Alice, an accepted upload of PO-4711
// under :1 and the CONTRL that rejected it; it returns the upload's bytes.
func alicesRejectedUpload(t *testing.T, s *Store) []byte {
	t.Helper()
	data := ordersIC("ICR0001", "PO-4711")
	p, r := upload("conn-a", "ICR0001", "PO-4711", 1, data, t0, spool.OutcomeAccepted, 202)
	require.NoError(t, s.PushUpload(t.Context(), "conn-a", p, data, alice))
	require.NoError(t, s.PushUpload(t.Context(), "conn-a", r, data, alice))
	ctl := contrl("CTL1", "ICR0001", true)
	require.NoError(t, s.PushDelivery(t.Context(), "conn-a", delivery("conn-a", "d-contrl-1", "CONTRL", ctl, t0.Add(2*60e9), true), ctl, alice))
	return data
}

// What the app reads through Faces on Bob's machine is what Alice
// pushed: find and the timeline (by her), the dashboard's figures, H's
// link input (her upload answered by her CONTRL), the upload guard
// refusing her rejected bytes, and Bob's key plan after her :1.
func TestFacesReadTheTeamsData(t *testing.T) {
	s, dsn := newStore(t, alice)
	sent := alicesRejectedUpload(t, s)
	getenv := facesEnv(t, dsn)
	env := session.Env{Getenv: getenv}
	f := NewFaces(getenv, nil)
	require.NotNil(t, f)
	defer f.Close()
	f.Start(t.Context())
	x := f.Index(t.Context())
	require.NotNil(t, x, f.Note())
	require.Empty(t, f.Note())

	// find and the timeline
	q, err := track.ParseQuery("po:PO-4711")
	require.NoError(t, err)
	r, err := x.Find(t.Context(), q, nil)
	require.NoError(t, err)
	require.Len(t, r.Conversations, 1)
	steps := x.Timeline(t.Context(), r.Conversations[0])
	var by []string
	for _, st := range steps {
		by = append(by, st.By)
	}
	require.Contains(t, by, "alice on host-3")
	tl, err := f.Timeline(env)(t.Context(), "conn-a", "up-PO-4711")
	require.NoError(t, err)
	require.Contains(t, strings.Join(tl, "\n"), "— by alice on host-3")

	// the dashboard: her rejected upload needs action
	figs, err := x.ConnFigures(t.Context(), "conn-a", track.SLA{})
	require.NoError(t, err)
	require.Equal(t, 1, figs.NeedsAction, "%+v", figs)

	// H: Bob's tab (no upload of his own) shows her upload, rejected by her CONTRL
	bobStore, err := spool.Open(getenv(spool.EnvDataDir))
	require.NoError(t, err)
	l, err := f.Loader(env)(t.Context(), bobStore, "conn-a")
	require.NoError(t, err)
	require.Len(t, orders.Rejections(l), 1)
	require.Equal(t, "up-PO-4711", orders.Rejections(l)[0].Upload.UploadID)

	// the upload guard refuses her rejected bytes for Bob
	sha := shaHex(sent)
	sl, err := f.SelectLoader(env)(t.Context(), bobStore, "conn-a", orders.Selection{SHAs: []string{sha}})
	require.NoError(t, err)
	require.ErrorIs(t, orders.Guard(sl, sha, nil, false), orders.ErrSameAsRejected)

	// Bob's key plan continues after her :1
	f.AttachKeyPlans(t.Context(), bobStore)
	fixed := filepath.Join(t.TempDir(), "po.edi")
	require.NoError(t, os.WriteFile(fixed, ordersIC("ICR0002", "PO-4711"), 0o600))
	pf, err := orders.Inspect(t.Context(), fixed)
	require.NoError(t, err)
	plan, err := orders.NewPlan(bobStore, "conn-a", pf)
	require.NoError(t, err)
	require.Equal(t, buyer+":PO-4711:orders:2", plan.Key)
}

// A team store that cannot be reached: Index is nil at once (bounded, on
// Start's goroutine), Note says so in one line without the URL's
// password, and the loaders answer from this machine.
func TestFacesUnreachableFallBackToThisMachine(t *testing.T) {
	getenv := facesEnv(t, "postgres://bob@127.0.0.1:1/none?sslmode=disable")
	f := NewFaces(getenv, nil)
	require.NotNil(t, f)
	defer f.Close()
	require.Empty(t, f.Note(), "nothing said before the open ends")
	require.Nil(t, f.Index(t.Context()))
	require.Contains(t, f.Note(), "team store not used")
	require.Contains(t, f.Note(), "this machine's index answers")
	require.NotContains(t, f.Note(), "\n")
	bobStore, err := spool.Open(getenv(spool.EnvDataDir))
	require.NoError(t, err)
	l, err := f.Loader(session.Env{Getenv: getenv})(t.Context(), bobStore, "conn-a")
	require.NoError(t, err)
	require.Empty(t, l.Uploads)
	sl, err := f.SelectLoader(session.Env{Getenv: getenv})(t.Context(), bobStore, "conn-a", orders.Selection{SHAs: []string{"00"}})
	require.NoError(t, err)
	require.NoError(t, orders.Guard(sl, "00", nil, false))

	// none configured: no Faces, and a nil one is "no team"
	require.Nil(t, NewFaces(func(k string) string {
		return map[string]string{credentials.EnvConfig: filepath.Join(t.TempDir(), "profiles.toml")}[k]
	}, nil))
	var none *Faces
	require.Nil(t, none.Index(t.Context()))
	require.Empty(t, none.Note())
	none.Close()
}
