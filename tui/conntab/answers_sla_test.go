package conntab

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
)

// H marks an upload whose CONTRL is late as OVERDUE (the profile's
// sla.contrl) and one its CONTRL rejected as NEEDS ACTION.
func TestAnswersScreenOverdueAndNeedsAction(t *testing.T) {
	t0 := time.Date(2026, 3, 12, 10, 0, 0, 0, time.UTC)
	s, _ := acceptedUploads(t, t0, func(i int, _ string) string { return fmt.Sprintf("REF%d", i) }, "PO-LATE", "PO-REJ")
	data := []byte("UNB+UNOA:3+4098765000003:14+4012345000009:14+260312:1031+C1'UNH+C1+CONTRL:2:2:UN'UCI+REF1+4012345000009:14+4098765000003:14+4'UNT+3+C1'UNZ+1+C1'")
	w, err := s.Begin(answerConn, "d-rej")
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	_, err = w.Commit(spool.Meta{ConnectionID: answerConn, DeliveryAttemptID: "d-rej", MessageType: "CONTRL", CreatedAt: t0.Add(2 * time.Minute),
		Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
	require.NoError(t, err)
	l, err := up.LoadLinked(t.Context(), s, answerConn, nil)
	require.NoError(t, err)

	now := t0.Add(10 * time.Minute)
	c := &common.Common{Width: 160, Height: 30, Styles: common.NewStyles(true), Now: func() time.Time { return now }}
	v := flat(newAnswersScreen(c, 1, nil, "acme", l, track.SLA{}, nil).setSize(160, 30).view())
	require.Contains(t, v, "NEEDS ACTION")
	require.NotContains(t, v, "OVERDUE", "10 minutes: within the default sla.contrl of 15m")

	now = t0.Add(20 * time.Minute)
	v = flat(newAnswersScreen(c, 1, nil, "acme", l, track.SLA{}, nil).setSize(160, 30).view())
	require.Contains(t, v, "OVERDUE: no CONTRL 20m after the upload (sla.contrl 15m)")
	v = flat(newAnswersScreen(c, 1, nil, "acme", l, track.SLA{Contrl: time.Hour}, nil).setSize(160, 30).view())
	require.NotContains(t, v, "OVERDUE", "the profile's sla.contrl")
}

// acceptedUploads is a store holding one accepted upload of each doc on
// answerConn, a minute apart from t0, control reference ref(i, doc),
// and their records.
func acceptedUploads(t *testing.T, t0 time.Time, ref func(i int, doc string) string, docs ...string) (*spool.Store, []spool.UploadRecord) {
	t.Helper()
	s, err := spool.Open(t.TempDir())
	require.NoError(t, err)
	var recs []spool.UploadRecord
	for i, doc := range docs {
		r := spool.UploadRecord{Time: t0.Add(time.Duration(i) * time.Minute), ConnectionID: answerConn, Key: "key-" + doc,
			SenderID: "4012345000009", RecipientID: "4098765000003", ControlRef: ref(i, doc), DocNumbers: []string{doc}, Outcome: spool.OutcomeAccepted,
			HTTPStatus: 202, UploadID: "u-" + doc}
		require.NoError(t, s.AppendUpload(r))
		recs = append(recs, r)
	}
	return s, recs
}
