package spool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Seen journal: the mailbox states this machine saw of deliveries it did
// not (or not yet) store — a lease taken, a payload refused by an
// integrity check, a step that failed — one JSON line each:
//
//	<root>/<connection>/seen.jsonl
//
// A stored delivery's own states (due since createdAt, received,
// acknowledged with its receipt) are in its sidecar. The journal is
// observational: it is appended after the worker's step is over (never
// between download, checks, store and acknowledge) and not fsynced; a
// line lost in a crash loses a line of the story, nothing else. It never
// holds a claim token.

// SeenState is what happened to the entry.
type SeenState string

// Seen states.
const (
	SeenClaimed SeenState = "claimed" // leased, not stored (yet)
	SeenRefused SeenState = "refused" // an integrity check failed: not stored, not acknowledged
	SeenFailed  SeenState = "failed"  // another step failed (download, store, acknowledge)
)

// SeenRecord is one line of the seen journal.
type SeenRecord struct {
	Time              time.Time `json:"time"`
	ConnectionID      string    `json:"connectionId"`
	DeliveryAttemptID string    `json:"deliveryAttemptId"`
	InterchangeID     string    `json:"interchangeId,omitempty"`
	MessageType       string    `json:"messageType,omitempty"`
	CreatedAt         time.Time `json:"createdAt,omitzero"` // due since (the listing's createdAt)
	State             SeenState `json:"state"`
	Step              string    `json:"step,omitempty"`   // the failed step (worker.Step)
	Checks            []string  `json:"checks,omitempty"` // the failed checks in words
	Error             string    `json:"error,omitempty"`
	LeaseExpiresAt    time.Time `json:"leaseExpiresAt,omitzero"`
}

// SeenPath is the journal file of a connection.
func (s *Store) SeenPath(connectionID string) string {
	return filepath.Join(s.connDir(connectionID), "seen.jsonl")
}

// NoteSeen appends rec to the connection's seen journal (one write, no
// fsync). A zero Time is stamped with the store's clock.
func (s *Store) NoteSeen(rec SeenRecord) error {
	if rec.ConnectionID == "" {
		return errors.New("spool: seen record without connection ID")
	}
	if rec.Time.IsZero() {
		rec.Time = s.now()
	}
	rec.Time = rec.Time.UTC()
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.connDir(rec.ConnectionID), dirPerm); err != nil {
		return fmt.Errorf("spool: seen journal: %w", err)
	}
	f, err := os.OpenFile(s.SeenPath(rec.ConnectionID), os.O_WRONLY|os.O_APPEND|os.O_CREATE, filePerm)
	if err != nil {
		return fmt.Errorf("spool: seen journal: %w", err)
	}
	_, err = f.Write(append(line, '\n')) // one write of a whole line: appends of two processes never interleave
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("spool: seen journal: %w", err)
	}
	s.wrote(Written{Kind: WroteSeen, ConnectionID: rec.ConnectionID, Seen: &rec})
	return nil
}

// Seen reads a connection's seen journal; lines that do not decode (a
// torn write) are skipped: the journal is a story, not a ledger.
func (s *Store) Seen(connectionID string) ([]SeenRecord, error) {
	return ReadSeen(s.SeenPath(connectionID))
}

// ReadSeen reads a seen journal file (see Seen).
func ReadSeen(path string) ([]SeenRecord, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("spool: read seen journal: %w", err)
	}
	var out []SeenRecord
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		var r SeenRecord
		if len(bytes.TrimSpace(l)) == 0 || json.Unmarshal(l, &r) != nil {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}
