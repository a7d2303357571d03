package apiclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestAPIErrorParsing(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		body       string
		ctype      string
		retryAfter string
		sentinel   error
		code       string
		action     string
		retryWant  time.Duration
	}{
		{"400", 400, `{"error":{"code":"ERR_B2B_EXCHANGE_INVALID_REQUEST","message":"bad limit"}}`, "application/json", "", ErrInvalidRequest, CodeInvalidRequest, "never repeat it unchanged", 0},
		{"404 names scope", 404, `{"error":{"code":"ERR_B2B_EXCHANGE_NOT_FOUND","message":"not found"}}`, "application/json", "", ErrNotFound, CodeNotFound, "scope b2b_exchange_partner_mailbox:list", 0},
		{"409", 409, `{"error":{"code":"ERR_B2B_EXCHANGE_CONFLICT","message":"x"}}`, "application/json", "", ErrConflict, CodeConflict, "re-read", 0},
		{"413", 413, `{"error":{"code":"ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE","message":"x"}}`, "application/json", "", ErrPayloadTooLarge, CodePayloadTooLarge, "16 MiB", 0},
		{"500", 500, `{"error":{"code":"ERR_B2B_EXCHANGE_INTERNAL","message":"x"}}`, "application/json", "", ErrInternal, CodeInternal, "correlation ID", 0},
		{"unknown code falls back to status", 409, `{"error":{"code":"ERR_NEW_THING","message":"x"}}`, "application/json", "", ErrConflict, "ERR_NEW_THING", "re-read", 0},
		{"non-JSON body", 404, `<html>gateway</html>`, "text/html", "", ErrNotFound, "", "never probe", 0},
		{"empty body 400", 400, ``, "", "", ErrInvalidRequest, "", "fix the request", 0},
		{"429 seconds", 429, `slow down`, "text/plain", "7", ErrRateLimited, "", "Retry-After", 7 * time.Second},
		{"unknown status", 418, `{}`, "application/json", "", ErrUnexpected, "", "correlation ID", 0},
		{"bad Retry-After ignored", 400, `{}`, "application/json", "soon", ErrInvalidRequest, "", "fix", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.ctype != "" {
					w.Header().Set("Content-Type", tt.ctype)
				}
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}), func(c *Config) { c.Retry.MaxAttempts = 1 })
			_, err := env.c.ListMailbox(context.Background(), 0, "")
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			require.ErrorIs(t, err, tt.sentinel)
			require.Equal(t, tt.status, ae.HTTPStatus)
			require.Equal(t, tt.code, ae.Code)
			require.Contains(t, ae.Action, tt.action)
			require.Equal(t, tt.retryWant, ae.RetryAfter)
			require.Equal(t, "list mailbox", ae.Op)
			require.Len(t, ae.CorrelationID, 32)
			require.Contains(t, err.Error(), ae.CorrelationID)
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"-3", 0},
		{"120", 2 * time.Minute},
		{" 5 ", 5 * time.Second},
		{"Mon, 02 Jun 2025 08:01:30 GMT", 90 * time.Second},
		{"Mon, 02 Jun 2025 07:00:00 GMT", 0}, // in the past
		{"tomorrow", 0},
		{"99999999999", 7 * 24 * time.Hour}, // capped
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, parseRetryAfter(tt.in, now), tt.in)
	}
}

// TestAPIErrorMessageIsTerminalSafe: the server text is untrusted; Error()
// neutralises escape sequences and caps the length, the struct keeps it raw.
func TestAPIErrorMessageIsTerminalSafe(t *testing.T) {
	evil := "\x1b]52;c;ZXZpbA==\x07\x1b[2J\u202Egnp.exe" + strings.Repeat("A", 5000)
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, http.StatusConflict, "ERR_\x1b[31mRED", evil)
	}))
	_, err := env.c.Claim(context.Background(), "d-1")
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, evil, ae.Message)
	msg := err.Error()
	require.NotContains(t, msg, "\x1b")
	require.NotContains(t, msg, "\x07")
	require.NotContains(t, msg, "\u202E")
	require.Less(t, len(msg), 1000)
	require.ErrorIs(t, err, ErrConflict) // status fallback for the unknown code
}

func TestNetworkErrorIsTerminalSafe(t *testing.T) {
	ne := &NetworkError{Op: "claim", CorrelationID: "c", Unclear: true, Err: errors.New("reset by \x1b[2Jpeer")}
	require.NotContains(t, ne.Error(), "\x1b")
	require.Contains(t, ne.Error(), "may have received")
}
