package partnersim

import (
	"bytes"
	"net/http"
	"strconv"
	"time"
)

// Payload stream constants.
const (
	// TrailerIntegrity is the trailer that closes every payload stream.
	TrailerIntegrity = "X-B2B-Payload-Integrity"
	// payloadChunk is the write size between flushes: large enough for
	// loopback throughput, small enough that a client sees steady progress.
	payloadChunk = 128 << 10
)

// handlePayload answers GET /mailbox/{id}/payload for the current claim:
// headers with size and hash, the body in flushed chunks, then the
// integrity trailer. Never a Content-Length.
func (s *Sim) handlePayload(c *call) {
	e, _ := s.entryLocked(c, false)
	if e == nil {
		return
	}
	if e.status != StatusClaimed || !tokenMatchesLocked(e, c.r) {
		s.mu.Unlock()
		writeError(c.w, http.StatusNotFound, "")
		return
	}
	e.reads++
	payload, sha, f := e.payload, e.sha, e.fault
	ev := AuditEvent{ConnectionID: e.conn, KeyID: c.who.keyID, DeliveryAttemptID: e.id, Attempt: e.attempts}
	ev.Action = AuditPayloadOpened
	s.auditLocked(ev)
	s.mu.Unlock()

	if !c.fault.Payload.isZero() {
		f = c.fault.Payload
	}
	verified := false
	// Deferred: on HTTP/2 an abort unwinds with a panic.
	defer func() { s.finishPayload(ev, verified) }()
	if c.fault.DropResponse {
		c.abort()
		return
	}
	verified = s.stream(c, payload, sha, f)
}

func (s *Sim) finishPayload(ev AuditEvent, verified bool) {
	ev.Action, ev.Outcome = AuditPayloadDone, "failed"
	if verified {
		ev.Outcome = "verified"
	}
	ev.Time = time.Time{}
	s.auditEvent(ev)
}

// stream writes the payload per the fault and reports whether the client
// got a complete, honest stream (what the server audits as verified).
func (s *Sim) stream(c *call, payload []byte, sha string, f PayloadFault) bool {
	size := int64(len(payload))
	h := c.w.Header()
	h.Set("Content-Type", "application/edifact")
	h.Set("Cache-Control", "no-store")
	sizeHdr, shaHdr := size, sha
	switch {
	case f.AnnounceSize != 0:
		sizeHdr = f.AnnounceSize
	case f.WrongSizeHeader:
		sizeHdr++
	}
	if f.WrongHashHeader {
		shaHdr = flipLastHex(sha)
	}
	h.Set("X-B2B-Payload-Size", strconv.FormatInt(sizeHdr, 10))
	h.Set("X-B2B-Payload-SHA256", shaHdr)
	if f.Trailer != TrailerAbsent {
		h.Set("Trailer", TrailerIntegrity)
	}
	c.w.WriteHeader(http.StatusOK)
	// Flushing the headers first also guarantees no Content-Length.
	rc := http.NewResponseController(c.w.ResponseWriter)
	if rc.Flush() != nil {
		return false
	}

	end := size
	if f.Truncate && f.TruncateAt < end {
		end = max(f.TruncateAt, 0)
	}
	resetAt := int64(-1)
	if f.Reset {
		resetAt = min(max(f.ResetAt, 0), end)
	}
	rate := f.BytesPerSecond
	if s.throttle > 0 && (rate <= 0 || s.throttle < rate) {
		rate = s.throttle
	}
	if !s.writeBody(c, rc, payload, end, resetAt, rate) {
		return false
	}
	if f.Endless {
		s.writeForever(c, rc, payload, rate)
		return false
	}
	if resetAt >= 0 {
		c.abort()
		return false
	}
	complete := end == size
	var trailer string
	switch f.Trailer {
	case TrailerAuto:
		trailer = "failed"
		if complete {
			trailer = "verified"
		}
	case TrailerVerified:
		trailer = "verified"
	case TrailerFailed:
		trailer = "failed"
	}
	if trailer != "" {
		h.Set(TrailerIntegrity, trailer)
	}
	return complete && trailer == "verified"
}

// writeForever keeps sending the payload (or filler when it is empty)
// until the client stops reading or goes away: a body that never ends.
func (s *Sim) writeForever(c *call, rc *http.ResponseController, payload []byte, bps int64) {
	if len(payload) == 0 {
		payload = bytes.Repeat([]byte("UNA:+.? '"), payloadChunk/9)
	}
	for s.writeBody(c, rc, payload, int64(len(payload)), -1, bps) {
	}
}

// writeBody writes payload[:end] (stopping at resetAt when >= 0) in flushed
// chunks, throttled to bps bytes/s when bps > 0. It reports false when the
// client went away or the request was cancelled.
func (s *Sim) writeBody(c *call, rc *http.ResponseController, payload []byte, end, resetAt, bps int64) bool {
	stop := end
	if resetAt >= 0 {
		stop = resetAt
	}
	chunk := int64(payloadChunk)
	var tick time.Duration
	if bps > 0 {
		// About 20 writes per second keep the rate smooth.
		chunk = max(bps/20, 1)
		tick = time.Duration(float64(time.Second) * float64(chunk) / float64(bps))
	}
	ctx := c.r.Context()
	for off := int64(0); off < stop; {
		n := min(chunk, stop-off)
		if _, err := c.w.Write(payload[off : off+n]); err != nil {
			return false
		}
		if err := rc.Flush(); err != nil {
			return false
		}
		off += n
		if tick > 0 && off < stop && !sleepCtx(ctx, tick) {
			return false
		}
	}
	return true
}
