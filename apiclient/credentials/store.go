package credentials

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// Service is the keyring service name of every b2bx secret.
const Service = "b2bx"

// WebhookKeyID is the key ID of a profile's webhook signing secret (for
// `b2bx event`): the keyring account is "<profile>/webhook". It is not one
// of the profile's API keys, but it belongs to the profile: removing the
// profile removes it too.
const WebhookKeyID = "webhook"

// EnvKeyringTimeout overrides DefaultTimeout (a Go duration, e.g. "1m").
const EnvKeyringTimeout = "B2BX_KEYRING_TIMEOUT"

// DefaultTimeout bounds each keyring call. An unlock prompt may legitimately
// take a person a few seconds to answer; a hung provider should not stall
// b2bx for longer than this.
const DefaultTimeout = 20 * time.Second

// SecretStore keeps API key secrets by profile and key ID.
type SecretStore interface {
	// Get returns the secret; an error matches ErrNotFound when none is
	// stored.
	Get(ctx context.Context, profile, keyID string) (secret.Value, error)
	// Set stores or replaces the secret.
	Set(ctx context.Context, profile, keyID string, v secret.Value) error
	// Delete removes the secret; an error matches ErrNotFound when none was
	// stored.
	Delete(ctx context.Context, profile, keyID string) error
}

// Settler is implemented by stores whose calls can outlive their timeout
// (KeyringStore, Sticky): Settle waits until no abandoned call is still
// running, so a write that timed out cannot land after the caller has
// undone it. It fails when the call is still pending after the store's
// timeout or when ctx ends.
type Settler interface {
	Settle(ctx context.Context) error
}

// Sentinels for errors.Is on SecretStore errors.
var (
	ErrNotFound  = errors.New("no secret stored")
	ErrNoService = errors.New("no OS keyring (Secret Service) is available")
	ErrLocked    = errors.New("the keyring is locked")
	ErrTooLarge  = errors.New("the secret is too large for the keyring")
	ErrTimeout   = errors.New("the keyring did not answer in time")
	// ErrKeyring matches every other keyring failure.
	ErrKeyring = errors.New("the keyring failed")
)

// Account is the keyring account of a key: "<profile>/<key id>".
func Account(profile, keyID string) string { return profile + "/" + keyID }

// StoreError is a failed SecretStore call. Its text says which key, what
// went wrong and what to do; it never contains a secret.
type StoreError struct {
	Op      string // "get", "set" or "delete"
	Profile string
	KeyID   string
	Kind    error // one of the sentinels above
	Hint    string
	Err     error // the provider's error, if any

	goos    string        // for rebuilding Hint for another key (Sticky)
	timeout time.Duration // likewise
}

func (e *StoreError) Error() string {
	msg := fmt.Sprintf("keyring %s %s: %s", e.Op, Account(e.Profile, e.KeyID), e.Kind)
	if e.Err != nil && !errors.Is(e.Err, e.Kind) {
		msg += " (" + e.Err.Error() + ")"
	}
	if e.Hint != "" {
		msg += ": " + e.Hint
	}
	return msg
}

// Unwrap exposes the kind and the provider's error.
func (e *StoreError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// KeyringStore is the SecretStore on the OS keyring (Secret Service on
// Linux and BSD, Keychain on macOS, Credential Manager on Windows).
//
// Calls are serialised: one keyring call at a time per store. A call that
// times out is abandoned but may still complete (an unlock prompt answered
// late); until it does, further calls fail at once with ErrTimeout and say
// which call is pending, so nothing overtakes it. Settle waits for it, so
// an undo can run after the late write instead of before it.
type KeyringStore struct {
	backend   keyring.Keyring
	timeout   time.Duration
	goos      string
	preflight func() error // fails fast when no keyring can be reached

	mu      sync.Mutex
	current *inflight // the running call, nil when idle
}

// inflight is one running keyring call.
type inflight struct {
	op, profile, keyID string
	done               chan struct{} // closed when the provider returned
	abandoned          bool          // its caller timed out; guarded by KeyringStore.mu
}

// Option configures a KeyringStore.
type Option func(*KeyringStore)

// WithTimeout sets the per-call timeout (DefaultTimeout when d <= 0).
func WithTimeout(d time.Duration) Option {
	return func(k *KeyringStore) {
		if d > 0 {
			k.timeout = d
		}
	}
}

// WithBackend replaces go-keyring's OS provider, for tests of the error
// mapping and timeouts. The bus preflight is skipped for a custom backend.
func WithBackend(b keyring.Keyring) Option {
	return func(k *KeyringStore) {
		k.backend = b
		k.preflight = nil
	}
}

// NewKeyringStore returns the OS keyring store.
func NewKeyringStore(opts ...Option) *KeyringStore {
	k := &KeyringStore{backend: osKeyring{}, timeout: DefaultTimeout, goos: runtime.GOOS}
	k.preflight = func() error { return busPreflight(k.goos, os.Getenv, fileExists) }
	for _, o := range opts {
		o(k)
	}
	return k
}

// TimeoutFromEnv reads $B2BX_KEYRING_TIMEOUT; empty means DefaultTimeout.
func TimeoutFromEnv(getenv func(string) string) (time.Duration, error) {
	v := getenv(EnvKeyringTimeout)
	if v == "" {
		return DefaultTimeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("$%s=%q is not a positive duration such as 30s or 2m", EnvKeyringTimeout, v)
	}
	return d, nil
}

// Get implements SecretStore.
func (k *KeyringStore) Get(ctx context.Context, profile, keyID string) (secret.Value, error) {
	var v string
	err := k.call(ctx, "get", profile, keyID, func() error {
		var err error
		v, err = k.backend.Get(Service, Account(profile, keyID))
		return err
	})
	if err != nil {
		return secret.Value{}, err
	}
	if v == "" {
		return secret.Value{}, k.fail("get", profile, keyID, ErrNotFound, nil)
	}
	return secret.New(v), nil
}

// Set implements SecretStore. The size is checked against the platform's
// limit before the keyring is called.
func (k *KeyringStore) Set(ctx context.Context, profile, keyID string, v secret.Value) error {
	if v.IsZero() {
		return fmt.Errorf("keyring set %s: the secret is empty", Account(profile, keyID))
	}
	if limit := MaxSecretLen(k.goos, Service, Account(profile, keyID)); v.Len() > limit {
		return &StoreError{Op: "set", Profile: profile, KeyID: keyID, Kind: ErrTooLarge,
			Hint: tooLargeHint(k.goos, v.Len(), limit)}
	}
	return k.call(ctx, "set", profile, keyID, func() error {
		return k.backend.Set(Service, Account(profile, keyID), v.Reveal())
	})
}

// Delete implements SecretStore.
func (k *KeyringStore) Delete(ctx context.Context, profile, keyID string) error {
	return k.call(ctx, "delete", profile, keyID, func() error {
		return k.backend.Delete(Service, Account(profile, keyID))
	})
}

// call runs f on its own goroutine and gives up after the timeout or when
// ctx ends: some providers block on an unlock prompt or a dead bus. Only
// one call runs at a time; see KeyringStore for what happens to a call
// that was given up.
func (k *KeyringStore) call(ctx context.Context, op, profile, keyID string, f func() error) error {
	if k.preflight != nil {
		if err := k.preflight(); err != nil {
			return k.fail(op, profile, keyID, ErrNoService, err)
		}
	}
	tctx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	c, err := k.begin(tctx, &inflight{op: op, profile: profile, keyID: keyID, done: make(chan struct{})})
	if err != nil {
		return k.waitErr(ctx, op, profile, keyID, err)
	}
	res := make(chan error, 1)
	go func() {
		res <- f()
		k.mu.Lock()
		k.current = nil
		close(c.done)
		k.mu.Unlock()
	}()
	select {
	case err := <-res:
		return k.result(op, profile, keyID, err)
	case <-tctx.Done():
	}
	k.mu.Lock()
	select {
	case <-c.done: // finished just now: take its result
		k.mu.Unlock()
		return k.result(op, profile, keyID, <-res)
	default:
		c.abandoned = true
		k.mu.Unlock()
	}
	return k.waitErr(ctx, op, profile, keyID, nil)
}

// errPending is the cause of a call refused because an abandoned one is
// still running.
type errPending struct{ c *inflight }

func (e *errPending) Error() string {
	return "an earlier keyring call (" + e.c.op + " " + Account(e.c.profile, e.c.keyID) +
		") did not answer in time and is still pending; b2bx makes no further keyring call until it returns"
}

// begin waits for a running call to end and registers a new one; it
// refuses at once when the running call was abandoned.
func (k *KeyringStore) begin(ctx context.Context, c *inflight) (*inflight, error) {
	for {
		k.mu.Lock()
		cur := k.current
		if cur == nil {
			k.current = c
			k.mu.Unlock()
			return c, nil
		}
		abandoned := cur.abandoned
		k.mu.Unlock()
		if abandoned {
			return nil, &errPending{c: cur}
		}
		select {
		case <-cur.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// waitErr is the error of a call that ran out of time (cause nil) or was
// refused (cause *errPending).
func (k *KeyringStore) waitErr(ctx context.Context, op, profile, keyID string, cause error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("keyring %s %s: %w", op, Account(profile, keyID), ctx.Err())
	}
	var pe *errPending
	if errors.As(cause, &pe) {
		return k.fail(op, profile, keyID, ErrTimeout, cause)
	}
	return k.fail(op, profile, keyID, ErrTimeout, nil)
}

func (k *KeyringStore) result(op, profile, keyID string, err error) error {
	if err == nil {
		return nil
	}
	return k.fail(op, profile, keyID, classify(err), err)
}

// errStillPending is the cause of a Settle that waited in vain.
var errStillPending = errors.New("still pending after waiting once more; it may complete whenever the keyring answers")

// Settle implements Settler: it waits, at most the store's timeout, until
// no abandoned call is pending.
func (k *KeyringStore) Settle(ctx context.Context) error {
	k.mu.Lock()
	cur := k.current
	k.mu.Unlock()
	if cur == nil {
		return nil
	}
	tctx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	select {
	case <-cur.done:
		return nil
	case <-tctx.Done():
		if ctx.Err() != nil {
			return fmt.Errorf("waiting for the keyring: %w", ctx.Err())
		}
		return k.fail(cur.op, cur.profile, cur.keyID, ErrTimeout, errStillPending)
	}
}

func (k *KeyringStore) fail(op, profile, keyID string, kind, cause error) error {
	return &StoreError{Op: op, Profile: profile, KeyID: keyID, Kind: kind, Err: cause,
		Hint: hint(kind, k.goos, op, profile, keyID, k.timeout), goos: k.goos, timeout: k.timeout}
}

// osKeyring calls go-keyring's package functions, so keyring.MockInit in
// tests swaps the OS provider underneath it.
type osKeyring struct{}

func (osKeyring) Get(service, user string) (string, error) { return keyring.Get(service, user) }
func (osKeyring) Set(service, user, pass string) error     { return keyring.Set(service, user, pass) }
func (osKeyring) Delete(service, user string) error        { return keyring.Delete(service, user) }
func (osKeyring) DeleteAll(service string) error           { return keyring.DeleteAll(service) }

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
