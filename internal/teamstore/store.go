// Package teamstore is the team's shared store on PostgreSQL: every
// verified delivery (payload bytes deduplicated by SHA-256, its sidecar,
// who stored it when), every upload attempt (the file sent, key, HTTP
// result, --fixes link, who sent it), the seen journal and the event
// captures, and the tracking index over all of it (track's Postgres
// backend, in the same database). The local files stay the first durable
// copy: an outbox (internal/outbox) pushes them here, each Push* one
// transaction, idempotent by ID and SHA-256.
//
// The password never travels in the URL, a log, an error or an echoed
// URL: it comes from the OS keyring (`b2bx store login`), else from the
// PG* variables or .pgpass (pgx reads those). Any host not on loopback
// needs TLS (sslmode require, verify-ca or verify-full), the rule of the
// API URL.
package teamstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/internal/who"
)

// Timeouts: every wait on the database is bounded.
const (
	// ConnectTimeout bounds one connection attempt.
	ConnectTimeout = 10 * time.Second
	// OpTimeout bounds one call (a push, a query).
	OpTimeout = 60 * time.Second
	// MigrateTimeout bounds Init: a migration rewrites tables (schema 2
	// copies every blob's bytes into chunks), minutes on a large store.
	MigrateTimeout = 30 * time.Minute
)

// KeyringProfile is the keyring "profile" of team-store passwords; the
// key ID is the server's account (see Account).
const KeyringProfile = "team-store"

// Errors told apart with errors.Is.
var (
	// ErrConfig: the [store] url cannot be used as it is (the message says why and what to do).
	ErrConfig = errors.New("teamstore: the [store] url cannot be used")
	// ErrUnreachable: the database did not answer.
	ErrUnreachable = errors.New("teamstore: the team store is unreachable")
)

// Config is how to reach the team store.
type Config struct {
	// URL is [store] url: postgres://USER@HOST[:PORT]/DB?sslmode=…
	URL string
	// By is who this machine's pushes say they are by.
	By who.Who
	// Secrets is the OS keyring (b2bx store login); nil: only PG* and .pgpass.
	Secrets credentials.SecretStore
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time
}

// Store is an open team store.
type Store struct {
	db       *sql.DB
	by       who.Who
	password string // only to scrub it from errors
	target   string // the URL without a password, for messages
	now      func() time.Time

	mu sync.Mutex
	pg *track.Postgres // the index backend, once its schema was checked

	keys keyLock // key plans' team-wide lock (keylock.go)
}

// Parsed is a checked [store] url.
type Parsed struct {
	cc      *pgx.ConnConfig
	Target  string // the URL as it may be shown
	Account string // the keyring key ID: user@host:port/db
}

// Parse checks a [store] url: a postgres:// URL without a password, TLS
// for a host not on loopback. The error says what to do and never holds
// a password.
func Parse(raw string) (*Parsed, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" && u.Query().Get("host") == "" {
		return nil, fmt.Errorf(`%w: give postgres://USER@HOST/DATABASE?sslmode=verify-full in config.toml [store] url`, ErrConfig)
	}
	if _, ok := u.User.Password(); ok {
		return nil, fmt.Errorf("%w: it holds a password; remove it and run `b2bx store login` (the keyring keeps it), or use PGPASSWORD or ~/.pgpass", ErrConfig)
	}
	if u.Query().Has("password") {
		return nil, fmt.Errorf("%w: it holds a password parameter; remove it and run `b2bx store login`", ErrConfig)
	}
	target := termsafe.String(u.Redacted())
	cc, err := pgx.ParseConfig(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrConfig, scrub(err.Error(), ""))
	}
	hosts := []struct {
		host string
		tls  bool
	}{{cc.Host, cc.TLSConfig != nil}}
	for _, f := range cc.Fallbacks {
		hosts = append(hosts, struct {
			host string
			tls  bool
		}{f.Host, f.TLSConfig != nil})
	}
	for _, h := range hosts {
		if !h.tls && !strings.HasPrefix(h.host, "/") && !credentials.IsLoopback(h.host) {
			return nil, fmt.Errorf("%w: %s is not on loopback, so the connection must use TLS: add sslmode=verify-full (or require) to the URL", ErrConfig, termsafe.String(h.host))
		}
	}
	cc.ConnectTimeout = ConnectTimeout // cc.Password is PGPASSWORD's or .pgpass's, if any
	return &Parsed{cc: cc, Target: target, Account: fmt.Sprintf("%s@%s:%d/%s", cc.User, cc.Host, cc.Port, cc.Database)}, nil
}

// Open connects to the team store of cfg (the connection is tried, within
// ConnectTimeout) and checks its schema: ErrNoSchema until `b2bx store
// init` ran, ErrNewerSchema for a store of a newer b2bx.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	s, err := Connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := s.checkSchema(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Connect connects without checking the schema (store init, store status).
func Connect(ctx context.Context, cfg Config) (*Store, error) {
	p, err := Parse(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Secrets != nil {
		lctx, cancel := context.WithTimeout(ctx, credentials.DefaultTimeout)
		v, err := cfg.Secrets.Get(lctx, KeyringProfile, p.Account)
		cancel()
		if err == nil && !v.IsZero() {
			p.cc.Password = v.Reveal()
		}
	}
	track.SharePayloadParses(true) // a push of bytes the local index parsed takes its facts
	s := &Store{by: cfg.By.Clean(), password: p.cc.Password, target: p.Target, now: cfg.Now}
	if s.now == nil {
		s.now = time.Now
	}
	s.db = stdlib.OpenDB(*p.cc)
	s.db.SetMaxOpenConns(8)
	s.db.SetConnMaxIdleTime(5 * time.Minute)
	if err := s.Ping(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the connections.
func (s *Store) Close() error {
	s.ReleaseKeys()
	return s.db.Close()
}

// Target is the URL as it may be shown (no password).
func (s *Store) Target() string { return s.target }

// By is who this machine's pushes are by.
func (s *Store) By() who.Who { return s.by }

// DB is the database (tests, benchmarks).
func (s *Store) DB() *sql.DB { return s.db }

// Ping checks the database answers, within ConnectTimeout.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	if err := s.db.PingContext(ctx); err != nil {
		return s.wrap(fmt.Errorf("%w (%s): %w", ErrUnreachable, s.target, err))
	}
	return nil
}

// Login stores password for the server of url in the keyring, after
// checking it connects (a wrong password is not kept).
func Login(ctx context.Context, rawURL string, password secret.Value, secrets credentials.SecretStore) error {
	p, err := Parse(rawURL)
	if err != nil {
		return err
	}
	if password.IsZero() {
		return errors.New("teamstore: an empty password was given; nothing was stored")
	}
	mem := credentials.NewMemoryStore()
	if err := mem.Set(ctx, KeyringProfile, p.Account, password); err != nil {
		return err
	}
	s, err := Connect(ctx, Config{URL: rawURL, Secrets: mem})
	if err != nil {
		return fmt.Errorf("the password was not stored: %w", err)
	}
	s.Close()
	kctx, cancel := context.WithTimeout(ctx, credentials.DefaultTimeout)
	defer cancel()
	return secrets.Set(kctx, KeyringProfile, p.Account, password)
}

// redacted is an error whose text had the password scrubbed; errors.Is
// still sees what it wraps.
type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

// wrap scrubs the password (and any URL userinfo) from err's text.
func (s *Store) wrap(err error) error {
	if err == nil {
		return nil
	}
	return &redacted{msg: scrub(err.Error(), s.password), err: err}
}

// scrub removes password from msg, plain and URL-escaped, and the
// password of any postgres URL in it.
func scrub(msg, password string) string {
	if password != "" {
		for _, p := range []string{password, url.QueryEscape(password), url.PathEscape(password)} {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return termsafe.String(msg)
}

// ctxOp bounds one call.
func ctxOp(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, OpTimeout)
}

// backend is the index in the same database, its schema checked once
// (a push is not three queries longer for it).
func (s *Store) backend(ctx context.Context) (*track.Postgres, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pg != nil {
		return s.pg, nil
	}
	b, err := track.NewPostgres(ctx, s.db)
	if err != nil {
		return nil, s.wrap(err)
	}
	s.pg = b
	return b, nil
}
