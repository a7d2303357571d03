package teamstore

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/internal/who"
)

// alicesFixedRejection pushes, as Alice, her upload X of PO-4711 (:1)
// rejected by a CONTRL, then her fix Y (:2, --fixes X) accepted by the
// next one: nothing of hers needs action any more. It returns X's bytes.
func alicesFixedRejection(t *testing.T, s *Store) []byte {
	t.Helper()
	x := alicesRejectedUpload(t, s)
	y := ordersIC("ICR0002", "PO-4711")
	p, r := upload("conn-a", "ICR0002", "PO-4711", 2, y, t0.Add(10*time.Minute), spool.OutcomeAccepted, 202)
	p.Fixes, r.Fixes, r.UploadID = "up-PO-4711", "up-PO-4711", "up-PO-4711-fix"
	require.NoError(t, s.PushUpload(t.Context(), "conn-a", p, y, alice))
	require.NoError(t, s.PushUpload(t.Context(), "conn-a", r, y, alice))
	ctl := contrl("CTL2", "ICR0002", false)
	require.NoError(t, s.PushDelivery(t.Context(), "conn-a", delivery("conn-a", "d-contrl-2", "CONTRL", ctl, t0.Add(12*time.Minute), true), ctl, alice))
	ix, err := s.Index(t.Context())
	require.NoError(t, err)
	defer ix.Close()
	states, err := ix.Overdue(t.Context(), time.Time{}, "conn-a", nil)
	require.NoError(t, err)
	for _, st := range states {
		require.False(t, st.IsNeedsAction(), "her fix was accepted: %+v", st)
	}
	return x
}

// One reject rule for the team, as the app's upload screen applies it
// (tui/upload: Faces.SelectLoader, then orders.Guard) and `b2bx upload`
// (Store.LinkedFor, then orders.Guard): Alice's rejected X stays refused
// for Bob after her fix Y was accepted; her fix's bytes are not.
func TestTheTeamsGuardRefusesRejectedBytesAfterTheFix(t *testing.T) {
	s, dsn := newStore(t, alice)
	x := alicesFixedRejection(t, s)
	getenv := facesEnv(t, dsn)
	f := NewFaces(getenv, nil)
	defer f.Close()
	bobStore, err := spool.Open(getenv(spool.EnvDataDir))
	require.NoError(t, err)
	sha := shaHex(x)
	sel := orders.Selection{SHAs: []string{sha}}

	l, err := f.SelectLoader(session.Env{Getenv: getenv})(t.Context(), bobStore, "conn-a", sel)
	require.NoError(t, err)
	require.ErrorIs(t, orders.Guard(l, sha, nil, false), orders.ErrSameAsRejected, "the app's upload")
	require.NoError(t, orders.Guard(l, sha, nil, true), "--force")

	l, err = s.LinkedFor(t.Context(), bobStore, "conn-a", sel)
	require.NoError(t, err)
	err = orders.Guard(l, sha, nil, false)
	require.ErrorIs(t, err, orders.ErrSameAsRejected, "b2bx upload")
	require.Contains(t, err.Error(), "upload up-PO-4711 ")

	ySHA := shaHex(ordersIC("ICR0002", "PO-4711"))
	l, err = s.LinkedFor(t.Context(), bobStore, "conn-a", orders.Selection{SHAs: []string{ySHA}})
	require.NoError(t, err)
	require.NoError(t, orders.Guard(l, ySHA, nil, false), "the accepted fix's bytes are not refused")
}

// H says who sent the team's uploads: Faces.SentBy (Store.SentBy) maps
// an accepted upload's key and uploadId to its sender, terminal-safe;
// nil before the store is open.
func TestFacesSentBy(t *testing.T) {
	s, dsn := newStore(t, alice)
	alicesRejectedUpload(t, s)
	p, r := upload("conn-a", "ICR0009", "PO-4712", 1, ordersIC("ICR0009", "PO-4712"), t0, spool.OutcomeAccepted, 202)
	hostile := who.Who{User: "mallory\x1b[2J", Host: "host\u202e-9"}
	require.NoError(t, s.PushUpload(t.Context(), "conn-a", p, nil, hostile))
	require.NoError(t, s.PushUpload(t.Context(), "conn-a", r, nil, hostile))
	f := NewFaces(facesEnv(t, dsn), nil)
	defer f.Close()
	require.Nil(t, f.SentBy(t.Context(), "conn-a"), "not open yet")
	require.NotNil(t, f.Index(t.Context()), f.Note())
	by := f.SentBy(t.Context(), "conn-a")
	require.Equal(t, "alice on host-3", by[buyer+":PO-4711:orders:1\x00up-PO-4711"])
	m := by[buyer+":PO-4712:orders:1\x00up-PO-4712"]
	require.Contains(t, m, "mallory^[[2J")
	require.NotContains(t, m, "\x1b")
	require.NotContains(t, m, "\u202e")
	require.Len(t, by, 2, "accepted uploads only")
}

// A colleague's delivery for the app's bundle (Faces.Delivery) and the
// viewer on a timeline step (Faces.DeliveryAt, the team index's path):
// the sidecar, the bytes checked by SHA-256, who fetched it; ok false
// for none; bytes that do not match are an error, never used.
func TestFacesColleaguesDelivery(t *testing.T) {
	s, dsn := newStore(t, alice)
	alicesRejectedUpload(t, s)
	f := NewFaces(facesEnv(t, dsn), nil)
	defer f.Close()
	_, _, _, ok, err := f.Delivery(t.Context(), "conn-a", "d-contrl-1")
	require.NoError(t, err)
	require.False(t, ok, "not open yet")
	require.NotNil(t, f.Index(t.Context()), f.Note())
	m, data, by, ok, err := f.Delivery(t.Context(), "conn-a", "d-contrl-1")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "alice on host-3", by)
	require.Equal(t, m.SHA256, shaHex(data))
	steps := func() []track.Step {
		r := find(t, s, "po:PO-4711")
		require.Len(t, r.Conversations, 1)
		x, err := s.Index(t.Context())
		require.NoError(t, err)
		defer x.Close()
		return x.Timeline(t.Context(), r.Conversations[0])
	}()
	var path string
	for _, st := range steps {
		if st.Open.Screen == track.OpenViewer && strings.Contains(st.Open.Path, "d-contrl-1") {
			path = st.Open.Path
		}
	}
	require.NotEmpty(t, path, "the CONTRL's step opens the viewer")
	m2, data2, _, ok, err := f.DeliveryAt(t.Context(), path)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, m.DeliveryAttemptID, m2.DeliveryAttemptID)
	require.Equal(t, data, data2)
	_, _, _, ok, err = f.Delivery(t.Context(), "conn-a", "d-nobody")
	require.NoError(t, err)
	require.False(t, ok)

	_, err = s.db.ExecContext(t.Context(), `UPDATE blob_chunks SET data = $1 WHERE sha256 = $2`, []byte("UNB+tampered'"), m.SHA256)
	require.NoError(t, err)
	_, _, _, ok, err = f.Delivery(t.Context(), "conn-a", "d-contrl-1")
	require.ErrorIs(t, err, ErrMismatch)
	require.False(t, ok)
}
