package partnersim

import "time"

// Endpoint names one of the five Partner API calls.
type Endpoint string

// The five endpoints; EndpointUnknown is any other path.
const (
	EndpointInbox       Endpoint = "inbox"
	EndpointList        Endpoint = "list"
	EndpointClaim       Endpoint = "claim"
	EndpointPayload     Endpoint = "payload"
	EndpointAcknowledge Endpoint = "acknowledge"
	EndpointUnknown     Endpoint = "unknown"
)

// RequestRecord is one request as the simulator saw it, for assertions such
// as "no acknowledge was sent". It never holds headers, tokens or bodies.
type RequestRecord struct {
	Time              time.Time // the simulator clock at arrival
	Method            string
	Path              string // URL path without query
	Query             string // raw query (limit, cursor)
	Endpoint          Endpoint
	ConnectionID      string
	DeliveryAttemptID string
	Status            int    // status written; 0 if the connection was cut first
	CorrelationID     string // the client's X-Correlation-ID, "" if none
	BodyBytes         int64  // request body bytes the server read
	Aborted           bool   // the response was cut (reset or dropped)
	FaultInjected     bool   // an EndpointFault matched this request
}

// Audit actions.
const (
	AuditClaim          = "mailbox.claim"
	AuditPayloadOpened  = "payload.opened"
	AuditPayloadDone    = "payload.completed" // Outcome "verified" or "failed"
	AuditAcknowledge    = "mailbox.acknowledge"
	AuditLeaseExpired   = "lease.expired" // Outcome: the new status (due or failed)
	AuditUpload         = "inbox.upload"  // Outcome "accepted", "replay", "conflict"
	AuditAnswerEnqueued = "mailbox.enqueued"
)

// AuditEvent is one audit-log record. Like the real service it never holds
// a payload, a hash, a claim token or a secret: only ids and outcomes.
type AuditEvent struct {
	Time              time.Time
	Action            string
	Tenant            string
	ConnectionID      string
	KeyID             string
	DeliveryAttemptID string
	UploadID          string
	Attempt           int
	Outcome           string
}

// Requests returns a copy of the request log.
func (s *Sim) Requests() []RequestRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RequestRecord(nil), s.requests...)
}

// RequestCount counts logged requests to ep; a non-empty deliveryAttemptID
// narrows it to that entry.
func (s *Sim) RequestCount(ep Endpoint, deliveryAttemptID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if r.Endpoint == ep && (deliveryAttemptID == "" || r.DeliveryAttemptID == deliveryAttemptID) {
			n++
		}
	}
	return n
}

// Audit returns a copy of the audit log.
func (s *Sim) Audit() []AuditEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]AuditEvent(nil), s.audit...)
}

// ResetLogs empties the request and audit logs (state is kept).
func (s *Sim) ResetLogs() {
	s.mu.Lock()
	s.requests, s.audit = nil, nil
	s.mu.Unlock()
}

func (s *Sim) auditLocked(ev AuditEvent) {
	if ev.Time.IsZero() {
		ev.Time = s.clock.Now()
	}
	if ev.Tenant == "" {
		if c, ok := s.conns[ev.ConnectionID]; ok {
			ev.Tenant = c.Tenant
		}
	}
	s.audit = append(s.audit, ev)
}

func (s *Sim) auditEvent(ev AuditEvent) {
	s.mu.Lock()
	s.auditLocked(ev)
	s.mu.Unlock()
}
