package partnersim

import "time"

// Reply is one message a Responder sends back into the mailbox.
type Reply struct {
	MessageType string // CONTRL, ORDRSP or APERAK
	Payload     []byte
	// After is added to the simulator's response delay, so a CONTRL can
	// arrive before the ORDRSP.
	After time.Duration
}

// Responder plays the partner: it answers an accepted upload with
// messages that appear in the same connection's mailbox after the
// response delay. Respond must not retain or modify u.Payload.
type Responder interface {
	Respond(u Upload) []Reply
}

// ResponderFunc adapts a function to Responder.
type ResponderFunc func(u Upload) []Reply

// Respond calls f.
func (f ResponderFunc) Respond(u Upload) []Reply { return f(u) }

// enqueueReplies adds the replies as entries due at now+delay+After.
func (s *Sim) enqueueReplies(connID, uploadID string, now time.Time, delay time.Duration, replies []Reply) {
	entries := make([]*entry, len(replies))
	for i, rp := range replies {
		due := now.Add(delay + rp.After)
		entries[i] = newEntry(Delivery{MessageType: rp.MessageType, Payload: rp.Payload, CreatedAt: due, DueAt: due})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, rp := range replies {
		e := entries[i]
		if err := s.addEntryLocked(connID, e); err != nil {
			continue // the connection exists (we hold its upload); ids are fresh UUIDs
		}
		s.auditLocked(AuditEvent{Action: AuditAnswerEnqueued, ConnectionID: connID, UploadID: uploadID,
			DeliveryAttemptID: e.id, Outcome: rp.MessageType})
	}
}
