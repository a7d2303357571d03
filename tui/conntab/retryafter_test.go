package conntab

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// TestRetryAfterBeyondMaxSaysWaitAndWhen: a 503 whose Retry-After is
// beyond what the client waits (48 h > 24 h) is not retried, and the
// app's error says so with the CLI's sentence: the wait and when to try
// again (it said only "HTTP 503: down").
func TestRetryAfterBeyondMaxSaysWaitAndWhen(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "172800")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":{"code":"ERR_B2B_EXCHANGE_UNAVAILABLE","message":"down"}}`))
	}))
	t.Cleanup(srv.Close)
	now := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	c, err := apiclient.New(apiclient.Config{BaseURL: srv.URL, ConnectionID: "c1", Now: func() time.Time { return now },
		Credentials: apiclient.StaticCredentials{Mailbox: secret.Credential{KeyID: "k1", Secret: secret.New("s")}}})
	require.NoError(t, err)
	_, err = c.ListMailbox(context.Background(), 0, "")
	require.ErrorIs(t, err, apiclient.ErrRetryTooLong)

	e := describe(err, "")
	require.Contains(t, e.text, "list mailbox: HTTP 503: down")
	require.Contains(t, e.text, "not retrying: the server asks to wait 48h0m0s (Retry-After), longer than the 24h0m0s the client waits; try again after 2026-12-03T22:00:00Z")
	require.Contains(t, err.Error(), "not retrying: the server asks to wait 48h0m0s (Retry-After), longer than the 24h0m0s the client waits; try again after 2026-12-03T22:00:00Z",
		"the CLI's text: the same sentence")
	require.Equal(t, "try again after "+now.Add(48*time.Hour).Local().Format("2006-01-02 15:04")+" (the server's Retry-After)", e.action)
	require.Equal(t, "ERR_B2B_EXCHANGE_UNAVAILABLE", e.code)
}
