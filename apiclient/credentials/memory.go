package credentials

import (
	"context"
	"sync"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// MemoryStore is an in-memory SecretStore for tests and demos. It is safe
// for concurrent use. Err, when set, fails every call with that error
// (wrapped like the keyring's), to test callers' error paths.
type MemoryStore struct {
	mu      sync.Mutex
	secrets map[string]secret.Value
	err     error
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{secrets: map[string]secret.Value{}}
}

// FailWith makes every later call fail with kind (e.g. ErrNoService); nil
// heals the store.
func (m *MemoryStore) FailWith(kind error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.err = kind
}

func (m *MemoryStore) failure(op, profile, keyID string, kind error) error {
	return &StoreError{Op: op, Profile: profile, KeyID: keyID, Kind: kind,
		Hint: hint(kind, "linux", op, profile, keyID, DefaultTimeout), goos: "linux", timeout: DefaultTimeout}
}

// Get implements SecretStore.
func (m *MemoryStore) Get(_ context.Context, profile, keyID string) (secret.Value, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return secret.Value{}, m.failure("get", profile, keyID, m.err)
	}
	v, ok := m.secrets[Account(profile, keyID)]
	if !ok {
		return secret.Value{}, m.failure("get", profile, keyID, ErrNotFound)
	}
	return v, nil
}

// Set implements SecretStore.
func (m *MemoryStore) Set(_ context.Context, profile, keyID string, v secret.Value) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.failure("set", profile, keyID, m.err)
	}
	m.secrets[Account(profile, keyID)] = v
	return nil
}

// Delete implements SecretStore.
func (m *MemoryStore) Delete(_ context.Context, profile, keyID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.failure("delete", profile, keyID, m.err)
	}
	a := Account(profile, keyID)
	if _, ok := m.secrets[a]; !ok {
		return m.failure("delete", profile, keyID, ErrNotFound)
	}
	delete(m.secrets, a)
	return nil
}

// Accounts lists the stored accounts ("<profile>/<key id>"), for tests.
func (m *MemoryStore) Accounts() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.secrets))
	for a := range m.secrets {
		out = append(out, a)
	}
	return out
}
