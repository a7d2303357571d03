package partnersim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"
)

// Delivery defines a mailbox entry to add with AddEntry.
type Delivery struct {
	// ID is the deliveryAttemptId; empty: a random UUID. Any other string
	// is kept as given, even a hostile one ("..", control characters) for
	// client tests: it is listed, though a client should refuse to use it.
	ID            string
	InterchangeID string    // empty: a random UUID
	MessageType   string    // ORDRSP, CONTRL or APERAK
	Payload       []byte    // the EDIFACT bytes; kept, not copied
	CreatedAt     time.Time // zero: the simulator's now
	// DueAt hides the entry until the clock reaches it (an answer that
	// has not "arrived" yet). Zero: due immediately.
	DueAt time.Time
	Fault PayloadFault // how every payload read of this entry misbehaves
}

// entry is a mailbox entry's server-side state. Guarded by Sim.mu except
// for the immutable payload fields.
type entry struct {
	seq           int64
	conn          string
	id            string
	interchangeID string
	messageType   string
	payload       []byte
	sha           string // lower-case hex of payload
	createdAt     time.Time
	dueAt         time.Time
	fault         PayloadFault

	status         string
	attempts       int
	leaseExpiresAt time.Time
	tokenHash      [32]byte
	hasToken       bool
	receiptID      string
	acknowledgedAt time.Time
	reads          int // payload reads started
}

// EntryState is a snapshot of an entry for test assertions. It carries no
// payload, hash or token.
type EntryState struct {
	ConnectionID      string
	DeliveryAttemptID string
	InterchangeID     string
	MessageType       string
	Size              int64
	Status            string // StatusDue, StatusClaimed, StatusAcknowledged or StatusFailed
	Attempts          int    // claims so far
	LeaseExpiresAt    time.Time
	ReceiptID         string
	AcknowledgedAt    time.Time
	PayloadReads      int
	CreatedAt         time.Time
	DueAt             time.Time
}

// AddEntry adds a due delivery to a connection's mailbox and returns its
// deliveryAttemptId. Entries are listed in the order they were added.
func (s *Sim) AddEntry(connectionID string, d Delivery) (string, error) {
	if d.MessageType == "" {
		return "", fmt.Errorf("%w: delivery needs a MessageType", ErrInvalid)
	}
	e := newEntry(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	return e.id, s.addEntryLocked(connectionID, e)
}

// newEntry hashes the payload (outside the lock: it may be 16 MiB) and
// fills in random ids.
func newEntry(d Delivery) *entry {
	sum := sha256.Sum256(d.Payload)
	e := &entry{
		id: d.ID, interchangeID: d.InterchangeID, messageType: d.MessageType,
		payload: d.Payload, sha: hex.EncodeToString(sum[:]),
		createdAt: d.CreatedAt, dueAt: d.DueAt, fault: d.Fault, status: StatusDue,
	}
	if e.id == "" {
		e.id = newUUID()
	}
	if e.interchangeID == "" {
		e.interchangeID = newUUID()
	}
	return e
}

func (s *Sim) addEntryLocked(connectionID string, e *entry) error {
	c, ok := s.conns[connectionID]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownConnection, connectionID)
	}
	if _, dup := c.byID[e.id]; dup {
		return fmt.Errorf("%w: entry %q", ErrDuplicate, e.id)
	}
	now := s.clock.Now()
	if e.createdAt.IsZero() {
		e.createdAt = now
		if e.dueAt.After(now) {
			e.createdAt = e.dueAt
		}
	}
	s.seq++
	e.seq = s.seq
	e.conn = connectionID
	c.entries = append(c.entries, e)
	c.byID[e.id] = e
	return nil
}

// SetEntryFault replaces the payload fault of an existing entry.
func (s *Sim) SetEntryFault(connectionID, deliveryAttemptID string, f PayloadFault) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookupLocked(connectionID, deliveryAttemptID)
	if err != nil {
		return err
	}
	e.fault = f
	return nil
}

// Entry returns the current state of one entry (leases are expired against
// the clock first).
func (s *Sim) Entry(connectionID, deliveryAttemptID string) (EntryState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookupLocked(connectionID, deliveryAttemptID)
	if err != nil {
		return EntryState{}, false
	}
	s.expireLocked(e, s.clock.Now())
	return e.state(), true
}

// Entries returns the state of every entry of a connection in list order.
func (s *Sim) Entries(connectionID string) []EntryState {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.conns[connectionID]
	if !ok {
		return nil
	}
	now := s.clock.Now()
	out := make([]EntryState, 0, len(c.entries))
	for _, e := range c.entries {
		s.expireLocked(e, now)
		out = append(out, e.state())
	}
	return out
}

// ConnectionIDs lists the registered connections, sorted.
func (s *Sim) ConnectionIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.conns))
	for id := range s.conns {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func (s *Sim) lookupLocked(connectionID, id string) (*entry, error) {
	c, ok := s.conns[connectionID]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownConnection, connectionID)
	}
	e, ok := c.byID[id]
	if !ok {
		return nil, fmt.Errorf("%w: no entry %q", ErrInvalid, id)
	}
	return e, nil
}

func (e *entry) state() EntryState {
	return EntryState{
		ConnectionID: e.conn, DeliveryAttemptID: e.id, InterchangeID: e.interchangeID,
		MessageType: e.messageType, Size: int64(len(e.payload)), Status: e.status,
		Attempts: e.attempts, LeaseExpiresAt: e.leaseExpiresAt, ReceiptID: e.receiptID,
		AcknowledgedAt: e.acknowledgedAt, PayloadReads: e.reads, CreatedAt: e.createdAt, DueAt: e.dueAt,
	}
}

// expireLocked applies lease expiry lazily: a claimed entry whose lease has
// run out becomes due again, or failed once AttemptLimit claims were used.
func (s *Sim) expireLocked(e *entry, now time.Time) {
	if e.status != StatusClaimed || now.Before(e.leaseExpiresAt) {
		return
	}
	e.hasToken = false
	e.tokenHash = [32]byte{}
	ev := AuditEvent{Action: AuditLeaseExpired, ConnectionID: e.conn, DeliveryAttemptID: e.id, Attempt: e.attempts}
	if e.attempts >= AttemptLimit {
		e.status = StatusFailed
		ev.Outcome = StatusFailed
	} else {
		e.status = StatusDue
		ev.Outcome = StatusDue
	}
	s.auditLocked(ev)
}

// visible reports whether the entry has "arrived" in the mailbox.
func (e *entry) visible(now time.Time) bool { return !now.Before(e.dueAt) }
