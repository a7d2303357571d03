package apiclient

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

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
// one for the mailbox. When one of them is unset the other is used.
type StaticCredentials struct {
	Inbox   secret.Credential
	Mailbox secret.Credential
}

// Credential implements CredentialProvider.
func (s StaticCredentials) Credential(_ context.Context, scope Scope) (secret.Credential, error) {
	return secret.Credential{}, errors.New("not implemented")
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
	// HTTPClient nil → a client with connect/header/idle timeouts but no
	// overall timeout (a slow 16 MiB payload must not be cut), HTTP/2 on TLS.
	HTTPClient *http.Client
	// Logger nil → logs are discarded.
	Logger *slog.Logger
	// Limiter nil → 100 requests/s, burst 10. Share one limiter between the
	// clients of one partner.
	Limiter *rate.Limiter
	// Retry zero → the contract schedule.
	Retry RetryPolicy
	// Now nil → time.Now. Used for retry times and progress.
	Now func() time.Time
	// After nil → time.After. Tests inject a fake to record retry waits
	// without sleeping.
	After func(d time.Duration) <-chan time.Time
	// StallTimeout aborts a payload download when no byte arrives for this
	// long. 0 → DefaultStallTimeout; negative disables the watchdog.
	StallTimeout time.Duration
}

// DefaultStallTimeout is the payload stall watchdog's default.
const DefaultStallTimeout = 60 * time.Second

// Client talks to one connection of the Partner API. It is safe for
// concurrent use.
type Client struct {
	cfg Config
}

// New checks cfg and builds a Client.
func New(cfg Config) (*Client, error) {
	return nil, errors.New("not implemented")
}

// ConnectionID is the connection this client addresses.
func (c *Client) ConnectionID() string { return c.cfg.ConnectionID }
