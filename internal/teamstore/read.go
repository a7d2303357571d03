package teamstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/internal/who"
)

// ErrNotFound: no such blob.
var ErrNotFound = errors.New("teamstore: not in the team store")

// Uploads returns the upload history lines the team pushed for a
// connection, oldest first (what key plans merge with the local history).
func (s *Store) Uploads(ctx context.Context, conn string) ([]spool.UploadRecord, error) {
	ctx, cancel := ctxOp(ctx)
	defer cancel()
	rows, err := s.db.QueryContext(ctx, `SELECT record FROM uploads WHERE conn = $1 ORDER BY at, seq`, t(conn))
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []spool.UploadRecord
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return nil, s.wrap(err)
		}
		var r spool.UploadRecord
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			return nil, fmt.Errorf("teamstore: an upload record of %q does not decode: %w", t(conn), err)
		}
		out = append(out, r)
	}
	return out, s.wrap(rows.Err())
}

// Blob returns stored bytes by SHA-256 (ErrNotFound when none).
func (s *Store) Blob(ctx context.Context, sha string) ([]byte, error) {
	ctx, cancel := ctxOp(ctx)
	defer cancel()
	b, err := readBlob(ctx, s.db, t(strings.ToLower(sha)))
	if errors.Is(err, errNoBlob) {
		return nil, fmt.Errorf("%w: no bytes with SHA-256 %s", ErrNotFound, t(sha))
	}
	return b, s.wrap(err)
}

// Status is what `b2bx store status` says of the database.
type Status struct {
	Target    string  // the URL without a password
	Reachable bool    // it answered
	Version   Version // the schemas found (zero when unreachable)
	Current   bool    // both are this b2bx's
	Err       error   // why it is not reachable or not current
}

// Status checks the database answers and reads its schema versions.
func (s *Store) Status(ctx context.Context) (Status, error) {
	st := Status{Target: s.target}
	if err := s.Ping(ctx); err != nil {
		st.Err = err
		return st, nil
	}
	st.Reachable = true
	v, err := s.checkSchema(ctx)
	st.Version, st.Err = v, err
	st.Current = err == nil
	return st, nil
}

// Index is the team's tracking index (read only: fed by the pushes, no
// local file is synced into it). Closing it leaves the store open.
func (s *Store) Index(ctx context.Context) (*track.Index, error) {
	b, err := s.backend(ctx)
	if err != nil {
		return nil, err
	}
	return track.OpenTeam(ctx, b, s.readFile(ctx), s.now)
}

// readFile reads a team item's sidecar (a delivery's source path) for
// the timeline.
func (s *Store) readFile(ctx context.Context) func(path string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		ctx, cancel := ctxOp(context.WithoutCancel(ctx))
		defer cancel()
		var sidecar string
		err := s.db.QueryRowContext(ctx, `SELECT sidecar FROM deliveries WHERE source = $1`, t(path)).Scan(&sidecar)
		if err != nil {
			return nil, s.wrap(err)
		}
		return []byte(sidecar), nil
	}
}

// SentBy says who sent each accepted upload the team pushed for conn:
// the upload's Idempotency-Key and uploadId (as conntab.SentByKey joins
// them) → "alice on host-3", terminal-safe. H shows it on the rows.
func (s *Store) SentBy(ctx context.Context, conn string) (map[string]string, error) {
	ctx, cancel := ctxOp(ctx)
	defer cancel()
	rows, err := s.db.QueryContext(ctx, `SELECT record, by_user, by_host FROM uploads WHERE conn = $1 AND outcome = $2 ORDER BY at, seq`,
		t(conn), string(spool.OutcomeAccepted))
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var raw string
		var by who.Who
		if err := rows.Scan(&raw, &by.User, &by.Host); err != nil {
			return nil, s.wrap(err)
		}
		var r spool.UploadRecord
		if json.Unmarshal([]byte(raw), &r) != nil {
			continue // Uploads says which record does not decode
		}
		if k := r.Key + "\x00" + r.UploadID; out[k] == "" {
			out[k] = by.Clean().String()
		}
	}
	return out, s.wrap(rows.Err())
}

// Delivery is a delivery anyone on the team stored on conn: its sidecar
// (its Path is the storer's, not this machine's), its payload bytes (the
// blob, checked against the sidecar's SHA-256 and size) and who stored
// it. ErrNotFound when the team has none with that ID.
func (s *Store) Delivery(ctx context.Context, conn, id string) (spool.Meta, []byte, who.Who, error) {
	return s.delivery(ctx, `conn = $1 AND delivery_id = $2`, id, t(conn), t(id))
}

// DeliveryAt is Delivery for the delivery whose stored payload is at
// path on the machine that stored it (a timeline step's Open.Path: the
// team index keeps the storer's paths), for the viewer.
func (s *Store) DeliveryAt(ctx context.Context, path string) (spool.Meta, []byte, who.Who, error) {
	return s.delivery(ctx, `source = $1`, path, t(strings.TrimSuffix(path, ".edi")+".json"))
}

func (s *Store) delivery(ctx context.Context, where, what string, args ...any) (spool.Meta, []byte, who.Who, error) {
	qctx, cancel := ctxOp(ctx)
	defer cancel()
	var sidecar, sha, id string
	var by who.Who
	err := s.db.QueryRowContext(qctx, `SELECT sidecar, payload_sha256, by_user, by_host, delivery_id FROM deliveries WHERE `+where,
		args...).Scan(&sidecar, &sha, &by.User, &by.Host, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return spool.Meta{}, nil, who.Who{}, fmt.Errorf("%w: no delivery %q", ErrNotFound, t(what))
	}
	if err != nil {
		return spool.Meta{}, nil, who.Who{}, s.wrap(err)
	}
	var m spool.Meta
	if err := json.Unmarshal([]byte(sidecar), &m); err != nil {
		return spool.Meta{}, nil, who.Who{}, fmt.Errorf("teamstore: the sidecar of delivery %q does not decode: %w", t(id), err)
	}
	payload, err := s.Blob(ctx, sha)
	if err != nil {
		return spool.Meta{}, nil, who.Who{}, err
	}
	if got := sum(payload); !strings.EqualFold(got, m.SHA256) || !strings.EqualFold(got, sha) || int64(len(payload)) != m.Size {
		return spool.Meta{}, nil, who.Who{}, fmt.Errorf("%w: delivery %q has %d bytes with SHA-256 %s in the team store, its sidecar says %d and %s", ErrMismatch, t(id), len(payload), got, m.Size, t(m.SHA256))
	}
	return m, payload, by.Clean(), nil
}

// Colleague is Delivery as a bundle's source of a delivery this machine
// did not store (bundle.ColleagueFunc): ok false when the team has none.
func (s *Store) Colleague(ctx context.Context, conn, id string) (spool.Meta, []byte, string, bool, error) {
	return found(s.Delivery(ctx, conn, id))
}

func found(m spool.Meta, payload []byte, by who.Who, err error) (spool.Meta, []byte, string, bool, error) {
	if errors.Is(err, ErrNotFound) {
		return spool.Meta{}, nil, "", false, nil
	}
	return m, payload, by.String(), err == nil, err
}
