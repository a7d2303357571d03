package track

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/internal/orders/orderstest"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

const (
	buyer    = "4012345000009"
	supplier = "4098765000003"
)

var t0 = time.Date(2026, 3, 12, 10, 30, 0, 0, time.UTC)

// clock is a settable fake clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// ordersIC is an interchange with one ORDERS for doc, control reference ref.
func ordersIC(ref, doc string) []byte { return orderstest.OrdersIC(buyer, supplier, ref, doc) }

// contrl answers interchange ref: action 7 (accepted) or 4 (rejected,
// with a segment error in message M1).
func contrl(own, ref string, rejected bool) []byte {
	return orderstest.Contrl(supplier, buyer, own, ref, rejected)
}

// ordrsp answers order doc, changing line 1's quantity.
func ordrsp(own, doc string) []byte {
	return fmt.Appendf(nil, "UNA:+.? 'UNB+UNOC:3+%s:14+%s:14+260312:1200+%s'UNH+R1+ORDRSP:D:96A:UN'BGM+231+RSP-%s+4'"+
		"DTM+137:20260312:102'RFF+ON:%s'NAD+BY+%s::9'NAD+SU+%s::9'LIN+1+3+4000862141404:SRS'QTY+21:8'UNS+S'UNT+10+R1'UNZ+1+%s'",
		supplier, buyer, own, doc, doc, buyer, supplier, own)
}

// store writes a delivery into the spool as the worker would.
func store(t testing.TB, s *spool.Store, conn, id, typ string, data []byte, created time.Time, ack bool) *spool.Stored {
	t.Helper()
	w, err := s.Begin(conn, id)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	st, err := w.Commit(spool.Meta{ConnectionID: conn, DeliveryAttemptID: id, InterchangeID: "ic-" + id, MessageType: typ,
		CreatedAt: created, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
	require.NoError(t, err)
	if ack {
		st, err = s.MarkAcknowledged(conn, id, "rc-"+id, created.Add(time.Minute))
		require.NoError(t, err)
	}
	return st
}

// uploaded records an accepted upload of data (and keeps its copy).
func uploaded(t testing.TB, s *spool.Store, conn, ref, doc string, data []byte, at time.Time, outcome spool.Outcome) spool.UploadRecord {
	t.Helper()
	_, err := s.KeepSent(conn, data)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	rec := spool.UploadRecord{Time: at, ConnectionID: conn, File: "/tmp/" + doc + ".edi", Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]),
		Key: buyer + ":" + doc + ":orders:1", SenderID: buyer, BusinessID: doc, RecipientID: supplier, ControlRef: ref,
		DocNumbers: []string{doc}, N: 1, Outcome: spool.OutcomePending}
	require.NoError(t, s.AppendUpload(rec))
	rec.Outcome, rec.HTTPStatus, rec.UploadID, rec.InterchangeID, rec.Status = outcome, 202, "up-"+doc, "ic-up-"+doc, "accepted"
	if outcome != spool.OutcomeAccepted {
		rec.HTTPStatus, rec.UploadID, rec.InterchangeID, rec.Status = 400, "", "", ""
	}
	require.NoError(t, s.AppendUpload(rec))
	return rec
}

// openIndex opens an index over dir with a fake clock.
func openIndex(t testing.TB, dir string, c *clock, say *[]string) *Index {
	t.Helper()
	var b Backend
	if testBackend != nil {
		b = testBackend(t, dir)
	}
	x, err := Open(t.Context(), Options{Dir: dir, Now: c.now, Backend: b, Say: func(m string) {
		if say != nil {
			*say = append(*say, m)
		}
	}})
	require.NoError(t, err)
	t.Cleanup(func() { x.Close() })
	return x
}

// dump lists the whole index in a stable text form (IDs left out).
func dump(t testing.TB, x *Index) []string {
	t.Helper()
	var db *sql.DB
	bind := func(q string) string { return q }
	switch b := x.raw.(type) {
	case *SQLite:
		db = b.db
	case *failing:
		db = b.SQLite.db
	case *Postgres:
		db, bind = b.db, rebind
	}
	rows, err := db.QueryContext(t.Context(), `SELECT i.id, i.conn, i.kind, i.ref, i.type, i.at, i.state, i.status, i.note, i.detail, i.convs, s.path, s.size, s.mtime
		FROM track_items i JOIN track_sources s ON s.id = i.source`)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, at, size, mtime int64
		var conn, kind, ref, typ, state, status, note, detail, convs, path string
		require.NoError(t, rows.Scan(&id, &conn, &kind, &ref, &typ, &at, &state, &status, &note, &detail, &convs, &path, &size, &mtime))
		krows, err := db.QueryContext(t.Context(), bind(`SELECT kind, value, at FROM track_keys WHERE item = ? ORDER BY kind, value`), id)
		require.NoError(t, err)
		var keys []string
		for krows.Next() {
			var k, v string
			var kat int64
			require.NoError(t, krows.Scan(&k, &v, &kat))
			keys = append(keys, fmt.Sprintf("%s=%s@%d", k, v, kat))
		}
		krows.Close()
		out = append(out, strings.Join([]string{conn, kind, ref, typ, fmt.Sprint(at), state, status, note, detail, convs, path, fmt.Sprint(size, mtime), strings.Join(keys, " ")}, "|"))
	}
	require.NoError(t, rows.Err())
	sort.Strings(out)
	return out
}
