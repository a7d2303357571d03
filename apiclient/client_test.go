package apiclient

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

func TestNewValidatesConfig(t *testing.T) {
	creds := StaticCredentials{Mailbox: canaryCred}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no base", Config{ConnectionID: "c", Credentials: creds}, "base URL is empty"},
		{"bad scheme", Config{BaseURL: "ftp://x", ConnectionID: "c", Credentials: creds}, "http(s)://"},
		{"no host", Config{BaseURL: "https://", ConnectionID: "c", Credentials: creds}, "http(s)://"},
		{"userinfo", Config{BaseURL: "https://u:" + canarySecret + "@h", ConnectionID: "c", Credentials: creds}, "must not contain credentials"},
		{"query", Config{BaseURL: "https://h?k=v", ConnectionID: "c", Credentials: creds}, "must not contain"},
		{"unparsable with userinfo", Config{BaseURL: "https://key1:" + canarySecret + "@exa mple.com", ConnectionID: "c", Credentials: creds}, "(unparsable URL)"},
		{"unparsable port", Config{BaseURL: "https://h:" + canarySecret, ConnectionID: "c", Credentials: creds}, "(unparsable URL)"},
		{"no conn", Config{BaseURL: "https://h", Credentials: creds}, "connection ID is empty"},
		{"dotdot conn", Config{BaseURL: "https://h", ConnectionID: "..", Credentials: creds}, "not a valid ID"},
		{"no creds", Config{BaseURL: "https://h", ConnectionID: "c"}, "no credential provider"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			require.ErrorContains(t, err, tt.want)
			assertNoCanary(t, "error", err.Error())
		})
	}
	c, err := New(Config{BaseURL: "https://h/prefix/", ConnectionID: "a/b c", Credentials: creds})
	require.NoError(t, err)
	require.Equal(t, "https://h/prefix/api/v1/b2b-exchange/partner/connections/a%2Fb%20c/mailbox/x%3Fy%23z/claim",
		c.endpoint(nil, "mailbox", "x?y#z", "claim"))
}

func TestStaticCredentialsPerScope(t *testing.T) {
	inbox := secret.Credential{KeyID: "in", Secret: secret.New("s1")}
	mbox := secret.Credential{KeyID: "mb", Secret: secret.New("s2")}
	ctx := context.Background()
	tests := []struct {
		name  string
		sc    StaticCredentials
		scope Scope
		want  string
	}{
		{"inbox key for upload", StaticCredentials{Inbox: inbox, Mailbox: mbox}, ScopeInboxCreate, "in"},
		{"mailbox key for list", StaticCredentials{Inbox: inbox, Mailbox: mbox}, ScopeMailboxList, "mb"},
		{"mailbox key for ack", StaticCredentials{Inbox: inbox, Mailbox: mbox}, ScopeMailboxAcknowledge, "mb"},
		{"one key for both (inbox only)", StaticCredentials{Inbox: inbox}, ScopeMailboxClaim, "in"},
		{"one key for both (mailbox only)", StaticCredentials{Mailbox: mbox}, ScopeInboxCreate, "mb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.sc.Credential(ctx, tt.scope)
			require.NoError(t, err)
			require.Equal(t, tt.want, c.KeyID)
		})
	}
	_, err := StaticCredentials{}.Credential(ctx, ScopeMailboxList)
	require.ErrorIs(t, err, ErrNoCredential)
}

// recordingHandler answers every endpoint minimally and records headers.
type recordingHandler struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (h *recordingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.reqs = append(h.reqs, r.Clone(context.Background()))
	h.mu.Unlock()
	writeErr(w, http.StatusNotFound, CodeNotFound, "nope")
}

// TestHeadersPerEndpoint: the Bearer header comes from the scope's key,
// only payload and acknowledge carry the claim token, every request
// carries the correlation ID, and no secret is ever in the URL.
func TestHeadersPerEndpoint(t *testing.T) {
	h := &recordingHandler{}
	inbox := secret.Credential{KeyID: "inbox-key", Secret: secret.New(canarySecret + "-in")}
	env := newEnv(t, h, func(c *Config) {
		c.Credentials = StaticCredentials{Inbox: inbox, Mailbox: canaryCred}
	})
	ctx := context.Background()
	claim := testClaim("d-1")
	_, _ = env.c.ListMailbox(ctx, 10, "")
	_, _ = env.c.Claim(ctx, "d-1")
	_, _ = env.c.Download(ctx, claim, Expect{}, discard{}, nil)
	_, _ = env.c.Acknowledge(ctx, claim)
	_, _ = env.c.Upload(ctx, "k-1", stringsReaderAt("UNA"), 3)
	require.Len(t, h.reqs, 5)
	want := []struct {
		method, path, bearer string
		token                bool
	}{
		{"GET", "/mailbox", "key-1:" + canarySecret, false},
		{"POST", "/mailbox/d-1/claim", "key-1:" + canarySecret, false},
		{"GET", "/mailbox/d-1/payload", "key-1:" + canarySecret, true},
		{"POST", "/mailbox/d-1/acknowledge", "key-1:" + canarySecret, true},
		{"POST", "/inbox", "inbox-key:" + canarySecret + "-in", false},
	}
	for i, w := range want {
		r := h.reqs[i]
		require.Equal(t, w.method, r.Method)
		require.Equal(t, "/api/v1/b2b-exchange/partner/connections/"+testConn+w.path, r.URL.Path)
		require.Equal(t, "Bearer "+w.bearer, r.Header.Get("Authorization"))
		if w.token {
			require.Equal(t, canaryToken, r.Header.Get("X-B2B-Claim-Token"))
		} else {
			require.Empty(t, r.Header.Values("X-B2B-Claim-Token"))
		}
		require.Len(t, r.Header.Get("X-Correlation-ID"), 32)
		assertNoCanary(t, "URL", r.URL.String())
	}
	require.Equal(t, "limit=10", h.reqs[0].URL.RawQuery)
	require.Equal(t, "application/edifact", h.reqs[4].Header.Get("Content-Type"))
	require.Equal(t, "k-1", h.reqs[4].Header.Get("Idempotency-Key"))
}

func TestRedirectNotFollowed(t *testing.T) {
	var hits int
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		http.Redirect(w, r, "http://elsewhere.invalid/steal", http.StatusFound)
	}))
	_, err := env.c.Acknowledge(context.Background(), testClaim("d-1"))
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, http.StatusFound, ae.HTTPStatus)
	require.Contains(t, ae.Action, "redirect")
	require.Equal(t, 1, hits)
}

func TestCorrelationIDFromContext(t *testing.T) {
	h := &recordingHandler{}
	env := newEnv(t, h)
	ctx := WithCorrelationID(context.Background(), "worker-step-42")
	_, err := env.c.ListMailbox(ctx, 0, "")
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "worker-step-42", ae.CorrelationID)
	require.Equal(t, "worker-step-42", h.reqs[0].Header.Get("X-Correlation-ID"))
	require.Contains(t, env.logs.String(), `"correlationId":"worker-step-42"`)

	// An unusable ID (header injection attempt) is replaced by a fresh one.
	_, _ = env.c.ListMailbox(WithCorrelationID(context.Background(), "x\r\nEvil: 1"), 0, "")
	require.Len(t, h.reqs[1].Header.Get("X-Correlation-ID"), 32)
	require.Empty(t, h.reqs[1].Header.Get("Evil"))
}

func TestMalformedCredentialRefusedWithoutLeak(t *testing.T) {
	h := &recordingHandler{}
	bad := secret.Credential{KeyID: "key", Secret: secret.New(canarySecret + "\r\nX: y")}
	env := newEnv(t, h, func(c *Config) { c.Credentials = StaticCredentials{Mailbox: bad} })
	_, err := env.c.ListMailbox(context.Background(), 0, "")
	require.ErrorContains(t, err, "malformed")
	assertNoCanary(t, "error", err.Error())
	require.Empty(t, h.reqs, "nothing may be sent with a malformed key")
	_, err = env.c.Upload(context.Background(), "k", stringsReaderAt("x"), 1)
	require.True(t, err != nil && !errors.Is(err, ErrInvalidKey))
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestDefaultHTTPClient(t *testing.T) {
	hc := DefaultHTTPClient()
	require.Zero(t, hc.Timeout, "no overall timeout: a slow 16 MiB payload must not be cut off")
	tr := hc.Transport.(*http.Transport)
	require.True(t, tr.ForceAttemptHTTP2)
	require.NotZero(t, tr.ResponseHeaderTimeout)
	require.NotZero(t, tr.TLSHandshakeTimeout)
	require.NotZero(t, tr.IdleConnTimeout)
	require.NotNil(t, tr.HTTP2)
}
