package partnersim

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"mime"
	"net/http"
	"time"
)

// Upload is an accepted inbox upload, for inspection and for responders.
type Upload struct {
	ID             string
	ConnectionID   string
	Tenant         string
	KeyID          string
	IdempotencyKey string
	InterchangeID  string // "" when the body held no UNB
	Status         string
	Size           int64
	SHA256         string
	Payload        []byte // the bytes exactly as received
	ReceivedAt     time.Time
}

type upload struct {
	Upload
	sum [32]byte
}

type uploadBody struct {
	UploadID      string `json:"uploadId"`
	InterchangeID string `json:"interchangeId,omitempty"`
	Status        string `json:"status"`
	Replay        bool   `json:"replay"`
}

// UploadStatusAccepted is the status of a stored upload.
const UploadStatusAccepted = "accepted"

// validIdempotencyKey: 1 to 200 characters from [A-Za-z0-9._:-].
func validIdempotencyKey(k string) bool {
	if len(k) == 0 || len(k) > 200 {
		return false
	}
	for i := 0; i < len(k); i++ {
		b := k[i]
		ok := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' ||
			b == '.' || b == '_' || b == ':' || b == '-'
		if !ok {
			return false
		}
	}
	return true
}

func validContentType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/edifact" || mt == "application/octet-stream")
}

// handleInbox answers POST /inbox: validate, read at most 16 MiB + 1
// bytes, then store (202), replay (200) or refuse (409/413/400).
func (s *Sim) handleInbox(c *call) {
	if !validContentType(c.r.Header.Get("Content-Type")) {
		writeError(c.w, http.StatusBadRequest, "Content-Type must be application/edifact or application/octet-stream.")
		return
	}
	key := c.r.Header.Get("Idempotency-Key")
	if !validIdempotencyKey(key) {
		writeError(c.w, http.StatusBadRequest, "Idempotency-Key is required: 1 to 200 characters from A-Z a-z 0-9 . _ : -")
		return
	}
	if c.r.ContentLength > MaxPayloadSize {
		tooLarge(c.w)
		return
	}
	body, ok := readLimited(c)
	if !ok {
		return
	}
	sum := sha256.Sum256(body)
	s.mu.Lock()
	conn := s.conns[c.rt.conn]
	if prev, ok := conn.uploads[key]; ok {
		s.mu.Unlock()
		s.answerRepeat(c, prev, sum)
		return
	}
	now := s.clock.Now()
	up := &upload{sum: sum, Upload: Upload{
		ID: newUUID(), ConnectionID: conn.ID, Tenant: conn.Tenant, KeyID: c.who.keyID,
		IdempotencyKey: key, Status: UploadStatusAccepted, Size: int64(len(body)),
		SHA256: hex.EncodeToString(sum[:]), Payload: body, ReceivedAt: now,
	}}
	if hasUNB(body) {
		up.InterchangeID = newUUID()
	}
	conn.uploads[key] = up
	conn.upOrder = append(conn.upOrder, up)
	s.auditLocked(AuditEvent{Action: AuditUpload, ConnectionID: conn.ID, KeyID: c.who.keyID,
		UploadID: up.ID, Outcome: UploadStatusAccepted})
	responder, delay := s.responder, s.responseDelay
	s.mu.Unlock()

	if responder != nil {
		s.enqueueReplies(conn.ID, up.ID, now, delay, responder.Respond(up.Upload))
	}
	c.respond(http.StatusAccepted, uploadBody{UploadID: up.ID, InterchangeID: up.InterchangeID, Status: up.Status})
}

// answerRepeat handles a key seen before: the same bytes replay the stored
// answer; other bytes conflict.
func (s *Sim) answerRepeat(c *call, prev *upload, sum [32]byte) {
	outcome := "replay"
	if prev.sum != sum {
		outcome = "conflict"
	}
	s.auditEvent(AuditEvent{Action: AuditUpload, ConnectionID: prev.ConnectionID, KeyID: c.who.keyID,
		UploadID: prev.ID, Outcome: outcome})
	if outcome == "conflict" {
		writeError(c.w, http.StatusConflict, "Idempotency-Key was already used for a different payload. Use a new key for changed content.")
		return
	}
	c.respond(http.StatusOK, uploadBody{UploadID: prev.ID, InterchangeID: prev.InterchangeID, Status: prev.Status, Replay: true})
}

// readLimited reads the body but never more than MaxPayloadSize+1 bytes:
// one byte past the limit proves the body is too large, and the rest is
// never read (the connection is closed instead).
func readLimited(c *call) ([]byte, bool) {
	var buf bytes.Buffer
	if n := c.r.ContentLength; n > 0 {
		buf.Grow(int(n))
	}
	n, err := buf.ReadFrom(io.LimitReader(c.r.Body, MaxPayloadSize+1))
	switch {
	case err != nil:
		writeError(c.w, http.StatusBadRequest, "The request body could not be read completely.")
		return nil, false
	case n > MaxPayloadSize:
		tooLarge(c.w)
		return nil, false
	case n == 0:
		writeError(c.w, http.StatusBadRequest, "The body must be exactly one EDIFACT interchange; it is empty.")
		return nil, false
	}
	return buf.Bytes(), true
}

// tooLarge answers 413 and closes the connection so an HTTP/1 client stops
// sending the rest of an oversized body.
func tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	writeError(w, http.StatusRequestEntityTooLarge, "")
}

// hasUNB reports whether an interchange header starts within the first
// bytes (after an optional UNA, BOM or whitespace).
func hasUNB(b []byte) bool {
	head := b[:min(len(b), 512)]
	return bytes.Contains(head, []byte("UNB"))
}

// Uploads returns the accepted uploads of a connection in arrival order.
func (s *Sim) Uploads(connectionID string) []Upload {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.conns[connectionID]
	if !ok {
		return nil
	}
	out := make([]Upload, 0, len(c.upOrder))
	for _, u := range c.upOrder {
		out = append(out, u.Upload)
	}
	return out
}
