package credentials

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// EnvAPIKey holds "<key-id>:<secret>" for automation. It is consulted after
// the keyring, only for the key ID it names, and never logged.
const EnvAPIKey = "B2BX_API_KEY"

// Source says where a secret came from.
type Source string

// Secret sources.
const (
	SourceKeyring Source = "keyring"
	SourceEnv     Source = "env"
)

// Key is one resolved key of a profile.
type Key struct {
	KeyID string
	Uses  []Use
	// Credential is zero when the secret was not found.
	Credential secret.Credential
	// Source is "" when the secret was not found.
	Source Source
	// StoreErr is why the store did not give the secret: nil when it did;
	// with Source env it explains the fallback (ErrNotFound in the normal
	// automation case).
	StoreErr error
}

// Resolved is a profile with its secrets.
type Resolved struct {
	Profile Profile
	Inbox   Key
	Mailbox Key
}

// ResolveKey finds the secret of one key: the store first, then
// $B2BX_API_KEY when it names the same key ID. The error says what to do.
func ResolveKey(ctx context.Context, store SecretStore, profile string, ref KeyRef, getenv func(string) string) (Key, error) {
	k := Key{KeyID: ref.KeyID, Uses: ref.Uses}
	v, err := store.Get(ctx, profile, ref.KeyID)
	if err == nil {
		k.Credential = secret.Credential{KeyID: ref.KeyID, Secret: v}
		k.Source = SourceKeyring
		return k, nil
	}
	if ctx.Err() != nil {
		return k, err
	}
	k.StoreErr = err
	raw := getenv(EnvAPIKey)
	if raw == "" {
		return k, err
	}
	cred, perr := secret.ParseCredential(raw)
	if perr != nil {
		return k, fmt.Errorf("%w; $%s is set but unusable: %v", err, EnvAPIKey, perr)
	}
	if cred.KeyID != ref.KeyID {
		return k, fmt.Errorf("%w; $%s holds key %q, not %q", err, EnvAPIKey, cred.KeyID, ref.KeyID)
	}
	k.Credential = cred
	k.Source = SourceEnv
	return k, nil
}

// Resolve finds the secrets of every key of p (one lookup when one key
// serves inbox and mailbox).
func Resolve(ctx context.Context, store SecretStore, p Profile, getenv func(string) string) (Resolved, error) {
	r := Resolved{Profile: p}
	for _, ref := range p.Keys() {
		k, err := ResolveKey(ctx, store, p.Name, ref, getenv)
		if err != nil {
			return r, fmt.Errorf("profile %q, %s key: %w", p.Name, usesText(ref.Uses), err)
		}
		for _, u := range ref.Uses {
			if u == UseInbox {
				r.Inbox = k
			} else {
				r.Mailbox = k
			}
		}
	}
	return r, nil
}

// Inspect reports each key of p with where its secret is (or why it is
// not), for listings. It never fails as a whole.
func Inspect(ctx context.Context, store SecretStore, p Profile, getenv func(string) string) []Key {
	var out []Key
	for _, ref := range p.Keys() {
		k, err := ResolveKey(ctx, store, p.Name, ref, getenv)
		if err != nil {
			k.StoreErr = err
		}
		k.Credential.Secret = secret.Value{} // a listing never needs the secret
		out = append(out, k)
	}
	return out
}

func usesText(uses []Use) string {
	s := make([]string, len(uses))
	for i, u := range uses {
		s[i] = string(u)
	}
	return strings.Join(s, "+")
}

// Sticky wraps store so that after a call fails because the keyring is
// unreachable (ErrNoService, ErrLocked, ErrTimeout) later calls fail the
// same way at once: listing twenty profiles must not wait twenty timeouts.
// The result is a Settler: Settle waits for the wrapped store's pending
// call and, once the keyring has answered, lifts a timeout's stickiness so
// an undo can run.
func Sticky(store SecretStore) SecretStore { return &sticky{SecretStore: store} }

// Settle implements Settler.
func (s *sticky) Settle(ctx context.Context) error {
	if st, ok := s.SecretStore.(Settler); ok {
		if err := st.Settle(ctx); err != nil {
			return err
		}
	}
	s.mu.Lock()
	if errors.Is(s.dead, ErrTimeout) {
		s.dead = nil
	}
	s.mu.Unlock()
	return nil
}

type sticky struct {
	SecretStore
	mu   sync.Mutex
	dead error
}

func (s *sticky) check(op, profile, keyID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead == nil {
		return nil
	}
	var se *StoreError
	if errors.As(s.dead, &se) {
		c := *se
		c.Op, c.Profile, c.KeyID = op, profile, keyID
		c.Hint = hint(c.Kind, c.goos, op, profile, keyID, c.timeout)
		return &c
	}
	return s.dead
}

func (s *sticky) note(err error) error {
	if errors.Is(err, ErrNoService) || errors.Is(err, ErrLocked) || errors.Is(err, ErrTimeout) {
		s.mu.Lock()
		s.dead = err
		s.mu.Unlock()
	}
	return err
}

func (s *sticky) Get(ctx context.Context, profile, keyID string) (secret.Value, error) {
	if err := s.check("get", profile, keyID); err != nil {
		return secret.Value{}, err
	}
	v, err := s.SecretStore.Get(ctx, profile, keyID)
	return v, s.note(err)
}

func (s *sticky) Set(ctx context.Context, profile, keyID string, v secret.Value) error {
	if err := s.check("set", profile, keyID); err != nil {
		return err
	}
	return s.note(s.SecretStore.Set(ctx, profile, keyID, v))
}

func (s *sticky) Delete(ctx context.Context, profile, keyID string) error {
	if err := s.check("delete", profile, keyID); err != nil {
		return err
	}
	return s.note(s.SecretStore.Delete(ctx, profile, keyID))
}
