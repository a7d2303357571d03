package events

import (
	"crypto/hmac"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/internal/human"
)

// Secret is a webhook signing secret. Its bytes are the HMAC key as given;
// every formatting path redacts it.
type Secret = secret.Value

// DefaultTolerance is how far a signature's timestamp may be from the
// receiver's clock, either way, before the delivery is rejected (NB-E008).
// Exactly 300 s is still accepted.
const DefaultTolerance = 300 * time.Second

// Platform error codes the receiver answers with.
const (
	NBDuplicate  = "NB-E005" // repeat of a processed idempotency key: DUPLICATE plus the original result
	NBParked     = "NB-E006" // out of order: parked until the gap fills
	NBSignature  = "NB-E008" // webhook signature or timestamp rejected
	NBRateLimit  = "NB-E012" // over 100 events/s: retry after Retry-After
	maxSecretLen = 4096
)

// macEqual compares an expected HMAC with a received one. It is
// hmac.Equal (constant time); a variable so that a test can prove every
// comparison goes through it.
var macEqual = hmac.Equal

// ErrNoSecret means Verify was given no usable secret.
var ErrNoSecret = errors.New("no webhook secret given")

// Reason says why a signature was rejected.
type Reason string

// Rejection reasons; the zero Reason means valid.
const (
	ReasonOK        Reason = ""
	ReasonMalformed Reason = "malformed_header" // the header could not be parsed
	ReasonMismatch  Reason = "signature_mismatch"
	ReasonSkew      Reason = "timestamp_skew"
)

// Result is the verdict on one signed delivery. It never holds a secret.
type Result struct {
	// Valid is true when a v1 matches and the timestamp is within the
	// tolerance.
	Valid bool `json:"valid"`
	// Code is NB-E008 when the delivery is rejected, else empty.
	Code string `json:"code,omitempty"`
	// Reasons lists every failed check (both may fail), first the one a
	// receiver reports.
	Reasons []Reason `json:"reasons,omitempty"`
	// HeaderError is why the header could not be parsed.
	HeaderError string `json:"headerError,omitempty"`
	// Signature is the parsed header (zero when malformed).
	Signature Signature `json:"signature"`
	// SignatureOK is true when one v1 equals the HMAC under one secret.
	SignatureOK bool `json:"signatureOk"`
	// MatchedV1 and MatchedSecret are the 1-based positions of the matching
	// v1 element and secret (0 when none matched).
	MatchedV1     int `json:"matchedV1,omitempty"`
	MatchedSecret int `json:"matchedSecret,omitempty"`
	// Secrets is how many secrets were tried.
	Secrets int `json:"secrets"`
	// TimestampChecked is false when no clock was given (see VerifyAt).
	TimestampChecked bool `json:"timestampChecked"`
	// TimestampOK is true when |SkewSeconds| <= ToleranceSeconds.
	TimestampOK bool `json:"timestampOk"`
	// Skew is now minus the signature time, both in whole Unix seconds:
	// positive when the signature is older than the clock, negative when
	// it is from the future (saturated beyond the range of a Duration).
	Skew      time.Duration `json:"-"`
	Tolerance time.Duration `json:"-"`
	// SkewSeconds and ToleranceSeconds are Skew and Tolerance in whole
	// seconds, for JSON.
	SkewSeconds      int64 `json:"skewSeconds"`
	ToleranceSeconds int64 `json:"toleranceSeconds"`
}

// Verify checks a signature header against the exact raw body with the
// receiver's secrets (several during a rotation) and its clock now. A
// malformed header, no matching v1 or a timestamp more than
// DefaultTolerance from now make the Result invalid with Code NB-E008. The
// error is only for a call that cannot be checked at all (ErrNoSecret).
// Every comparison is constant-time (hmac.Equal) and every secret is tried
// against every v1.
func Verify(header string, body []byte, secrets []Secret, now time.Time) (Result, error) {
	return VerifyAt(header, body, secrets, now, DefaultTolerance)
}

// VerifyAt is Verify with a tolerance; a zero now skips the timestamp
// check (TimestampChecked false; a captured delivery read long after it
// arrived). now and the tolerance count in whole seconds, like t (now is
// truncated to its Unix second). A tolerance <= 0 means DefaultTolerance.
func VerifyAt(header string, body []byte, secrets []Secret, now time.Time, tolerance time.Duration) (Result, error) {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	if err := checkSecrets(secrets); err != nil {
		return Result{}, err
	}
	r := Result{Tolerance: tolerance, ToleranceSeconds: int64(tolerance / time.Second), Secrets: len(secrets)}
	sig, err := ParseSignatureHeader(header)
	if err != nil {
		r.HeaderError = err.Error()
		r.Reasons = []Reason{ReasonMalformed}
		r.Code = NBSignature
		return r, nil
	}
	r.Signature = sig
	// Every secret against every v1, without stopping at a match, and each
	// comparison in constant time: how long Verify takes says nothing
	// about how much of a forged v1 was right or which one matched.
	for si, s := range secrets {
		want := computeMAC(s, sig.T, body)
		for vi, got := range sig.V1 {
			if macEqual(want[:], got[:]) && !r.SignatureOK {
				r.SignatureOK, r.MatchedSecret, r.MatchedV1 = true, si+1, vi+1
			}
		}
	}
	if !r.SignatureOK {
		r.Reasons = append(r.Reasons, ReasonMismatch)
	}
	if !now.IsZero() {
		// The clock is read in whole Unix seconds, as t is written (and as
		// --now and a Date header are): the skew judged is the skew shown,
		// so a clock 300.5 s after t is 300 s, not "300 s, more than 300".
		r.TimestampChecked = true
		r.SkewSeconds = now.Unix() - sig.Timestamp // both fit in int64 with room: no overflow
		r.Skew = secondsDuration(r.SkewSeconds)
		tol := int64(tolerance / time.Second)
		r.TimestampOK = r.SkewSeconds <= tol && r.SkewSeconds >= -tol
		if !r.TimestampOK {
			r.Reasons = append(r.Reasons, ReasonSkew)
		}
	}
	r.Valid = len(r.Reasons) == 0
	if !r.Valid {
		r.Code = NBSignature
	}
	return r, nil
}

// secondsDuration is n seconds as a Duration, saturated at its range (a
// t of 18 digits is centuries away).
func secondsDuration(n int64) time.Duration {
	const limit = int64(math.MaxInt64 / int64(time.Second))
	switch {
	case n > limit:
		return math.MaxInt64
	case n < -limit:
		return math.MinInt64
	}
	return time.Duration(n) * time.Second
}

func checkSecrets(secrets []Secret) error {
	if len(secrets) == 0 {
		return ErrNoSecret
	}
	for i, s := range secrets {
		if s.IsZero() {
			return fmt.Errorf("webhook secret %d is empty: %w", i+1, ErrNoSecret)
		}
		if s.Len() > maxSecretLen {
			return fmt.Errorf("webhook secret %d has %d bytes, more than %d: that is not a webhook secret", i+1, s.Len(), maxSecretLen)
		}
	}
	return nil
}

// Explain says in one line what the verdict means and what to do. It
// contains no secret and only header content that was parsed as digits.
func (r Result) Explain() string {
	if r.Valid {
		msg := fmt.Sprintf("valid: v1 number %d matches secret %d; t=%s", r.MatchedV1, r.MatchedSecret, r.Signature.T)
		if r.TimestampChecked {
			msg += fmt.Sprintf(", %s (limit ±%ds)", skewText(r.SkewSeconds), int64(r.Tolerance/time.Second))
		}
		return msg
	}
	msg := "invalid (" + NBSignature + "):"
	for _, reason := range r.Reasons {
		switch reason {
		case ReasonMalformed:
			msg += " " + r.HeaderError + "; the sender must send " + SignatureHeader + ": t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + \".\" + raw body)>."
		case ReasonMismatch:
			msg += fmt.Sprintf(" no v1 (%d given) matches the HMAC-SHA256 of t + \".\" + the raw body under the %s; check that the body is byte for byte what was received (no re-encoding, pretty-printing or added newline) and that sender and receiver use the same secret.",
				len(r.Signature.V1), human.Count(r.Secrets, "secret", "secrets"))
		case ReasonSkew:
			msg += fmt.Sprintf(" the timestamp t=%s is %s, more than the ±%ds allowed; check both clocks (NTP), or whether this is a replay of an old delivery.",
				r.Signature.T, skewText(r.SkewSeconds), int64(r.Tolerance/time.Second))
		}
	}
	return msg
}

// skewText shows a skew in seconds as "412s behind the clock" / "35s
// ahead of the clock".
func skewText(s int64) string {
	switch {
	case s > 0:
		return fmt.Sprintf("%ds behind the clock", s)
	case s < 0:
		return fmt.Sprintf("%ds ahead of the clock", -s)
	}
	return "on the clock"
}
