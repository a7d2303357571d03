package apiclient

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/internal/fakeclock"
	"github.com/nutrab2b/b2bx/internal/syncbuf"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// Canary values: they must never appear in logs, errors or output.
const (
	canarySecret = "CANARY-SECRET-9f8e7d"
	canaryToken  = "CANARY-TOKEN-1a2b3c"
	testConn     = "conn-1"
)

var canaryCred = secret.Credential{KeyID: "key-1", Secret: secret.New(canarySecret)}

type testEnv struct {
	c     *Client
	srv   *httptest.Server
	after *fakeclock.Clock // records every retry wait; each passes at once
	logs  *syncbuf.Buffer
}

// newEnv serves h on loopback and builds a client with canary credentials,
// a recording fake timer and captured debug logs.
func newEnv(t *testing.T, h http.Handler, mod ...func(*Config)) *testEnv {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	env := &testEnv{srv: srv, after: &fakeclock.Clock{}, logs: &syncbuf.Buffer{}}
	cfg := Config{
		BaseURL:      srv.URL,
		ConnectionID: testConn,
		Credentials:  StaticCredentials{Mailbox: canaryCred, Inbox: canaryCred},
		Logger:       slog.New(slog.NewJSONHandler(env.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		After:        env.after.After,
	}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := New(cfg)
	require.NoError(t, err)
	env.c = c
	t.Cleanup(func() { assertNoCanary(t, "logs", env.logs.String()) })
	return env
}

func assertNoCanary(t *testing.T, what, s string) {
	t.Helper()
	require.NotContains(t, s, canarySecret, "secret leaked into %s", what)
	require.NotContains(t, s, canaryToken, "claim token leaked into %s", what)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

// testClaim is a claim as Claim would return it, with the canary token.
func testClaim(id string) *Claim {
	return &Claim{DeliveryAttemptID: id, Token: NewClaimToken(canaryToken), ExpiresAt: time.Now().Add(5 * time.Minute)}
}

// dropConn hijacks and closes the connection without answering: the
// client cannot know whether the server acted.
func dropConn(t *testing.T, w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	_ = conn.Close()
}

func stringsReaderAt(s string) *strings.Reader { return strings.NewReader(s) }
