package apiclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxPayloadSize is the contract's payload limit: 16 MiB.
const MaxPayloadSize = 16 << 20

// MaxKeyLen is the longest Idempotency-Key the contract allows.
const MaxKeyLen = 200

func keyChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
}

// ValidateIdempotencyKey checks the contract's rule: 1..200 characters
// from [A-Za-z0-9._:-]. The error matches ErrInvalidKey and never repeats
// the key's bytes unsanitised.
func ValidateIdempotencyKey(k string) error {
	switch {
	case k == "":
		return fmt.Errorf("%w: the key is empty; pass one or let b2bx generate it", ErrInvalidKey)
	case len(k) > MaxKeyLen:
		return fmt.Errorf("%w: the key has %d characters, at most %d are allowed", ErrInvalidKey, len(k), MaxKeyLen)
	}
	for i := 0; i < len(k); i++ {
		if !keyChar(k[i]) {
			r, _ := utf8.DecodeRuneInString(k[i:])
			return fmt.Errorf("%w: character %U at byte %d is not allowed; use only A-Z a-z 0-9 . _ : -", ErrInvalidKey, r, i)
		}
	}
	return nil
}

// keyEvent is the <event> part of generated keys.
const keyEvent = "orders"

// maxSenderPart bounds the sender so the business id keeps room.
const maxSenderPart = 64

// IdempotencyKey builds "<sender>:<business>:orders:<n>" (CONTRACT.md):
// sender is the UNB sender ID, business the BGM document number (or the
// UNB interchange control reference when the interchange holds several
// ORDERS), n ≥ 1 numbers the distinct payloads for that pair.
//
// Characters outside [A-Za-z0-9._-] in sender and business (':' too, so
// the parts stay separable) become '-'. Because that could map two
// different IDs to one key, any part that had to change — replaced
// characters or truncation to keep the key ≤ 200 — gets a suffix ".h" + 10
// hex digits of SHA-256 over the original sender and business. The result
// is deterministic.
func IdempotencyKey(senderID, businessID string, n int) (string, error) {
	if n < 1 {
		return "", fmt.Errorf("%w: sequence number %d must be ≥ 1", ErrInvalidKey, n)
	}
	s, sChanged := keyPart(senderID)
	b, bChanged := keyPart(businessID)
	if s == "" || b == "" {
		return "", fmt.Errorf("%w: sender ID and business ID must not be empty (check UNB and BGM of the interchange)", ErrInvalidKey)
	}
	suffix := ":" + keyEvent + ":" + strconv.Itoa(n)
	changed := sChanged || bChanged
	if len(s) > maxSenderPart {
		s, changed = s[:maxSenderPart], true
	}
	tag := ""
	if changed || len(s)+1+len(b)+len(suffix) > MaxKeyLen {
		sum := sha256.Sum256([]byte(senderID + "\x00" + businessID))
		tag = ".h" + hex.EncodeToString(sum[:5])
	}
	if room := MaxKeyLen - len(s) - 1 - len(tag) - len(suffix); len(b) > room {
		b = b[:room]
	}
	key := s + ":" + b + tag + suffix
	if err := ValidateIdempotencyKey(key); err != nil {
		return "", err // unreachable by construction; kept as a guard
	}
	return key, nil
}

// keyPart trims s and replaces each disallowed rune by '-'.
func keyPart(s string) (string, bool) {
	t := strings.TrimSpace(s)
	changed := t != s
	var b strings.Builder
	for i := 0; i < len(t); {
		r, size := utf8.DecodeRuneInString(t[i:])
		if size == 1 && r != ':' && keyChar(t[i]) {
			b.WriteByte(t[i])
		} else {
			b.WriteByte('-')
			changed = true
		}
		i += size
	}
	return b.String(), changed
}

// UploadResult is the inbox's answer to an upload.
type UploadResult struct {
	HTTPStatus    int    `json:"httpStatus"` // 202 first upload, 200 replay
	UploadID      string `json:"uploadId"`
	InterchangeID string `json:"interchangeId,omitempty"`
	Status        string `json:"status"`
	Replay        bool   `json:"replay"`
	Key           string `json:"idempotencyKey"`
	CorrelationID string `json:"correlationId"`
	// ServerDate is the answer's Date header: when the server took the
	// upload, on its own clock (zero without one). Answers are dated on
	// that clock, so linking them compares like with like.
	ServerDate time.Time `json:"serverDate,omitzero"`
}

// Upload sends one EDIFACT interchange of size bytes read from body
// (Content-Type application/edifact), streaming it without a copy. Every
// network retry resends the same bytes with the same key, which is what
// makes repeating an unclear upload safe. It refuses an invalid key, an
// empty payload or one over MaxPayloadSize before sending anything.
//
// 202 is a first upload, 200 a replay of a completed one (Replay true);
// 409 (same key, other bytes or state), 413 and 400 are *APIError.
func (c *Client) Upload(ctx context.Context, key string, body io.ReaderAt, size int64) (*UploadResult, error) {
	if err := ValidateIdempotencyKey(key); err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	switch {
	case body == nil || size <= 0:
		return nil, fmt.Errorf("upload: %w: the payload is empty", ErrInvalidRequest)
	case size > MaxPayloadSize:
		return nil, fmt.Errorf("upload: %w: %d bytes exceed the 16 MiB limit (%d bytes); nothing was sent", ErrPayloadTooLarge, size, MaxPayloadSize)
	}
	// A ReaderAt shorter than size would fail mid-send and look like a
	// network error; check the last byte exists before sending anything.
	var last [1]byte
	if n, err := body.ReadAt(last[:], size-1); n != 1 {
		return nil, fmt.Errorf("upload: the payload has fewer than the %d bytes announced: %v", size, err)
	}
	cl := &call{op: "upload", scope: ScopeInboxCreate, method: http.MethodPost, url: c.endpoint(nil, "inbox"),
		header: map[string]string{"Idempotency-Key": key}, contentType: "application/edifact",
		body: func() io.Reader { return io.NewSectionReader(body, 0, size) }, size: size,
		corr: correlationFor(ctx), mode: retryUnclear}
	resp, err := c.do(ctx, cl)
	if err != nil {
		return nil, err
	}
	var rb struct {
		UploadID      string `json:"uploadId"`
		InterchangeID string `json:"interchangeId"`
		Status        string `json:"status"`
		Replay        bool   `json:"replay"`
	}
	if err := c.decodeJSON(cl, resp, &rb); err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK:
		return nil, garbage(cl, resp, "upload answered with status %d", resp.StatusCode)
	case rb.UploadID == "":
		return nil, garbage(cl, resp, "upload answer has no uploadId")
	}
	date, _ := http.ParseTime(resp.Header.Get("Date"))
	return &UploadResult{HTTPStatus: resp.StatusCode, UploadID: rb.UploadID, InterchangeID: rb.InterchangeID,
		Status: rb.Status, Replay: rb.Replay || resp.StatusCode == http.StatusOK, Key: key, CorrelationID: cl.corr,
		ServerDate: date.UTC()}, nil
}
