package apiclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// ClaimToken is the lease token of a claim. It lives only in memory and
// redacts in every formatting path; the raw value is only put into the
// X-B2B-Claim-Token header of the payload and acknowledge requests.
type ClaimToken struct {
	v secret.Value
}

// NewClaimToken wraps a raw token (for tests and simulators; the client
// gets tokens from Claim).
func NewClaimToken(raw string) ClaimToken { return ClaimToken{v: secret.New(raw)} }

// IsZero reports whether the token is empty.
func (t ClaimToken) IsZero() bool { return t.v.IsZero() }

// String redacts.
func (t ClaimToken) String() string { return secret.Redacted }

// GoString redacts (%#v).
func (t ClaimToken) GoString() string { return "apiclient.ClaimToken(" + secret.Redacted + ")" }

// Format redacts for every verb.
func (t ClaimToken) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = f.Write([]byte(t.GoString()))
		return
	}
	_, _ = f.Write([]byte(secret.Redacted))
}

// MarshalJSON redacts.
func (t ClaimToken) MarshalJSON() ([]byte, error) { return []byte(`"` + secret.Redacted + `"`), nil }

// MarshalText redacts.
func (t ClaimToken) MarshalText() ([]byte, error) { return []byte(secret.Redacted), nil }

// LogValue redacts in log/slog.
func (t ClaimToken) LogValue() slog.Value { return slog.StringValue(secret.Redacted) }

// Claim is an active lease on one delivery attempt.
type Claim struct {
	DeliveryAttemptID string
	Token             ClaimToken
	ExpiresAt         time.Time
	CorrelationID     string
}

// Claim leases one delivery for five minutes. It is never retried after an
// unclear network failure: the first claim may have succeeded, and a
// second claim during the active lease is a conflict. It is retried only
// when the server certainly did not act (503, 429, connection refused).
func (c *Client) Claim(ctx context.Context, deliveryAttemptID string) (*Claim, error) {
	return nil, errors.New("not implemented")
}
