package apiclient

import (
	"errors"
	"time"
)

// Stable error codes of the contract.
const (
	CodeInvalidRequest  = "ERR_B2B_EXCHANGE_INVALID_REQUEST"
	CodeNotFound        = "ERR_B2B_EXCHANGE_NOT_FOUND"
	CodeConflict        = "ERR_B2B_EXCHANGE_CONFLICT"
	CodePayloadTooLarge = "ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE"
	CodeUnavailable     = "ERR_B2B_EXCHANGE_UNAVAILABLE"
	CodeInternal        = "ERR_B2B_EXCHANGE_INTERNAL"
)

// Sentinels for errors.Is. An *APIError matches the sentinel of its code,
// or of its HTTP status when the code is unknown.
var (
	ErrInvalidRequest  = errors.New("invalid request")
	ErrNotFound        = errors.New("not found")
	ErrConflict        = errors.New("conflict")
	ErrPayloadTooLarge = errors.New("payload too large")
	ErrUnavailable     = errors.New("service unavailable")
	ErrRateLimited     = errors.New("rate limited")
	ErrInternal        = errors.New("internal server error")
	// ErrIntegrity matches every *IntegrityError.
	ErrIntegrity = errors.New("payload integrity check failed")
	// ErrInvalidKey is returned for an Idempotency-Key the contract does
	// not allow.
	ErrInvalidKey = errors.New("invalid idempotency key")
)

// APIError is an error answer of the Partner API.
type APIError struct {
	Op         string // operation, e.g. "claim"
	HTTPStatus int
	Code       string // stable code; may be empty or unknown
	// Message is the server's text, raw and untrusted: sanitise it before
	// showing it (Error does).
	Message string
	// Action is what the operator should do, from the contract's table.
	Action        string
	RetryAfter    time.Duration // 0 when absent
	CorrelationID string
}

// Error is terminal-safe and length-capped.
func (e *APIError) Error() string { return "not implemented" }

// NetworkError is a failure without an HTTP answer (connection refused,
// reset, timeout, broken stream).
type NetworkError struct {
	Op            string
	CorrelationID string
	// Unclear is true when the request may have reached the server, so it
	// may have acted on it.
	Unclear bool
	Err     error
}

// Error is terminal-safe.
func (e *NetworkError) Error() string { return "not implemented" }

// Unwrap gives the underlying error.
func (e *NetworkError) Unwrap() error { return e.Err }

// IntegrityError reports a failed payload download: a read error, a sink
// error, or any failed check. The report is complete.
type IntegrityError struct {
	Report *IntegrityReport
}

// Error names every failed check.
func (e *IntegrityError) Error() string { return "not implemented" }
