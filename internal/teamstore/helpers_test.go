package teamstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/internal/orders/orderstest"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/testshared/pgtest"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/internal/who"
)

// remote is the outbox's interface (internal/outbox.Remote): *Store
// implements exactly it.
type remote interface {
	Ping(ctx context.Context) error
	PushDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error
	PushUpload(ctx context.Context, conn string, rec spool.UploadRecord, file []byte, by who.Who) error
	PushSeen(ctx context.Context, conn string, rec spool.SeenRecord, by who.Who) error
	PushCapture(ctx context.Context, name string, capture []byte, by who.Who) error
}

var _ remote = (*Store)(nil)

const (
	buyer    = "4012345000009"
	supplier = "4098765000003"
)

var (
	t0    = time.Date(2026, 3, 12, 10, 30, 0, 0, time.UTC)
	alice = who.Who{User: "alice", Host: "host-3"}
	bob   = who.Who{User: "bob", Host: "host-7"}
)

// ordersIC is an interchange with one ORDERS for doc, control reference ref.
func ordersIC(ref, doc string) []byte { return orderstest.OrdersIC(buyer, supplier, ref, doc) }

// contrl answers interchange ref: action 7 (accepted) or 4 (rejected,
// with a segment error in message M1).
func contrl(own, ref string, rejected bool) []byte {
	return orderstest.Contrl(supplier, buyer, own, ref, rejected)
}

func shaHex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// delivery is a verified delivery as the outbox hands it over.
func delivery(conn, id, typ string, data []byte, at time.Time, acked bool) spool.Stored {
	m := spool.Meta{ConnectionID: conn, DeliveryAttemptID: id, InterchangeID: "ic-" + id, MessageType: typ, CreatedAt: at,
		Size: int64(len(data)), SHA256: shaHex(data), ReceivedAt: at.Add(30 * time.Second), File: id + ".edi"}
	if acked {
		a := at.Add(time.Minute)
		m.AcknowledgedAt, m.ReceiptID = &a, "rc-"+id
	}
	return spool.Stored{Meta: m, Path: "/home/someone/" + id + ".edi"}
}

// upload is the pending and the result line of one accepted (or other) upload.
func upload(conn, ref, doc string, n int, data []byte, at time.Time, outcome spool.Outcome, status int) (pending, result spool.UploadRecord) {
	pending = spool.UploadRecord{Time: at, ConnectionID: conn, File: "/tmp/" + doc + ".edi", Size: int64(len(data)), SHA256: shaHex(data),
		Key: fmt.Sprintf("%s:%s:orders:%d", buyer, doc, n), SenderID: buyer, BusinessID: doc, RecipientID: supplier, ControlRef: ref,
		DocNumbers: []string{doc}, N: n, Outcome: spool.OutcomePending}
	result = pending
	result.Time = at.Add(time.Second)
	result.Outcome, result.HTTPStatus = outcome, status
	if outcome == spool.OutcomeAccepted {
		result.UploadID, result.InterchangeID, result.Status = "up-"+doc, "ic-up-"+doc, "accepted"
	}
	return pending, result
}

// open is a team store on a fresh, initialised database, as by.
func open(t testing.TB, dsn string, by who.Who) *Store {
	t.Helper()
	s, err := Connect(t.Context(), Config{URL: dsn, By: by, Now: func() time.Time { return t0.Add(48 * time.Hour) }})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func newStore(t testing.TB, by who.Who) (*Store, string) {
	t.Helper()
	dsn := pgtest.DSN(t)
	s := open(t, dsn, by)
	_, err := s.Init(t.Context())
	require.NoError(t, err)
	return s, dsn
}

func find(t testing.TB, s *Store, q string) track.Result {
	t.Helper()
	x, err := s.Index(t.Context())
	require.NoError(t, err)
	query, err := track.ParseQuery(q)
	require.NoError(t, err)
	r, err := x.Find(t.Context(), query, nil)
	require.NoError(t, err)
	return r
}

func count(t testing.TB, s *Store, table string) int {
	t.Helper()
	var n int
	require.NoError(t, s.db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM `+table).Scan(&n))
	return n
}
