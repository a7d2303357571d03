package partnersim

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Contract constants the simulator enforces.
const (
	// BasePath is the route prefix; a connection lives at
	// BasePath + "/" + connectionID.
	BasePath = "/api/v1/b2b-exchange/partner/connections"
	// LeaseDuration is how long a claim lasts.
	LeaseDuration = 5 * time.Minute
	// AttemptLimit is the number of claims after which an expired lease
	// marks the entry failed instead of due again.
	AttemptLimit = 5
	// MaxPayloadSize is the inbox limit: 16 MiB.
	MaxPayloadSize = 16 << 20
	// DefaultListLimit and MaxListLimit bound GET /mailbox?limit=N.
	DefaultListLimit = 50
	MaxListLimit     = 100
	// DefaultResponseDelay is how long after an upload the partner's
	// answers (CONTRL, ORDRSP) appear in the mailbox.
	DefaultResponseDelay = 2 * time.Second
)

// Exact scopes (CONTRACT.md, "Connections and credentials").
const (
	ScopeInboxCreate        = "b2b_exchange_partner_inbox:create"
	ScopeMailboxList        = "b2b_exchange_partner_mailbox:list"
	ScopeMailboxClaim       = "b2b_exchange_partner_mailbox:claim"
	ScopeMailboxPayloadRead = "b2b_exchange_partner_mailbox:payload_read"
	ScopeMailboxAcknowledge = "b2b_exchange_partner_mailbox:acknowledge"
)

// MailboxScopes are the four scopes a mailbox worker needs.
var MailboxScopes = []string{ScopeMailboxList, ScopeMailboxClaim, ScopeMailboxPayloadRead, ScopeMailboxAcknowledge}

// AllScopes is every scope: inbox plus mailbox.
var AllScopes = append([]string{ScopeInboxCreate}, MailboxScopes...)

// Entry statuses. Only StatusDue entries are listed.
const (
	StatusDue          = "due"
	StatusClaimed      = "claimed"
	StatusAcknowledged = "acknowledged"
	StatusFailed       = "failed"
)

// Errors returned by the administrative methods (AddConnection, AddKey,
// AddEntry); they describe programming mistakes in test setup.
var (
	ErrUnknownConnection = errors.New("partnersim: unknown connection")
	ErrDuplicate         = errors.New("partnersim: duplicate id")
	ErrInvalid           = errors.New("partnersim: invalid definition")
)

// Sim is the simulated Partner API. It is an http.Handler; create it with
// New, populate it with AddConnection, AddKey and AddEntry (or SeedDemo),
// and serve it with Serve or any http.Server. All methods are safe for
// concurrent use.
type Sim struct {
	clock         Clock
	logger        *slog.Logger
	newToken      func() string
	newReceipt    func() string
	responder     Responder
	responseDelay time.Duration
	throttle      int64 // bytes/s for every payload stream; 0 = full speed
	cursorKey     [32]byte

	mu       sync.Mutex
	seq      int64
	keys     map[string]*apiKey
	conns    map[string]*connection
	faults   []*faultState
	requests []RequestRecord
	audit    []AuditEvent
}

// Option configures a Sim.
type Option func(*Sim)

// WithClock makes the simulator use c for every lease, timestamp and
// response delay. Use a *FakeClock in tests.
func WithClock(c Clock) Option { return func(s *Sim) { s.clock = c } }

// WithLogger logs one line per request (method, path, status, correlation
// id, duration) to l. Tokens, secrets and payloads are never logged.
func WithLogger(l *slog.Logger) Option { return func(s *Sim) { s.logger = l } }

// WithTokens replaces the claim-token generator. Tests pass canary tokens
// (see SequentialTokens) to prove a client never leaks them; the simulator
// still stores only their SHA-256.
func WithTokens(gen func() string) Option { return func(s *Sim) { s.newToken = gen } }

// WithReceipts replaces the receipt-id generator used by acknowledge.
func WithReceipts(gen func() string) Option { return func(s *Sim) { s.newReceipt = gen } }

// WithResponder sets what answers an accepted upload (nil: nobody
// answers). The default is DefaultResponder.
func WithResponder(r Responder) Option { return func(s *Sim) { s.responder = r } }

// WithResponseDelay sets how long after an upload the responder's messages
// become due, measured on the simulator's clock.
func WithResponseDelay(d time.Duration) Option { return func(s *Sim) { s.responseDelay = d } }

// WithThrottle limits every payload stream to bytesPerSecond (real time),
// like a slow partner link, so progress can be watched; an entry's own
// PayloadFault.BytesPerSecond still applies when it is slower. 0 or less
// means full speed.
func WithThrottle(bytesPerSecond int64) Option {
	return func(s *Sim) { s.throttle = max(bytesPerSecond, 0) }
}

// New returns an empty simulator: no connections, keys or entries.
func New(opts ...Option) *Sim {
	s := &Sim{
		clock:         systemClock{},
		logger:        slog.New(slog.DiscardHandler),
		newToken:      randomToken,
		newReceipt:    func() string { return "rcpt_" + randomHex(12) },
		responder:     DefaultResponder{},
		responseDelay: DefaultResponseDelay,
		keys:          map[string]*apiKey{},
		conns:         map[string]*connection{},
	}
	if _, err := io.ReadFull(rand.Reader, s.cursorKey[:]); err != nil {
		panic("partnersim: crypto/rand failed: " + err.Error())
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Connection defines a connection: a contract of one tenant with its own
// inbox and mailbox.
type Connection struct {
	ID     string // the connectionID in the route
	Tenant string // the owning tenant (workspace)
	Name   string // a human label, e.g. "acme-de"; informational only
}

// Key defines a tenant-bound workspace API key.
type Key struct {
	ID     string
	Secret string // kept only as a SHA-256 hash inside the Sim
	Tenant string
	Scopes []string
	// Connections restricts the key to these connection IDs; empty means
	// every connection of its tenant.
	Connections []string
}

type apiKey struct {
	id         string
	secretHash [32]byte
	tenant     string
	scopes     map[string]bool
	conns      map[string]bool // empty: all of the tenant's connections
}

type connection struct {
	Connection
	entries []*entry          // in list order (ascending seq)
	byID    map[string]*entry // by deliveryAttemptId
	uploads map[string]*upload
	upOrder []*upload
}

// AddConnection registers a connection.
func (s *Sim) AddConnection(c Connection) error {
	if c.ID == "" || c.Tenant == "" {
		return fmt.Errorf("%w: connection needs ID and Tenant", ErrInvalid)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.conns[c.ID]; dup {
		return fmt.Errorf("%w: connection %q", ErrDuplicate, c.ID)
	}
	s.conns[c.ID] = &connection{Connection: c, byID: map[string]*entry{}, uploads: map[string]*upload{}}
	return nil
}

// AddKey registers an API key. The secret is hashed; the Sim keeps no copy.
func (s *Sim) AddKey(k Key) error {
	if k.ID == "" || k.Secret == "" || k.Tenant == "" {
		return fmt.Errorf("%w: key needs ID, Secret and Tenant", ErrInvalid)
	}
	ak := &apiKey{id: k.ID, secretHash: sha256.Sum256([]byte(k.Secret)), tenant: k.Tenant,
		scopes: map[string]bool{}, conns: map[string]bool{}}
	for _, sc := range k.Scopes {
		ak.scopes[sc] = true
	}
	for _, c := range k.Connections {
		ak.conns[c] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.keys[k.ID]; dup {
		return fmt.Errorf("%w: key %q", ErrDuplicate, k.ID)
	}
	s.keys[k.ID] = ak
	return nil
}

// SequentialTokens returns a claim-token generator yielding prefix+"0001",
// prefix+"0002", ... — handy canaries for leak tests.
func SequentialTokens(prefix string) func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("%s%04d", prefix, n)
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := io.ReadFull(rand.Reader, b); err != nil {
		panic("partnersim: crypto/rand failed: " + err.Error())
	}
	return b
}

func randomHex(n int) string { return hex.EncodeToString(randomBytes(n)) }

// randomToken is the default claim token: 32 random bytes, hex.
func randomToken() string { return "ct_" + randomHex(32) }

// newUUID returns a random RFC 4122 version 4 UUID.
func newUUID() string {
	b := randomBytes(16)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
