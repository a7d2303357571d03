package credentials

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zalando/go-keyring"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// gateBackend is an in-memory keyring.Keyring whose calls block while
// gate is set, like a provider waiting on an unlock prompt. It records the
// order in which calls reached the provider.
type gateBackend struct {
	mu   sync.Mutex
	gate chan struct{} // calls block until it is closed; nil: no blocking
	data map[string]string
	log  []string
}

func (g *gateBackend) enter(op, user string) {
	g.mu.Lock()
	gate := g.gate
	g.mu.Unlock()
	if gate != nil {
		<-gate
	}
	g.mu.Lock()
	g.log = append(g.log, op+" "+user)
	g.mu.Unlock()
}

func (g *gateBackend) Get(_, user string) (string, error) {
	g.enter("get", user)
	g.mu.Lock()
	defer g.mu.Unlock()
	v, ok := g.data[user]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}

func (g *gateBackend) Set(_, user, pass string) error {
	g.enter("set", user)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.data[user] = pass
	return nil
}

func (g *gateBackend) Delete(_, user string) error {
	g.enter("delete", user)
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.data[user]; !ok {
		return keyring.ErrNotFound
	}
	delete(g.data, user)
	return nil
}

func (g *gateBackend) DeleteAll(string) error { return errors.New("not supported") }

func (g *gateBackend) calls() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.log...)
}

func newGate() *gateBackend {
	return &gateBackend{gate: make(chan struct{}), data: map[string]string{}}
}

// TestTimedOutSetCannotOvertakeLaterCalls: after a Set timed out, the
// store refuses further calls at once while it is pending (the provider
// is not called), Settle waits for it, and only then does a Delete run —
// so the late write cannot land after the undo.
func TestTimedOutSetCannotOvertakeLaterCalls(t *testing.T) {
	ctx := context.Background()
	g := newGate()
	s := NewKeyringStore(WithBackend(g), WithTimeout(20*time.Millisecond))

	err := s.Set(ctx, "acme", "k1", secret.New(canary))
	require.ErrorIs(t, err, ErrTimeout)

	err = s.Delete(ctx, "acme", "k1")
	require.ErrorIs(t, err, ErrTimeout, "refused while the Set is pending")
	require.ErrorContains(t, err, "an earlier keyring call (set acme/k1) did not answer in time and is still pending")
	require.NotContains(t, err.Error(), canary)
	_, err = s.Get(ctx, "other", "k2")
	require.ErrorIs(t, err, ErrTimeout, "any key: one call at a time per store")
	require.Empty(t, g.calls(), "nothing reached the provider")

	err = s.Settle(ctx)
	require.ErrorIs(t, err, ErrTimeout, "still pending after waiting once more")
	require.ErrorContains(t, err, "keyring set acme/k1")
	require.ErrorContains(t, err, "still pending after waiting once more")

	s.timeout = time.Hour // Settle now waits for the provider, not the clock
	go func() {
		g.mu.Lock()
		close(g.gate) // the unlock prompt is answered late
		g.gate = nil
		g.mu.Unlock()
	}()
	require.NoError(t, s.Settle(ctx))
	require.NoError(t, s.Delete(ctx, "acme", "k1"))
	require.Equal(t, []string{"set acme/k1", "delete acme/k1"}, g.calls(), "the undo ran after the late write")
	_, err = s.Get(ctx, "acme", "k1")
	require.ErrorIs(t, err, ErrNotFound, "the late write did not survive the undo")
	require.NoError(t, s.Settle(ctx), "nothing pending: at once")
}

// TestConcurrentCallsAreSerialised: a second caller waits for a running
// call that has not timed out instead of racing it.
func TestConcurrentCallsAreSerialised(t *testing.T) {
	ctx := context.Background()
	g := newGate()
	s := NewKeyringStore(WithBackend(g), WithTimeout(time.Hour))
	first := make(chan error, 1)
	go func() { first <- s.Set(ctx, "acme", "k1", secret.New("v1")) }()
	// Wait until the first call holds the store.
	for {
		s.mu.Lock()
		busy := s.current != nil
		s.mu.Unlock()
		if busy {
			break
		}
		time.Sleep(time.Millisecond)
	}
	second := make(chan error, 1)
	go func() { second <- s.Delete(ctx, "acme", "k1") }()
	g.mu.Lock()
	close(g.gate)
	g.gate = nil
	g.mu.Unlock()
	require.NoError(t, <-first)
	require.NoError(t, <-second)
	require.Equal(t, []string{"set acme/k1", "delete acme/k1"}, g.calls())
}

// TestStickySettleLiftsATimeout: Sticky refuses everything after a
// timeout; once the pending call has returned, Settle lifts that so an
// undo can run. Unreachable (no service) stays sticky.
func TestStickySettleLiftsATimeout(t *testing.T) {
	ctx := context.Background()
	g := newGate()
	k := NewKeyringStore(WithBackend(g), WithTimeout(20*time.Millisecond))
	s := Sticky(k)
	require.ErrorIs(t, s.Set(ctx, "acme", "k1", secret.New("v")), ErrTimeout)
	require.ErrorIs(t, s.Delete(ctx, "acme", "k1"), ErrTimeout)

	k.timeout = time.Hour
	g.mu.Lock()
	close(g.gate)
	g.gate = nil
	g.mu.Unlock()
	st, ok := s.(Settler)
	require.True(t, ok, "Sticky is a Settler")
	require.NoError(t, st.Settle(ctx))
	require.NoError(t, s.Delete(ctx, "acme", "k1"), "usable again: the keyring answered")

	m := NewMemoryStore()
	sm := Sticky(m)
	m.FailWith(ErrNoService)
	_, err := sm.Get(ctx, "acme", "k1")
	require.ErrorIs(t, err, ErrNoService)
	m.FailWith(nil)
	require.NoError(t, sm.(Settler).Settle(ctx))
	_, err = sm.Get(ctx, "acme", "k1")
	require.ErrorIs(t, err, ErrNoService, "no keyring stays sticky")
}
