package teamstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/internal/who"
)

// ErrMismatch: pushed bytes are not the ones their record names (another
// SHA-256 or size), or a delivery ID already holds other bytes.
var ErrMismatch = errors.New("teamstore: the pushed bytes do not match their record")

// t is text as PostgreSQL stores it.
func t(s string) string { return track.PGText(s) }

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// push runs fn in one transaction that also writes index items (through
// the track backend's ApplyTx): its own, or the transaction of the Batch
// ctx runs in.
func (s *Store) push(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx, index func(track.Batch) error) error) error {
	if bt, ok := ctx.Value(batchKey{}).(*batchTx); ok && bt.s == s {
		return fn(ctx, bt.h.Tx(), func(batch track.Batch) error { return bt.b.ApplyTx(ctx, bt.h, batch) }) // Batch scrubs the error
	}
	return s.Batch(ctx, func(ctx context.Context) error { return s.push(ctx, fn) })
}

// batchKey is the context key of a Batch's transaction.
type batchKey struct{}

type batchTx struct {
	s *Store
	b *track.Postgres
	h *track.TxHandle
}

// Batch runs fn with a context in which every Push* of s shares one
// transaction, committed (one durable commit) when fn returns nil; an
// error from fn, or any push in it, rolls all of them back. The outbox
// pushes what was queued together this way: a commit waits for the
// database's disk once, not once per delivery.
func (s *Store) Batch(ctx context.Context, fn func(ctx context.Context) error) error {
	ctx, cancel := ctxOp(ctx)
	defer cancel()
	b, err := s.backend(ctx)
	if err != nil {
		return err
	}
	h, err := b.Begin(ctx)
	if err != nil {
		return s.wrap(fmt.Errorf("%w: %w", ErrUnreachable, err))
	}
	defer h.Tx().Rollback()
	if err := fn(context.WithValue(ctx, batchKey{}, &batchTx{s: s, b: b, h: h})); err != nil {
		return s.wrap(err)
	}
	return s.wrap(h.Tx().Commit())
}

func lock(ctx context.Context, tx *sql.Tx, parts ...string) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, t(strings.Join(parts, "\x1f")))
	return err
}

// parseAheadSize is the payload size from which PushDelivery makes a new
// delivery's index items beside the database's insert rather than after
// it (below it, they take less time than the goroutine is worth).
const parseAheadSize = 1 << 20

// PushDelivery stores a verified delivery and its index items:
// idempotent by (conn, delivery attempt ID) and the payload's SHA-256; a
// later push of it with AcknowledgedAt set records the acknowledgement
// (and nothing else).
func (s *Store) PushDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error {
	return s.pushDelivery(ctx, conn, st, payload, by, false)
}

// PushCheckedDelivery is PushDelivery of a payload the caller has
// checked against st's SHA-256 and size (the outbox's pusher does, to
// skip a damaged local file): its size is checked again, its SHA-256 is
// not computed twice.
func (s *Store) PushCheckedDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error {
	return s.pushDelivery(ctx, conn, st, payload, by, true)
}

func (s *Store) pushDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who, checked bool) error {
	m := st.Meta
	if conn == "" || m.DeliveryAttemptID == "" {
		return errors.New("teamstore: a delivery without connection or ID")
	}
	m.ConnectionID = conn
	sha := strings.ToLower(m.SHA256)
	by = by.Clean()
	source := track.TeamDeliveryPath(conn, m.DeliveryAttemptID)
	return s.push(ctx, func(ctx context.Context, tx *sql.Tx, index func(track.Batch) error) error {
		if err := lock(ctx, tx, "delivery", conn, m.DeliveryAttemptID); err != nil {
			return err
		}
		var haveSHA, sidecar, byUser, byHost string
		var acked sql.NullTime
		err := tx.QueryRowContext(ctx, `SELECT payload_sha256, sidecar, acknowledged_at, by_user, by_host FROM deliveries WHERE conn = $1 AND delivery_id = $2`,
			t(conn), t(m.DeliveryAttemptID)).Scan(&haveSHA, &sidecar, &acked, &byUser, &byHost)
		fresh := errors.Is(err, sql.ErrNoRows)
		var enc *encoding
		if fresh {
			// new bytes' chunks are encoded while their SHA-256 is checked
			// (and written only after it)
			enc = encode(payload)
			defer enc.stop()
		}
		// checked before the index items are made: they are the facts of
		// these bytes, which this process may share with its local index
		// (track.TeamDeliveryItems)
		if int64(len(payload)) != m.Size {
			return fmt.Errorf("%w: delivery %q has %d bytes, its sidecar says %d", ErrMismatch, t(m.DeliveryAttemptID), len(payload), m.Size)
		}
		if !checked {
			if got := sum(payload); got != sha {
				return fmt.Errorf("%w: delivery %q has SHA-256 %s, its sidecar says %s", ErrMismatch, t(m.DeliveryAttemptID), got, t(m.SHA256))
			}
		}
		var ahead func() []track.Item
		if fresh && len(payload) >= parseAheadSize {
			// A big delivery's index items are parsed (or taken from the
			// local index's parse of the same bytes) while the database
			// takes its bytes (both take tens of milliseconds at 16 MiB).
			// They are the pushed sidecar's and the pusher's, which a
			// fresh row keeps; they are waited for whatever the outcome.
			var items []track.Item
			done := make(chan struct{})
			st, by := spool.Stored{Meta: m, Path: source}, by
			go func() { defer close(done); items = track.TeamDeliveryItems(ctx, st, payload, by) }()
			defer func() { <-done }()
			ahead = func() []track.Item { <-done; return items }
		}
		switch {
		case fresh:
			if err := putBlob(ctx, tx, sha, payload, enc); err != nil {
				return err
			}
			var ackAt any
			if m.AcknowledgedAt != nil {
				ackAt = m.AcknowledgedAt.UTC()
			}
			ackUser, ackHost := "", ""
			if m.AcknowledgedAt != nil {
				ackUser, ackHost = by.User, by.Host
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO deliveries (conn, delivery_id, source, interchange_id, message_type, payload_sha256, sidecar,
				by_user, by_host, stored_at, acknowledged_at, receipt_id, acknowledged_by_user, acknowledged_by_host)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
				t(conn), t(m.DeliveryAttemptID), t(source), t(m.InterchangeID), t(m.MessageType), sha, mustJSON(m),
				t(by.User), t(by.Host), storedAt(m, s.now), ackAt, t(m.ReceiptID), t(ackUser), t(ackHost)); err != nil {
				return err
			}
		case err != nil:
			return err
		case haveSHA != sha:
			return fmt.Errorf("%w: delivery %q of %q is in the team store with SHA-256 %s, not %s", ErrMismatch, t(m.DeliveryAttemptID), t(conn), haveSHA, sha)
		case m.AcknowledgedAt == nil || acked.Valid:
			return nil // pushed before: nothing new
		default:
			// the acknowledgement only: the stored sidecar gains it
			var have spool.Meta
			if err := json.Unmarshal([]byte(sidecar), &have); err != nil {
				return fmt.Errorf("teamstore: the stored sidecar of %q does not decode: %w", t(m.DeliveryAttemptID), err)
			}
			have.AcknowledgedAt, have.ReceiptID = m.AcknowledgedAt, m.ReceiptID
			m = have
			if _, err := tx.ExecContext(ctx, `UPDATE deliveries SET acknowledged_at = $1, receipt_id = $2, sidecar = $3, acknowledged_by_user = $4, acknowledged_by_host = $5
				WHERE conn = $6 AND delivery_id = $7`, m.AcknowledgedAt.UTC(), t(m.ReceiptID), mustJSON(m), t(by.User), t(by.Host), t(conn), t(m.DeliveryAttemptID)); err != nil {
				return err
			}
			by = who.Who{User: byUser, Host: byHost} // the items stay the storer's
		}
		var items []track.Item
		if ahead != nil {
			items = ahead()
		} else { // a small delivery, or the acknowledgement of one pushed before (its stored sidecar and storer)
			items = track.TeamDeliveryItems(ctx, spool.Stored{Meta: m, Path: source}, payload, by)
		}
		// a delivery new to the store has no index rows yet (they are
		// written with its row, under its lock): nothing to replace
		return index(track.Batch{Set: []track.SourceItems{{Source: track.Source{Path: source, Conn: conn}, Items: items}}, Fresh: fresh})
	})
}

func storedAt(m spool.Meta, now func() time.Time) time.Time {
	if !m.ReceivedAt.IsZero() {
		return m.ReceivedAt.UTC()
	}
	return now().UTC()
}

// attemptOf is a history line's identity within its key: when its
// attempt started (a folded record's) or was recorded, and its outcome.
// The pending line and the result line of one attempt are two rows, as
// in the local history.
func attemptOf(r spool.UploadRecord) string {
	at := r.Time
	if !r.Started.IsZero() && r.Outcome == spool.OutcomePending {
		at = r.Started
	}
	return at.UTC().Format(time.RFC3339Nano) + "/" + string(r.Outcome)
}

// PushUpload stores one upload history line (and the file sent, when
// given) and re-indexes the key's attempts: idempotent by (conn, key,
// attempt). file may be nil when the sent copy is gone.
func (s *Store) PushUpload(ctx context.Context, conn string, rec spool.UploadRecord, file []byte, by who.Who) error {
	if conn == "" || rec.Key == "" {
		return errors.New("teamstore: an upload record without connection or key")
	}
	rec.ConnectionID = conn
	rec.SHA256 = strings.ToLower(rec.SHA256)
	if file != nil && sum(file) != rec.SHA256 {
		return fmt.Errorf("%w: the file sent under key %q has SHA-256 %s, its record says %s", ErrMismatch, t(rec.Key), sum(file), t(rec.SHA256))
	}
	if rec.Time.IsZero() {
		return errors.New("teamstore: an upload record without time")
	}
	by = by.Clean()
	return s.push(ctx, func(ctx context.Context, tx *sql.Tx, index func(track.Batch) error) error {
		if err := lock(ctx, tx, "upload", conn, rec.Key); err != nil {
			return err
		}
		if file != nil {
			if err := putBlob(ctx, tx, rec.SHA256, file, nil); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO uploads (conn, key, attempt, record, outcome, http_status, fixes, file_sha256, has_file, by_user, by_host, at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (conn, key, attempt) DO NOTHING`,
			t(conn), t(rec.Key), attemptOf(rec), mustJSON(rec), t(string(rec.Outcome)), rec.HTTPStatus, t(rec.Fixes), t(rec.SHA256), file != nil,
			t(by.User), t(by.Host), rec.Time.UTC())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // pushed before
		}
		recs, bys, err := keyRecords(ctx, tx, conn, rec.Key)
		if err != nil {
			return err
		}
		sent := func(sha string) ([]byte, bool) {
			b, err := readBlob(ctx, tx, t(sha))
			return b, err == nil
		}
		items := track.TeamUploadItems(ctx, conn, recs, bys, sent)
		src := track.TeamUploadPath(conn, rec.Key)
		return index(track.Batch{Set: []track.SourceItems{{Source: track.Source{Path: src, Conn: conn}, Items: items}}})
	})
}

func keyRecords(ctx context.Context, tx *sql.Tx, conn, key string) ([]spool.UploadRecord, []who.Who, error) {
	rows, err := tx.QueryContext(ctx, `SELECT record, by_user, by_host FROM uploads WHERE conn = $1 AND key = $2 ORDER BY at, seq`, t(conn), t(key))
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var recs []spool.UploadRecord
	var bys []who.Who
	for rows.Next() {
		var raw string
		var w who.Who
		if err := rows.Scan(&raw, &w.User, &w.Host); err != nil {
			return nil, nil, err
		}
		var r spool.UploadRecord
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			return nil, nil, fmt.Errorf("teamstore: an upload record of key %q does not decode: %w", t(key), err)
		}
		recs, bys = append(recs, r), append(bys, w)
	}
	return recs, bys, rows.Err()
}

// PushSeen stores one seen record (claimed, refused with its checks,
// failed) and its index item: idempotent by the record's content.
func (s *Store) PushSeen(ctx context.Context, conn string, rec spool.SeenRecord, by who.Who) error {
	if conn == "" {
		return errors.New("teamstore: a seen record without connection")
	}
	rec.ConnectionID = conn
	raw := mustJSON(rec)
	id := sum([]byte(raw))
	by = by.Clean()
	return s.push(ctx, func(ctx context.Context, tx *sql.Tx, index func(track.Batch) error) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO seen (conn, record_sha256, record, delivery_id, state, at, by_user, by_host)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (conn, record_sha256) DO NOTHING`,
			t(conn), id, raw, t(rec.DeliveryAttemptID), t(string(rec.State)), rec.Time.UTC(), t(by.User), t(by.Host))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		src := track.TeamSeenPath(conn, id)
		items := track.TeamSeenItems(conn, []spool.SeenRecord{rec}, by)
		return index(track.Batch{Set: []track.SourceItems{{Source: track.Source{Path: src, Conn: conn}, Items: items}}})
	})
}

// PushCapture stores an `event listen` capture file and indexes its
// events: idempotent by event id (an event already pushed, in this or
// another capture, is not indexed twice).
func (s *Store) PushCapture(ctx context.Context, name string, capture []byte, by who.Who) error {
	items := track.TeamEventItems(name, capture)
	if len(items) == 0 {
		return fmt.Errorf("teamstore: capture %q holds no webhook event", t(name))
	}
	sha := sum(capture)
	by = by.Clean()
	return s.push(ctx, func(ctx context.Context, tx *sql.Tx, index func(track.Batch) error) error {
		if err := putBlob(ctx, tx, sha, capture, nil); err != nil {
			return err
		}
		var set []track.SourceItems
		for i, it := range items {
			id := it.Ref
			if id == "" {
				id = fmt.Sprintf("sha256:%s#%d", sha, i) // an event without id: its place in this capture
			}
			res, err := tx.ExecContext(ctx, `INSERT INTO captures (event_id, name, capture_sha256, by_user, by_host) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (event_id) DO NOTHING`, t(id), t(name), sha, t(by.User), t(by.Host))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue
			}
			it.By = by
			set = append(set, track.SourceItems{Source: track.Source{Path: track.TeamEventPath(id)}, Items: []track.Item{it}})
		}
		if len(set) == 0 {
			return nil
		}
		return index(track.Batch{Set: set})
	})
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // records of plain fields always marshal
	}
	return string(b)
}
