package session

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zalando/go-keyring"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// lateStore is a MemoryStore whose Set of one key times out but lands
// later, when the store settles (an unlock prompt answered after b2bx gave
// up). While that write is pending every other call is refused, as
// KeyringStore does.
type lateStore struct {
	*credentials.MemoryStore
	mu      sync.Mutex
	lateKey string
	pending func() // the write that has not landed yet
	settles int
}

func (l *lateStore) busy(op, profile, keyID string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending != nil {
		return &credentials.StoreError{Op: op, Profile: profile, KeyID: keyID, Kind: credentials.ErrTimeout, Err: errors.New("pending")}
	}
	return nil
}

func (l *lateStore) Get(ctx context.Context, profile, keyID string) (secret.Value, error) {
	if err := l.busy("get", profile, keyID); err != nil {
		return secret.Value{}, err
	}
	return l.MemoryStore.Get(ctx, profile, keyID)
}

func (l *lateStore) Set(ctx context.Context, profile, keyID string, v secret.Value) error {
	if err := l.busy("set", profile, keyID); err != nil {
		return err
	}
	if keyID == l.lateKey {
		l.mu.Lock()
		l.pending = func() { _ = l.MemoryStore.Set(ctx, profile, keyID, v) }
		l.mu.Unlock()
		return &credentials.StoreError{Op: "set", Profile: profile, KeyID: keyID, Kind: credentials.ErrTimeout}
	}
	return l.MemoryStore.Set(ctx, profile, keyID, v)
}

func (l *lateStore) Delete(ctx context.Context, profile, keyID string) error {
	if err := l.busy("delete", profile, keyID); err != nil {
		return err
	}
	return l.MemoryStore.Delete(ctx, profile, keyID)
}

// Settle lets the pending write land, then returns.
func (l *lateStore) Settle(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.settles++
	if l.pending != nil {
		l.pending()
		l.pending = nil
	}
	return nil
}

// TestUndoAccountsForALateWrite: a Set that timed out may land later; the
// rollback waits for it and then removes it too, so no secret of a
// profile that was never saved stays behind.
func TestUndoAccountsForALateWrite(t *testing.T) {
	ctx := context.Background()
	m := credentials.NewMemoryStore()
	require.NoError(t, m.Set(ctx, "acme", "key-up", secret.New("old-up")))
	ls := &lateStore{MemoryStore: m, lateKey: "key-mb"}

	_, err := StoreSecrets(ctx, ls, "acme", []KeySecret{{KeyID: "key-up", Secret: secret.New(canaryIn)}, {KeyID: "key-mb", Secret: secret.New(canaryMb)}})
	require.ErrorIs(t, err, credentials.ErrTimeout)
	require.NotErrorIs(t, err, ErrRollbackFailed)
	noCanary(t, err.Error())
	require.Equal(t, 1, ls.settles, "the undo waited for the pending call")
	require.NoError(t, ls.Settle(ctx), "anything still pending lands now")
	require.Equal(t, []string{"acme/key-up"}, m.Accounts(), "the late secret was removed by the undo, after it landed")
	v, err := m.Get(ctx, "acme", "key-up")
	require.NoError(t, err)
	require.Equal(t, "old-up", v.Reveal())
}

// hungBackend never answers Set, like a provider stuck on a prompt.
type hungBackend struct {
	mu    sync.Mutex
	data  map[string]string
	never chan struct{}
}

func (h *hungBackend) Get(_, user string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.data[user]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}

func (h *hungBackend) Set(_, user, pass string) error {
	if user == "acme/key-mb" {
		<-h.never
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.data[user] = pass
	return nil
}

func (h *hungBackend) Delete(_, user string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.data, user)
	return nil
}

func (h *hungBackend) DeleteAll(string) error { return nil }

// TestAddProfileWithHungKeyringSaysWhatMayHaveChanged: when the keyring
// never answers, the rollback cannot run; the error says so and names the
// entries to check instead of claiming nothing changed, and the profile
// file is not written.
func TestAddProfileWithHungKeyringSaysWhatMayHaveChanged(t *testing.T) {
	ctx := context.Background()
	te := newTestEnv(t)
	hb := &hungBackend{data: map[string]string{}, never: make(chan struct{})}
	t.Cleanup(func() { close(hb.never) })
	store := credentials.Sticky(credentials.NewKeyringStore(credentials.WithBackend(hb), credentials.WithTimeout(20*time.Millisecond)))

	err := AddProfile(ctx, te.file(t), twoKeys(), twoSecrets(), store)
	require.ErrorIs(t, err, credentials.ErrTimeout)
	require.ErrorIs(t, err, ErrRollbackFailed)
	var se *StageError
	require.ErrorAs(t, err, &se)
	require.Equal(t, StageSecrets, se.Stage)
	require.ErrorContains(t, err, "acme/key-up, acme/key-mb may hold the new secret or none")
	require.ErrorContains(t, err, "b2bx conn set-secret acme")
	require.ErrorContains(t, err, "rolling back the keyring failed (the keyring did not answer in time: still pending after waiting once more")
	noCanary(t, err.Error())
	_, serr := os.Stat(te.path)
	require.ErrorIs(t, serr, os.ErrNotExist, "no profile without its secrets")
}
