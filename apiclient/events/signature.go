package events

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SignatureHeader is the name of the webhook signature header.
const SignatureHeader = "X-NB2B-Signature"

// Header parser limits. A real header is about 80 bytes (t, one v1) or 150
// during a rotation (two v1); the limits only stop a hostile input from
// costing work.
const (
	maxHeaderLen  = 4096
	maxSignatures = 16
	maxTDigits    = 18 // fits int64
)

// ErrMalformedHeader matches every error of ParseSignatureHeader.
var ErrMalformedHeader = errors.New("malformed " + SignatureHeader + " header")

// HeaderError says what is wrong with a signature header. Its text quotes
// no header content beyond the name of an element or of another header
// (letters, digits, '_' and '-', at most 40 bytes), which is never secret
// (a header carries only a timestamp and HMACs).
type HeaderError struct {
	Reason string
}

func (e *HeaderError) Error() string { return ErrMalformedHeader.Error() + ": " + e.Reason }

// Unwrap makes errors.Is(err, ErrMalformedHeader) true.
func (e *HeaderError) Unwrap() error { return ErrMalformedHeader }

func malformed(format string, a ...any) error {
	return &HeaderError{Reason: fmt.Sprintf(format, a...)}
}

// Signature is a parsed X-NB2B-Signature header value.
type Signature struct {
	// T is the timestamp exactly as written; the HMAC covers these bytes.
	T string `json:"t"`
	// Timestamp is T in Unix seconds.
	Timestamp int64 `json:"timestamp"`
	// V1 holds the decoded v1 HMACs, 32 bytes each, in header order. More
	// than one appears while the sender rotates its secret.
	V1 [][sha256.Size]byte `json:"-"`
	// Ignored lists the names of elements with an unknown scheme (e.g. v0,
	// v2), which a receiver skips.
	Ignored []string `json:"ignored,omitempty"`
}

// ParseSignatureHeader parses a signature header. s is either the full
// header line ("X-NB2B-Signature: t=…,v1=…", name case-insensitive) or just
// its value. The rules, strict on purpose because the header guards every
// delivery:
//
//   - The value is a comma-separated list of key=value elements. Spaces and
//     tabs around an element are allowed (HTTP optional whitespace); an
//     empty element (",," or a trailing comma) is an error.
//   - Keys are case-sensitive, letters, digits, '_' and '-' only.
//   - t appears exactly once: Unix seconds in decimal, no sign, no leading
//     zero (a sender formatting a number never writes one, and the HMAC is
//     over the digits as written, so a rewritten t must not verify).
//   - v1 appears at least once: exactly 64 hexadecimal digits (an
//     HMAC-SHA256); upper case is accepted. Several v1 are allowed, up to
//     16 elements in all: the sender signs with old and new secret during a
//     rotation, and one match is enough.
//   - Any other key (v0, a future v2, …) is ignored, as webhook receivers
//     usually do so that senders can add schemes, and listed in Ignored.
//     Its value must still be printable ASCII without ',' or '='.
//   - A header line naming another header, control characters, non-ASCII
//     bytes and more than 4096 bytes are errors.
func ParseSignatureHeader(s string) (Signature, error) {
	if len(s) > maxHeaderLen {
		return Signature{}, malformed("longer than %d bytes (%d)", maxHeaderLen, len(s))
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c >= 0x7f {
			return Signature{}, malformed("control or non-ASCII byte 0x%02x at offset %d", c, i)
		}
	}
	v, err := headerValue(s)
	if err != nil {
		return Signature{}, err
	}
	var sig Signature
	seenT := false
	elems := strings.Split(v, ",")
	if len(elems) > maxSignatures+1 {
		return Signature{}, malformed("%d elements; at most %d are allowed", len(elems), maxSignatures+1)
	}
	for i, el := range elems {
		el = strings.Trim(el, " \t")
		key, val, ok := strings.Cut(el, "=")
		switch {
		case el == "":
			return Signature{}, malformed("element %d is empty (a doubled, leading or trailing comma)", i+1)
		case !ok:
			return Signature{}, malformed("element %d has no '=': expected key=value such as t=1700000000", i+1)
		case !isKey(key):
			return Signature{}, malformed("element %d: the key must be letters, digits, '_' or '-'", i+1)
		case strings.ContainsAny(val, "= \t"):
			return Signature{}, malformed("element %d (%s): the value contains '=' or whitespace", i+1, clip(key, 40))
		}
		switch key {
		case "t":
			if seenT {
				return Signature{}, malformed("t appears twice; a header has exactly one timestamp")
			}
			seenT = true
			ts, err := parseT(val)
			if err != nil {
				return Signature{}, err
			}
			sig.T, sig.Timestamp = val, ts
		case "v1":
			mac, err := parseV1(val)
			if err != nil {
				return Signature{}, malformed("v1 number %d: %s", len(sig.V1)+1, err)
			}
			sig.V1 = append(sig.V1, mac)
		default:
			sig.Ignored = append(sig.Ignored, key)
		}
	}
	if !seenT {
		return Signature{}, malformed("no t=<unix seconds> element")
	}
	if len(sig.V1) == 0 {
		return Signature{}, malformed("no v1=<hex HMAC-SHA256> element (unknown schemes are ignored, so nothing is left to verify)")
	}
	return sig, nil
}

// headerValue strips an optional "X-NB2B-Signature:" prefix. A prefix is a
// header name when the text before the first ':' has no '='.
func headerValue(s string) (string, error) {
	name, val, ok := strings.Cut(s, ":")
	if !ok || strings.Contains(name, "=") {
		return strings.Trim(s, " \t"), nil
	}
	name = strings.Trim(name, " \t")
	if !strings.EqualFold(name, SignatureHeader) {
		if !isKey(name) {
			return "", malformed("text before ':' is not a header name")
		}
		return "", malformed("this is a %s header, not %s", clip(name, 40), SignatureHeader)
	}
	return strings.Trim(val, " \t"), nil
}

func isKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func parseT(v string) (int64, error) {
	if v == "" {
		return 0, malformed("t is empty")
	}
	if len(v) > maxTDigits {
		return 0, malformed("t has %d digits; Unix seconds have at most %d", len(v), maxTDigits)
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, malformed("t must be Unix seconds in decimal digits (no sign, fraction or milliseconds suffix)")
		}
	}
	if len(v) > 1 && v[0] == '0' {
		return 0, malformed("t has a leading zero; the signed text is t as written, and senders never write one")
	}
	ts, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, malformed("t is out of range")
	}
	return ts, nil
}

func parseV1(v string) ([sha256.Size]byte, error) {
	var mac [sha256.Size]byte
	if len(v) != hex.EncodedLen(sha256.Size) {
		return mac, fmt.Errorf("%d characters; an HMAC-SHA256 in hex has %d", len(v), hex.EncodedLen(sha256.Size))
	}
	if _, err := hex.Decode(mac[:], []byte(v)); err != nil {
		return mac, errors.New("not hexadecimal")
	}
	return mac, nil
}

// Sign returns the header value "t=<t>,v1=<hex HMAC-SHA256(secret, t.body)>"
// for one secret: what a sender puts in X-NB2B-Signature.
func Sign(s Secret, t int64, body []byte) string {
	ts := strconv.FormatInt(t, 10)
	mac := computeMAC(s, ts, body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac[:])
}

// computeMAC is HMAC-SHA256 over t + "." + body with the secret's bytes as
// the key (no decoding: a "whsec_…" secret is used as written).
func computeMAC(s Secret, t string, body []byte) [sha256.Size]byte {
	h := hmac.New(sha256.New, []byte(s.Reveal()))
	h.Write([]byte(t))
	h.Write([]byte{'.'})
	h.Write(body)
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
