package spool

// Written is one durable local write, reported to the store's OnWrite
// hook after the write returned (never before): a delivery committed, a
// receipt recorded, an upload record appended, a seen line noted. The
// team store's outbox queues these; what it queues references the files,
// it never copies a payload.
type Written struct {
	Kind WriteKind
	// Root is the store's root, ConnectionID the connection written.
	Root         string
	ConnectionID string
	// Stored is the delivery as stored (WroteDelivery, WroteAck).
	Stored *Stored
	// Upload is the record as appended (WroteUpload).
	Upload *UploadRecord
	// Seen is the line as noted (WroteSeen).
	Seen *SeenRecord
}

// WriteKind says what a Written is.
type WriteKind string

// Kinds of write.
const (
	WroteDelivery WriteKind = "delivery" // a verified payload and its sidecar committed
	WroteAck      WriteKind = "ack"      // a receipt recorded in the sidecar
	WroteUpload   WriteKind = "upload"   // an upload history record appended
	WroteSeen     WriteKind = "seen"     // a seen journal line appended
)

// SetOnWrite installs fn, called after each durable write of this Store
// (nil removes it). fn runs on the writer's goroutine, so it must be
// quick and must not fail the write: the outbox's Enqueue is one append.
// A commit that found the same bytes already stored and a receipt
// recorded again are no writes and are not reported.
func (s *Store) SetOnWrite(fn func(Written)) {
	if fn == nil {
		s.onWrite.Store(nil)
		return
	}
	s.onWrite.Store(&fn)
}

// wrote reports w to the hook, if any.
func (s *Store) wrote(w Written) {
	if fn := s.onWrite.Load(); fn != nil {
		w.Root = s.root
		(*fn)(w)
	}
}
