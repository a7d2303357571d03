package apiclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nutrab2b/b2bx/internal/termsafe"
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
	// ErrUnexpected matches API errors with neither a known code nor a
	// known status, and answers that break the contract (garbage bodies).
	ErrUnexpected = errors.New("unexpected answer")
	// ErrIntegrity matches every *IntegrityError.
	ErrIntegrity = errors.New("payload integrity check failed")
	// ErrInvalidKey is returned for an Idempotency-Key the contract does
	// not allow.
	ErrInvalidKey = errors.New("invalid idempotency key")
)

// contract's error table: code → (status, sentinel, client action).
var codeTable = map[string]struct {
	status   int
	sentinel error
	action   string
}{
	CodeInvalidRequest:  {400, ErrInvalidRequest, "fix the request locally; never repeat it unchanged"},
	CodeNotFound:        {404, ErrNotFound, "check the connection ID, the API key's binding to tenant and connection, its scope for this call, and the claim and its lease; never probe other IDs"},
	CodeConflict:        {409, ErrConflict, "check idempotency or a state change (e.g. an active claim); re-read the mailbox before acting"},
	CodePayloadTooLarge: {413, ErrPayloadTooLarge, "keep the payload at or below 16 MiB"},
	CodeUnavailable:     {503, ErrUnavailable, "retry with backoff; keep the correlation ID and time"},
	CodeInternal:        {500, ErrInternal, "do not guess; tell the operator with the correlation ID"},
}

var statusCodes = map[int]string{400: CodeInvalidRequest, 404: CodeNotFound, 409: CodeConflict, 413: CodePayloadTooLarge, 503: CodeUnavailable, 500: CodeInternal}

// APIError is an error answer of the Partner API.
type APIError struct {
	Op         string // operation, e.g. "claim"
	HTTPStatus int
	Code       string // stable code as sent by the server; may be empty or unknown
	// Message is the server's text, raw and untrusted: sanitise it before
	// showing it (Error does).
	Message string
	// Action is what the operator should do, from the contract's table.
	Action        string
	RetryAfter    time.Duration // 0 when absent
	CorrelationID string
}

// maxMessage caps the server message in Error().
const maxMessage = 200

// Error is terminal-safe and length-capped.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: HTTP %d", e.Op, e.HTTPStatus)
	if e.Code != "" {
		b.WriteString(" " + termsafe.String(capRunes(e.Code, 64)))
	}
	if e.Message != "" {
		b.WriteString(": " + termsafe.String(capRunes(e.Message, maxMessage)))
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	if e.CorrelationID != "" {
		b.WriteString(" [correlation " + e.CorrelationID + "]")
	}
	if e.Action != "" {
		b.WriteString(" — " + e.Action)
	}
	return b.String()
}

// Is matches the sentinel of the code, else of the status.
func (e *APIError) Is(target error) bool { return target == e.sentinel() }

func (e *APIError) sentinel() error {
	if t, ok := codeTable[e.Code]; ok {
		return t.sentinel
	}
	switch {
	case e.HTTPStatus == http.StatusTooManyRequests:
		return ErrRateLimited
	case e.HTTPStatus == http.StatusBadGateway, e.HTTPStatus == http.StatusGatewayTimeout:
		return ErrUnavailable
	}
	if code, ok := statusCodes[e.HTTPStatus]; ok {
		return codeTable[code].sentinel
	}
	return ErrUnexpected
}

// Transient reports whether waiting and retrying may help.
func (e *APIError) Transient() bool {
	s := e.sentinel()
	return s == ErrUnavailable || s == ErrRateLimited
}

func capRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 64 << 10

// readAPIError reads and closes an error answer. Unknown codes and
// non-JSON bodies fall back to the status.
func (c *Client) readAPIError(cl *call, resp *http.Response) *APIError {
	defer resp.Body.Close()
	raw, err := c.readAnswer(resp, maxErrorBody, cl.lease)
	if err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody)) // let the connection be reused
	}
	e := &APIError{Op: cl.op, HTTPStatus: resp.StatusCode, CorrelationID: cl.corr}
	var body struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &body); err == nil && body.Error != nil {
		e.Code, e.Message = body.Error.Code, body.Error.Message
	} else if len(raw) > 0 {
		e.Message = "non-JSON error body: " + capRunes(strings.ToValidUTF8(string(raw), "\uFFFD"), maxMessage)
	}
	e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), c.now())
	e.Action = actionFor(e, cl.scope)
	return e
}

// actionFor picks the contract's client action; a 404 names the scope the
// call needs because key binding and scope are its usual causes.
func actionFor(e *APIError, scope Scope) string {
	code := e.Code
	if _, ok := codeTable[code]; !ok {
		code = statusCodes[e.HTTPStatus]
	}
	switch {
	case code == CodeNotFound:
		return codeTable[code].action + fmt.Sprintf(" (this call needs a key bound to this connection with scope %s)", scope)
	case code != "":
		return codeTable[code].action
	case e.HTTPStatus == http.StatusTooManyRequests:
		return "rate limited by the server; wait for Retry-After and lower the request rate"
	case e.HTTPStatus >= 300 && e.HTTPStatus < 400:
		return "the server answered with a redirect, which the client never follows; check the base URL"
	}
	return "unexpected answer; tell the operator with the correlation ID"
}

// parseRetryAfter accepts delay-seconds or an HTTP date; invalid → 0.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int64(7*24*3600))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, 7*24*time.Hour)
		}
	}
	return 0
}

// NetworkError is a failure without an HTTP answer (connection refused,
// reset, timeout, broken stream) or with an answer that breaks the
// contract.
type NetworkError struct {
	Op            string
	CorrelationID string
	// Unclear is true when the request may have reached the server, so it
	// may have acted on it.
	Unclear bool
	Err     error
}

// Error is terminal-safe.
func (e *NetworkError) Error() string {
	s := e.Op + ": network error"
	if e.Unclear {
		s += " (the server may have received the request)"
	}
	return s + " [correlation " + e.CorrelationID + "]: " + termsafe.String(capRunes(e.Err.Error(), 300))
}

// Unwrap gives the underlying error.
func (e *NetworkError) Unwrap() error { return e.Err }

// IntegrityError reports a failed payload download: a read error, a sink
// error, or any failed check. The report is complete.
type IntegrityError struct {
	Report *IntegrityReport
}

// Error names every failed check.
func (e *IntegrityError) Error() string {
	r := e.Report
	var parts []string
	if r.ReadErr != nil {
		parts = append(parts, "read failed: "+termsafe.String(capRunes(r.ReadErr.Error(), 200)))
	}
	if r.SinkErr != nil {
		parts = append(parts, "writing the payload failed: "+termsafe.String(capRunes(r.SinkErr.Error(), 200)))
	}
	for _, ch := range r.Failed() {
		s := ch.Name + " failed"
		if ch.Detail != "" {
			s += " (" + ch.Detail + ")"
		}
		parts = append(parts, s)
	}
	if r.LocalStop != nil {
		return fmt.Sprintf("payload of %s not checked [correlation %s]: the download was stopped here, so no check ran: %s; do not process or acknowledge it",
			termsafe.String(r.DeliveryAttemptID), r.CorrelationID, strings.Join(parts, "; "))
	}
	return fmt.Sprintf("payload of %s not verified [correlation %s]: %s; do not process or acknowledge it",
		termsafe.String(r.DeliveryAttemptID), r.CorrelationID, strings.Join(parts, "; "))
}

// Is matches ErrIntegrity.
func (e *IntegrityError) Is(target error) bool { return target == ErrIntegrity }

// Unwrap gives the read and sink errors (e.g. context.Canceled).
func (e *IntegrityError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.Report.ReadErr, e.Report.SinkErr} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
