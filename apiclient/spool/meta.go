package spool

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Meta is the sidecar stored next to a payload. It deliberately has no
// field that could hold a claim token.
type Meta struct {
	ConnectionID      string     `json:"connectionId"`
	DeliveryAttemptID string     `json:"deliveryAttemptId"`
	InterchangeID     string     `json:"interchangeId,omitempty"`
	MessageType       string     `json:"messageType,omitempty"`
	CreatedAt         time.Time  `json:"createdAt,omitzero"` // the listing's createdAt; zero in older sidecars
	Size              int64      `json:"size"`
	SHA256            string     `json:"sha256"` // lower-case hex
	ReceivedAt        time.Time  `json:"receivedAt"`
	ReceiptID         string     `json:"receiptId,omitempty"`
	AcknowledgedAt    *time.Time `json:"acknowledgedAt,omitempty"`
	File              string     `json:"file"` // payload file name in the same directory
}

// Acknowledged reports whether a receipt was recorded.
func (m *Meta) Acknowledged() bool { return m.AcknowledgedAt != nil }

// Stored is a delivery in the spool.
type Stored struct {
	Meta Meta
	Path string // absolute path of the payload file
	// AlreadyStored is true when Commit found the same bytes already
	// stored (the idempotent no-op).
	AlreadyStored bool
}

func sidecarName(id string) string { return SafeName(id) + ".json" }
func payloadName(id string) string { return SafeName(id) + ".edi" }

// readMeta reads a sidecar and checks it belongs to id (hash-derived names
// could in theory collide; case-insensitive file systems fold names).
func readMeta(dir, id string) (*Meta, error) {
	b, err := os.ReadFile(filepath.Join(dir, sidecarName(id)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: delivery %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("spool: read metadata: %w", err)
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("spool: metadata %s is corrupt: %w (move it away to re-fetch the delivery)", filepath.Join(dir, sidecarName(id)), err)
	}
	if m.DeliveryAttemptID != id {
		return nil, fmt.Errorf("%w: file name of delivery %q is taken by delivery %q", ErrConflict, id, m.DeliveryAttemptID)
	}
	return &m, nil
}

func writeMeta(dir string, m *Meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileDurable(dir, sidecarName(m.DeliveryAttemptID), append(b, '\n'))
}

// Lookup returns a stored delivery.
func (s *Store) Lookup(connectionID, deliveryAttemptID string) (*Stored, error) {
	dir, err := s.deliveriesDir(connectionID)
	if err != nil {
		return nil, err
	}
	m, err := readMeta(dir, deliveryAttemptID)
	if err != nil {
		return nil, err
	}
	return &Stored{Meta: *m, Path: filepath.Join(dir, m.File)}, nil
}

// List returns the connection's stored deliveries, oldest first. Unreadable
// sidecars are skipped; the payloads stay on disk untouched.
func (s *Store) List(connectionID string) ([]Stored, error) {
	dir, err := s.deliveriesDir(connectionID)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("spool: list: %w", err)
	}
	var out []Stored
	for _, e := range ents {
		name := e.Name()
		if isTempName(name) || !strings.HasSuffix(name, ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		var m Meta
		if json.Unmarshal(b, &m) != nil || sidecarName(m.DeliveryAttemptID) != name {
			continue
		}
		out = append(out, Stored{Meta: m, Path: filepath.Join(dir, m.File)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Meta.ReceivedAt.Before(out[j].Meta.ReceivedAt) })
	return out, nil
}

// MarkAcknowledged records the receipt in the delivery's sidecar, durably.
// Recording the same receipt again is a no-op.
func (s *Store) MarkAcknowledged(connectionID, deliveryAttemptID, receiptID string, at time.Time) (*Stored, error) {
	dir, err := s.deliveriesDir(connectionID)
	if err != nil {
		return nil, err
	}
	unlock, err := s.lockConn(connectionID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	m, err := readMeta(dir, deliveryAttemptID)
	if err != nil {
		return nil, err
	}
	at = at.UTC()
	if m.ReceiptID != receiptID || m.AcknowledgedAt == nil || !m.AcknowledgedAt.Equal(at) {
		m.ReceiptID = receiptID
		m.AcknowledgedAt = &at
		if err := writeMeta(dir, m); err != nil {
			return nil, fmt.Errorf("spool: record receipt for %q: %w", deliveryAttemptID, err)
		}
		st := &Stored{Meta: *m, Path: filepath.Join(dir, m.File)}
		s.wrote(Written{Kind: WroteAck, ConnectionID: connectionID, Stored: st})
		return st, nil
	}
	return &Stored{Meta: *m, Path: filepath.Join(dir, m.File)}, nil
}
