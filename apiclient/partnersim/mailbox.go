package partnersim

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"sort"
	"strconv"
	"time"
)

type listEntry struct {
	DeliveryAttemptID string `json:"deliveryAttemptId"`
	InterchangeID     string `json:"interchangeId"`
	MessageType       string `json:"messageType"`
	PayloadSize       *int64 `json:"payloadSize,omitempty"` // nil only under OmitListingSize
	PayloadSHA256     string `json:"payloadSha256"`
	Status            string `json:"status"`
	CreatedAt         string `json:"createdAt"`
}

type listMeta struct {
	HasMore    bool   `json:"hasMore"`
	NextCursor string `json:"nextCursor"`
}

type listBody struct {
	Data []listEntry `json:"data"`
	Meta listMeta    `json:"meta"`
}

// rfc3339 formats times the contract's way: RFC 3339 in UTC.
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// handleList answers GET /mailbox: due, unclaimed, visible entries in
// order, after the cursor's position (see pageCursor for the faults).
func (s *Sim) handleList(c *call) {
	q := c.r.URL.Query()
	limit := DefaultListLimit
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || len(v) != 1 || n < 1 || n > MaxListLimit {
			writeError(c.w, http.StatusBadRequest, "limit must be a whole number from 1 to 100.")
			return
		}
		limit = n
	}
	var pos int64
	if v := q.Get("cursor"); v != "" || len(q["cursor"]) > 1 {
		p, ok := s.openCursor(c.rt.conn, v)
		if !ok || len(q["cursor"]) != 1 {
			writeError(c.w, http.StatusBadRequest, "cursor was not issued by this server; send meta.nextCursor unchanged.")
			return
		}
		pos = p
	}
	page, after := pos>>cursorPageShift, pos&(1<<cursorPageShift-1)
	s.mu.Lock()
	data, last, more := s.listLocked(s.conns[c.rt.conn], after, limit)
	body := listBody{Data: data}
	switch c.fault.Paging {
	case PagingEndless:
		if !more {
			last = 0 // round again from the start
		}
		body.Meta = listMeta{HasMore: true, NextCursor: s.makeCursor(c.rt.conn, (page+1)<<cursorPageShift|last)}
	case PagingRepeatCursor:
		body.Meta = listMeta{HasMore: true, NextCursor: s.makeCursor(c.rt.conn, 0)}
	case PagingNoCursor:
		body.Meta = listMeta{HasMore: true}
	default:
		if more {
			body.Meta = listMeta{HasMore: true, NextCursor: s.makeCursor(c.rt.conn, last)}
		}
	}
	s.mu.Unlock()
	c.respond(http.StatusOK, body)
}

// listLocked lists up to limit due, visible entries after sequence after;
// last is the sequence of the last one listed and more whether another
// one follows.
func (s *Sim) listLocked(conn *connection, after int64, limit int) (data []listEntry, last int64, more bool) {
	now := s.clock.Now()
	data = make([]listEntry, 0, min(limit, len(conn.entries)))
	// Entries are in ascending sequence: skip to the cursor's position.
	first := sort.Search(len(conn.entries), func(i int) bool { return conn.entries[i].seq > after })
	for _, e := range conn.entries[first:] {
		s.expireLocked(e, now)
		if e.status != StatusDue || !e.visible(now) {
			continue
		}
		if len(data) == limit {
			return data, last, true
		}
		data = append(data, e.listing())
		last = e.seq
	}
	return data, last, false
}

func (e *entry) listing() listEntry {
	size := int64(len(e.payload))
	le := listEntry{
		DeliveryAttemptID: e.id, InterchangeID: e.interchangeID, MessageType: e.messageType,
		PayloadSize: &size, PayloadSHA256: e.sha, Status: e.status,
		CreatedAt: rfc3339(e.createdAt),
	}
	switch {
	case e.fault.OmitListingSize:
		le.PayloadSize = nil
	case e.fault.AnnounceSize != 0:
		size = e.fault.AnnounceSize
	case e.fault.WrongListingSize:
		size++
	}
	switch {
	case e.fault.MalformedListingHash:
		le.PayloadSHA256 = "zz" + e.sha[2:]
	case e.fault.WrongListingHash:
		le.PayloadSHA256 = flipLastHex(e.sha)
	}
	return le
}

// flipLastHex changes the last hex digit, giving a well-formed but wrong
// hash.
func flipLastHex(h string) string {
	if h == "" {
		return h
	}
	last := h[len(h)-1]
	repl := byte('0')
	if last == '0' {
		repl = '1'
	}
	return h[:len(h)-1] + string(repl)
}

// Cursors are "after sequence N" positions, authenticated with an HMAC over
// the connection and N: opaque, stable while earlier entries are claimed,
// bound to their connection, and unforgeable (a cursor the server did not
// issue fails the MAC and gets 400). Under PagingEndless the bits from
// cursorPageShift up count pages, so every cursor is new.
const (
	cursorMACLen    = 12
	cursorPageShift = 40
)

func (s *Sim) makeCursor(conn string, seq int64) string {
	buf := make([]byte, 8, 8+cursorMACLen)
	binary.BigEndian.PutUint64(buf, uint64(seq))
	buf = append(buf, s.cursorMAC(conn, buf)...)
	return base64.RawURLEncoding.EncodeToString(buf)
}

func (s *Sim) openCursor(conn, cur string) (int64, bool) {
	buf, err := base64.RawURLEncoding.DecodeString(cur)
	if err != nil || len(buf) != 8+cursorMACLen {
		return 0, false
	}
	if subtle.ConstantTimeCompare(buf[8:], s.cursorMAC(conn, buf[:8])) != 1 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(buf[:8])), true
}

func (s *Sim) cursorMAC(conn string, pos []byte) []byte {
	m := hmac.New(sha256.New, s.cursorKey[:])
	m.Write([]byte(conn))
	m.Write([]byte{0})
	m.Write(pos)
	return m.Sum(nil)[:cursorMACLen]
}

type claimBody struct {
	DeliveryAttemptID string `json:"deliveryAttemptId"`
	ClaimToken        string `json:"claimToken"`
	ExpiresAt         string `json:"expiresAt"`
}

// handleClaim answers POST /mailbox/{id}/claim.
func (s *Sim) handleClaim(c *call) {
	e, now := s.entryLocked(c, true)
	if e == nil {
		return
	}
	if e.status != StatusDue {
		s.mu.Unlock()
		writeError(c.w, http.StatusConflict, "The entry is claimed or no longer due. Re-read the mailbox.")
		return
	}
	token := s.newToken()
	e.status = StatusClaimed
	e.attempts++
	e.tokenHash = sha256.Sum256([]byte(token))
	e.hasToken = true
	e.leaseExpiresAt = now.Add(LeaseDuration)
	s.auditLocked(AuditEvent{Action: AuditClaim, ConnectionID: e.conn, KeyID: c.who.keyID,
		DeliveryAttemptID: e.id, Attempt: e.attempts, Outcome: StatusClaimed})
	announced := e.leaseExpiresAt
	if c.fault.LeaseAnnounced != 0 {
		announced = now.Add(c.fault.LeaseAnnounced)
	}
	body := claimBody{DeliveryAttemptID: e.id, ClaimToken: token, ExpiresAt: rfc3339(announced)}
	s.mu.Unlock()
	c.respond(http.StatusOK, body)
}

// tokenMatchesLocked reports whether the request's claim token is the
// entry's current one.
func tokenMatchesLocked(e *entry, r *http.Request) bool {
	tok := r.Header.Get("X-B2B-Claim-Token")
	if tok == "" || !e.hasToken {
		return false
	}
	sum := sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(sum[:], e.tokenHash[:]) == 1
}

type ackBody struct {
	DeliveryAttemptID string `json:"deliveryAttemptId"`
	ReceiptID         string `json:"receiptId"`
	AcknowledgedAt    string `json:"acknowledgedAt"`
	Replay            bool   `json:"replay"`
}

// handleAcknowledge answers POST /mailbox/{id}/acknowledge: the first ack
// with the current token records a receipt; a repeat with the same token
// returns that receipt with replay true.
func (s *Sim) handleAcknowledge(c *call) {
	e, now := s.entryLocked(c, false)
	if e == nil {
		return
	}
	if !tokenMatchesLocked(e, c.r) || (e.status != StatusClaimed && e.status != StatusAcknowledged) {
		s.mu.Unlock()
		writeError(c.w, http.StatusNotFound, "")
		return
	}
	replay := e.status == StatusAcknowledged
	if !replay {
		e.status = StatusAcknowledged
		e.receiptID = s.newReceipt()
		e.acknowledgedAt = now
	}
	outcome := StatusAcknowledged
	if replay {
		outcome = "replay"
	}
	s.auditLocked(AuditEvent{Action: AuditAcknowledge, ConnectionID: e.conn, KeyID: c.who.keyID,
		DeliveryAttemptID: e.id, Attempt: e.attempts, Outcome: outcome})
	body := ackBody{DeliveryAttemptID: e.id, ReceiptID: e.receiptID, AcknowledgedAt: rfc3339(e.acknowledgedAt), Replay: replay}
	s.mu.Unlock()
	c.respond(http.StatusOK, body)
}

// entryLocked takes s.mu and finds the call's entry, its lease expired
// as of now (visible: only an entry the list shows now). When there is
// none it answers 404, releases the lock and returns nil.
func (s *Sim) entryLocked(c *call, visible bool) (*entry, time.Time) {
	s.mu.Lock()
	now := s.clock.Now()
	e := s.conns[c.rt.conn].byID[c.rt.entry]
	if e == nil || (visible && !e.visible(now)) {
		s.mu.Unlock()
		writeError(c.w, http.StatusNotFound, "")
		return nil, now
	}
	s.expireLocked(e, now)
	return e, now
}
