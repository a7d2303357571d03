package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNothingLeaksTokenOrSecret formats every result and error type with
// every verb, JSON and slog, and finds neither canary.
func TestNothingLeaksTokenOrSecret(t *testing.T) {
	claim := testClaim("d-1")
	rep := &IntegrityReport{DeliveryAttemptID: "d-1", ReadErr: errors.New("reset")}
	values := map[string]any{
		"token":      claim.Token,
		"tokenPtr":   &claim.Token,
		"claim":      claim,
		"claimValue": *claim,
		"receipt":    &Receipt{DeliveryAttemptID: "d-1", ReceiptID: "r"},
		"report":     rep,
		"integrity":  &IntegrityError{Report: rep},
		"apiError":   &APIError{Op: "claim", HTTPStatus: 409},
		"netError":   &NetworkError{Op: "claim", Err: errors.New("x")},
		"upload":     &UploadResult{UploadID: "u"},
		"page":       &Page{Entries: []Entry{{DeliveryAttemptID: "d"}}},
		"creds":      StaticCredentials{Inbox: canaryCred, Mailbox: canaryCred},
		"config":     Config{Credentials: StaticCredentials{Mailbox: canaryCred}},
	}
	c, err := New(Config{BaseURL: "http://127.0.0.1:1", ConnectionID: "c", Credentials: StaticCredentials{Mailbox: canaryCred}})
	require.NoError(t, err)
	values["client"] = c
	for name, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X"} {
			assertNoCanary(t, name+" "+verb, fmt.Sprintf(verb, v))
		}
		if _, isClient := v.(*Client); !isClient {
			b, err := json.Marshal(v)
			if err == nil {
				assertNoCanary(t, name+" JSON", string(b))
			}
		}
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "v", v)
		slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "v", v)
		assertNoCanary(t, name+" slog", buf.String())
	}
	require.Contains(t, fmt.Sprintf("%v", claim.Token), "REDACTED")
	b, _ := json.Marshal(claim)
	require.Contains(t, string(b), `"Token":"[REDACTED]"`)
}

// TestFullFlowNeverLeaks drives claim, download, acknowledge and upload
// (with errors on the way) against a server that hands out the canary
// token, and checks logs, errors and results.
func TestFullFlowNeverLeaks(t *testing.T) {
	body := testPayload(5000)
	mux := http.NewServeMux()
	base := "/api/v1/b2b-exchange/partner/connections/" + testConn
	mux.HandleFunc("POST "+base+"/mailbox/{id}/claim", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"deliveryAttemptId": r.PathValue("id"), "claimToken": canaryToken, "expiresAt": time.Now().Add(5 * time.Minute)})
	})
	mux.HandleFunc("GET "+base+"/mailbox/{id}/payload", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-B2B-Claim-Token") != canaryToken {
			writeErr(w, 404, CodeNotFound, "token")
			return
		}
		payloadServer{body: body, send: -1, trailer: "failed"}.ServeHTTP(w, r)
	})
	mux.HandleFunc("POST "+base+"/mailbox/{id}/acknowledge", func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, 404, CodeNotFound, "echo "+r.Header.Get("Authorization")[:10])
	})
	mux.HandleFunc("POST "+base+"/inbox", func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, 503, CodeUnavailable, "down")
	})
	env := newEnv(t, mux, func(c *Config) { c.Retry.MaxAttempts = 2 })
	ctx := context.Background()
	claim, err := env.c.Claim(ctx, "d-1")
	require.NoError(t, err)
	rep, err := env.c.Download(ctx, claim, Expect{int64(len(body)), sumHex(body)}, discard{}, nil)
	require.ErrorIs(t, err, ErrIntegrity)
	_, ackErr := env.c.Acknowledge(ctx, claim)
	require.ErrorIs(t, ackErr, ErrNotFound)
	_, upErr := env.c.Upload(ctx, "k", bytes.NewReader(body), int64(len(body)))
	require.ErrorIs(t, upErr, ErrUnavailable)
	for _, s := range []string{err.Error(), ackErr.Error(), upErr.Error(), fmt.Sprintf("%+v %#v", rep, claim)} {
		assertNoCanary(t, "output", s)
	}
	logs := env.logs.String()
	require.Contains(t, logs, `"op":"claim"`)
	require.Contains(t, logs, `"deliveryAttemptId":"d-1"`)
	require.Contains(t, logs, `"connectionId":"conn-1"`)
	require.Contains(t, logs, `"status":404`)
	require.Contains(t, logs, `"code":"ERR_B2B_EXCHANGE_NOT_FOUND"`)
	require.NotContains(t, logs, "UNH+1", "payload never logged")
	require.NotContains(t, logs, sumHex(body), "hash never logged")
	require.NotContains(t, logs, "key-1", "key ID not logged either")
	require.NotContains(t, logs, "echo", "server messages are not logged")
	assertOnlyAllowedLogKeys(t, logs)
}

// allowedLogKeys is the contract's list (status, code, correlation,
// connection, delivery attempt, time) plus operation bookkeeping.
var allowedLogKeys = map[string]bool{
	"time": true, "level": true, "msg": true, "op": true, "attempt": true, "status": true, "code": true,
	"correlationId": true, "connectionId": true, "deliveryAttemptId": true, "duration": true,
	"error": true, "unclear": true, "outcome": true, "failed": true, "wait": true, "nextAt": true,
}

func assertOnlyAllowedLogKeys(t *testing.T, logs string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(logs), "\n")
	require.NotEmpty(t, lines)
	for _, line := range lines {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		for k, v := range rec {
			require.True(t, allowedLogKeys[k], "log key %q is not allowed", k)
			if k == "error" {
				require.Contains(t, []any{"network", "local"}, v, "errors are logged as a class, not as text")
			}
		}
	}
}
