package apiclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// Scope is an API key scope required by one endpoint.
type Scope string

// The five scopes of the Partner API, one per endpoint.
const (
	ScopeInboxCreate        Scope = "b2b_exchange_partner_inbox:create"
	ScopeMailboxList        Scope = "b2b_exchange_partner_mailbox:list"
	ScopeMailboxClaim       Scope = "b2b_exchange_partner_mailbox:claim"
	ScopeMailboxPayloadRead Scope = "b2b_exchange_partner_mailbox:payload_read"
	ScopeMailboxAcknowledge Scope = "b2b_exchange_partner_mailbox:acknowledge"
)

// CredentialProvider gives the API key to use for a scope, so a connection
// can use one key for the inbox and another for the mailbox.
type CredentialProvider interface {
	Credential(ctx context.Context, scope Scope) (secret.Credential, error)
}

// StaticCredentials is a CredentialProvider with one key for the inbox and
// one for the mailbox. When one of them is unset the other is used (a
// profile with one key for both).
type StaticCredentials struct {
	Inbox   secret.Credential
	Mailbox secret.Credential
}

// ErrNoCredential means no API key is configured for a scope.
var ErrNoCredential = errors.New("no API key configured")

// Credential implements CredentialProvider.
func (s StaticCredentials) Credential(_ context.Context, scope Scope) (secret.Credential, error) {
	first, second := s.Mailbox, s.Inbox
	if scope == ScopeInboxCreate {
		first, second = s.Inbox, s.Mailbox
	}
	switch {
	case !first.IsZero():
		return first, nil
	case !second.IsZero():
		return second, nil
	}
	return secret.Credential{}, fmt.Errorf("%w for scope %s: set the connection's key (B2BX_API_KEY=<key-id>:<secret> or a profile)", ErrNoCredential, scope)
}

// Config configures a Client. BaseURL, ConnectionID and Credentials are
// required; everything else has a sensible default.
type Config struct {
	// BaseURL is the API origin, e.g. https://api.example.com; the
	// /api/v1/b2b-exchange/partner/... prefix is added by the client.
	BaseURL string
	// ConnectionID is the partner connection all calls address.
	ConnectionID string
	// Credentials gives the key per scope.
	Credentials CredentialProvider
	// HTTPClient nil → a process-wide transport shared by every Client
	// built without one (the settings of DefaultHTTPClient), released by
	// Close. A given HTTPClient stays the caller's: Close leaves it alone.
	// The client never follows redirects (a redirect would carry the claim
	// token to another host).
	HTTPClient *http.Client
	// Logger nil → logs are discarded.
	Logger *slog.Logger
	// Limiter nil → 100 requests/s, burst 10. Share one limiter between the
	// clients of one partner.
	Limiter *rate.Limiter
	// Retry zero → the contract schedule.
	Retry RetryPolicy
	// Now nil → time.Now. Used for retry times and Retry-After dates.
	Now func() time.Time
	// After nil → time.After. Tests inject a fake to record retry waits
	// without sleeping.
	After func(d time.Duration) <-chan time.Time
	// StallTimeout aborts a payload download when no byte arrives for this
	// long. 0 → DefaultStallTimeout; negative disables the watchdog.
	StallTimeout time.Duration
	// AnswerIdleTimeout fails a JSON answer (or an error's body) when no
	// byte of its body arrives for this long after the headers; 0 →
	// DefaultAnswerIdleTimeout, negative disables it.
	AnswerIdleTimeout time.Duration
	// AnswerTimeout fails a JSON answer whose body is not complete this
	// long after the headers; 0 → DefaultAnswerTimeout, negative
	// disables it.
	AnswerTimeout time.Duration
	// MaxPages bounds Pages; 0 → MaxPages.
	MaxPages int
}

// DefaultStallTimeout is the payload stall watchdog's default.
const DefaultStallTimeout = 60 * time.Second

// DefaultRate and DefaultBurst are the client-side rate limit per partner.
const (
	DefaultRate  = 100
	DefaultBurst = 10
)

// Client talks to one connection of the Partner API. It is safe for
// concurrent use.
type Client struct {
	cfg     Config
	shared  bool // c.hc uses the shared transport (released by Close)
	closed  atomic.Bool
	base    string // scheme://host[/prefix]/api/v1/.../connections/{id}
	hc      *http.Client
	log     *slog.Logger
	limiter *rate.Limiter
	now     func() time.Time
	after   func(time.Duration) <-chan time.Time
	stall   time.Duration
	// answerIdle and answerTotal bound reading a JSON answer's body.
	answerIdle, answerTotal time.Duration
}

// New checks cfg and builds a Client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	switch {
	case cfg.BaseURL == "":
		return nil, errors.New("apiclient: base URL is empty: pass the Partner API origin, e.g. https://api.example.com")
	case err != nil:
		// url.Error repeats the whole input, user info and all: never
		// echo it, it may hold a secret pasted by mistake.
		return nil, errors.New("apiclient: base URL (unparsable URL) is not a valid URL: pass the Partner API origin, e.g. https://api.example.com")
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return nil, errors.New("apiclient: base URL must be http(s)://host[:port], e.g. https://api.example.com")
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return nil, errors.New("apiclient: base URL must not contain credentials, a query or a fragment; keys come from the credential store")
	}
	if err := checkID("connection ID", cfg.ConnectionID); err != nil {
		return nil, fmt.Errorf("apiclient: %w", err)
	}
	if cfg.Credentials == nil {
		return nil, errors.New("apiclient: no credential provider configured")
	}
	c := &Client{cfg: cfg, limiter: cfg.Limiter, now: cfg.Now, after: cfg.After, stall: cfg.StallTimeout}
	c.base = u.String() + "/api/v1/b2b-exchange/partner/connections/" + url.PathEscape(cfg.ConnectionID)
	c.cfg.Retry.Schedule = slices.Clone(cfg.Retry.Schedule)
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: acquireTransport()}
		c.shared = true
	}
	cp := *hc
	cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.hc = &cp
	c.log = cfg.Logger
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.limiter == nil {
		c.limiter = NewLimiter()
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.after == nil {
		c.after = time.After
	}
	if c.stall == 0 {
		c.stall = DefaultStallTimeout
	}
	c.answerIdle = orDefault(cfg.AnswerIdleTimeout, DefaultAnswerIdleTimeout)
	c.answerTotal = orDefault(cfg.AnswerTimeout, DefaultAnswerTimeout)
	return c, nil
}

// Limit is the client's request rate limit (requests/s) and burst.
func (c *Client) Limit() (rate.Limit, int) { return c.limiter.Limit(), c.limiter.Burst() }

// NewLimiter returns the default per-partner limiter (100/s, burst 10), to
// share between the clients of one partner's connections.
func NewLimiter() *rate.Limiter { return rate.NewLimiter(DefaultRate, DefaultBurst) }

// NewLimiterAt is a per-partner limiter of perSecond requests/s (the rate
// a profile sets); the burst is a tenth of a second's worth, at least
// DefaultBurst. perSecond ≤ 0 is the default.
func NewLimiterAt(perSecond int) *rate.Limiter {
	if perSecond <= 0 {
		return NewLimiter()
	}
	return rate.NewLimiter(rate.Limit(perSecond), max(DefaultBurst, perSecond/10))
}

// DefaultHTTPClient returns a client with its own new transport (for
// callers that change it, e.g. to trust a test CA); a Config without
// HTTPClient shares one transport with these settings instead. It has
// connect, TLS-handshake, response-header and idle timeouts but no overall
// timeout: a slow 16 MiB payload must not be cut off; the context and the
// stall watchdog bound it instead. It speaks HTTP/2 over TLS and pings
// idle HTTP/2 connections to notice dead peers.
func DefaultHTTPClient() *http.Client { return &http.Client{Transport: newTransport()} }

func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.ForceAttemptHTTP2 = true
	t.TLSHandshakeTimeout = 10 * time.Second
	t.ResponseHeaderTimeout = 60 * time.Second
	t.IdleConnTimeout = 90 * time.Second
	t.HTTP2 = &http.HTTP2Config{SendPingTimeout: 30 * time.Second, PingTimeout: 15 * time.Second}
	return t
}

// shared is the process-wide transport of Clients built without an
// HTTPClient: one connection pool per process (the app keeps clients for
// hours), counted so the last Close drops its idle connections.
var shared struct {
	mu    sync.Mutex
	t     *http.Transport
	users int
}

func acquireTransport() *http.Transport {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.t == nil {
		shared.t = newTransport()
	}
	shared.users++
	return shared.t
}

func releaseTransport() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.users--; shared.users == 0 {
		shared.t.CloseIdleConnections()
	}
}

// ErrClosed is returned by calls on a Client after Close.
var ErrClosed = errors.New("apiclient: the client is closed")

// Close releases what the client owns: its share of the process-wide
// transport (the last Close drops the idle connections). A caller's
// Config.HTTPClient is left alone. Calls after Close fail with ErrClosed;
// calls already running finish. Safe to call more than once.
func (c *Client) Close() {
	if c.closed.Swap(true) || !c.shared {
		return
	}
	releaseTransport()
}

// ConnectionID is the connection this client addresses.
func (c *Client) ConnectionID() string { return c.cfg.ConnectionID }

// checkID refuses IDs that cannot be one escaped path segment. IDs come
// from the server and are untrusted: "." and ".." would change the path,
// and invalid UTF-8 would not survive JSON and display unchanged. Other
// odd characters (controls, bidi overrides) are escaped in the URL and
// sanitised wherever the ID is shown or logged, so they stay usable.
func checkID(what, id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%s is empty", what)
	case id == "." || id == "..":
		return fmt.Errorf("%s %q is not a valid ID", what, id)
	case len(id) > 256:
		return fmt.Errorf("%s is longer than 256 bytes", what)
	case !utf8.ValidString(id):
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	return nil
}

// endpoint builds the URL for path segments below the connection; each
// segment is escaped, so IDs cannot add path elements or a query.
func (c *Client) endpoint(query url.Values, segs ...string) string {
	var b strings.Builder
	b.WriteString(c.base)
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	if len(query) > 0 {
		b.WriteByte('?')
		b.WriteString(query.Encode())
	}
	return b.String()
}

// orDefault is d, or def when d is 0.
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}
