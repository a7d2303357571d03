package apiclient

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
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
	// ServerDate is the claim answer's Date header: the server's clock
	// when it answered (zero when missing or unreadable). ExpiresAt is on
	// that clock, so the lease left is ExpiresAt − ServerDate, whatever
	// this machine's clock says.
	ServerDate time.Time
}

// Claim leases one delivery for five minutes.
//
// Claim is never repeated after an unclear network failure (a reset or
// timeout after the request was sent): the first claim may have succeeded,
// and a second claim during the active lease would be a conflict — or,
// worse, the token of the first would be lost while its lease blocks the
// entry. Claim is retried only when the server certainly did not act: a
// 503 or 429 answer, or a connection that was never established. After an
// unclear failure the caller re-reads the mailbox later; the lease expires
// and the entry comes back.
func (c *Client) Claim(ctx context.Context, deliveryAttemptID string) (*Claim, error) {
	if err := checkID("delivery attempt ID", deliveryAttemptID); err != nil {
		return nil, fmt.Errorf("claim: %w: %w", ErrInvalidRequest, err)
	}
	cl := &call{op: "claim", scope: ScopeMailboxClaim, method: http.MethodPost,
		url: c.endpoint(nil, "mailbox", deliveryAttemptID, "claim"), deliveryID: deliveryAttemptID,
		corr: correlationFor(ctx), mode: retryCertain}
	resp, err := c.do(ctx, cl)
	if err != nil {
		return nil, err
	}
	var body struct {
		DeliveryAttemptID string    `json:"deliveryAttemptId"`
		ClaimToken        *string   `json:"claimToken"`
		ExpiresAt         time.Time `json:"expiresAt"`
	}
	if err := c.decodeJSON(cl, resp, &body); err != nil {
		return nil, err
	}
	switch {
	case body.ClaimToken == nil || !headerSafe(*body.ClaimToken):
		return nil, garbage(cl, resp, "claim answer has no usable claimToken")
	case body.DeliveryAttemptID != deliveryAttemptID:
		return nil, garbage(cl, resp, "claim answer is for another delivery attempt")
	case body.ExpiresAt.IsZero():
		return nil, garbage(cl, resp, "claim answer has no expiresAt")
	}
	date, _ := http.ParseTime(resp.Header.Get("Date"))
	return &Claim{DeliveryAttemptID: deliveryAttemptID, Token: NewClaimToken(*body.ClaimToken),
		ExpiresAt: body.ExpiresAt, CorrelationID: cl.corr, ServerDate: date}, nil
}

// tokenFor checks a claim before its token is used.
func tokenFor(op string, claim *Claim) (*ClaimToken, error) {
	if claim == nil || claim.Token.IsZero() {
		return nil, fmt.Errorf("%s: no claim token: claim the delivery first", op)
	}
	if err := checkID("delivery attempt ID", claim.DeliveryAttemptID); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return &claim.Token, nil
}
