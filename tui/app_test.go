package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/tui/connlist"
)

// recordingEnv counts what the app reads of the outside world.
type recordingEnv struct {
	mu    sync.Mutex
	reads []string
	vars  map[string]string
}

func (r *recordingEnv) getenv(k string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads = append(r.reads, k)
	return r.vars[k]
}

func (r *recordingEnv) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reads)
}

// blockingStore is a secret store that never answers (a keyring waiting
// on an unlock prompt) and counts calls.
type blockingStore struct {
	mu    sync.Mutex
	calls int
}

func (s *blockingStore) call(ctx context.Context) error {
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	<-ctx.Done()
	return ctx.Err()
}
func (s *blockingStore) Get(ctx context.Context, _, _ string) (secret.Value, error) {
	return secret.Value{}, s.call(ctx)
}
func (s *blockingStore) Set(ctx context.Context, _, _ string, _ secret.Value) error {
	return s.call(ctx)
}
func (s *blockingStore) Delete(ctx context.Context, _, _ string) error { return s.call(ctx) }

// writeProfiles writes n profiles into a temp profile file.
func writeProfiles(t testing.TB, n int) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "profiles.toml")
	f, err := credentials.Load(cfg)
	require.NoError(t, err)
	for i := range n {
		require.NoError(t, f.Put(credentials.Profile{Name: fmt.Sprintf("conn-%02d", i), URL: "https://api.example.com",
			ConnectionID: fmt.Sprintf("c-%d", i), InboxKeyID: "k-in", MailboxKeyID: "k-mb"}))
	}
	require.NoError(t, f.Save())
	return cfg
}

// TestFirstFrameWaitsOnNothing: building the app, Init and the first
// frames read no file, no environment and no secret store; all of that
// happens in the Cmds, after the frame is on screen.
func TestFirstFrameWaitsOnNothing(t *testing.T) {
	env := &recordingEnv{vars: map[string]string{credentials.EnvConfig: writeProfiles(t, 3)}}
	store := &blockingStore{}
	m, err := NewApp(context.Background(), Options{Env: session.Env{Getenv: env.getenv, Store: store}, Open: []string{"conn-00"}})
	require.NoError(t, err)
	cmd := m.Init()
	require.NotNil(t, cmd)
	require.Equal(t, "b2bx: starting…", m.View())
	nm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 36})
	v := nm.View()
	require.Contains(t, v, "Reading the connection profiles")
	require.Contains(t, v, "(opening 1…)")
	require.Zero(t, env.count(), "no environment read before the Cmds run")
	require.Zero(t, store.calls, "no keyring call before the Cmds run")
}

func TestNewAppNeedsAStore(t *testing.T) {
	_, err := NewApp(context.Background(), Options{})
	require.ErrorContains(t, err, "Env.Store is required")
}

// TestWaitHoldsTheBackgroundWork: b2bx demo's simulator start; its failure
// shows where the list and the tabs would be.
func TestWaitHoldsTheBackgroundWork(t *testing.T) {
	env := &recordingEnv{vars: map[string]string{credentials.EnvConfig: writeProfiles(t, 1)}}
	failed := errors.New("the demo simulator did not start: port in use")
	m, err := NewApp(context.Background(), Options{Env: session.Env{Getenv: env.getenv, Store: credentials.NewMemoryStore()},
		Open: []string{"conn-00"}, Wait: func(context.Context) error { return failed }, NewTab: newFakeBackend().NewTab})
	require.NoError(t, err)
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 36})
	for _, msg := range collect(m.Init()) {
		m = update(t, m, msg)
	}
	v := m.View()
	require.Contains(t, v, "The profile file could not be read")
	require.Contains(t, v, "opening conn-00: the demo simulator did not start: port in use")
	require.Zero(t, env.count(), "nothing read before Wait says ready")
}

// TestAppOpensARealConnection goes through session: the profile's secret
// from the store, the client built, the tab made by NewTab.
func TestAppOpensARealConnection(t *testing.T) {
	cfg := writeProfiles(t, 2)
	data := filepath.Join(t.TempDir(), "data")
	store := credentials.NewMemoryStore()
	for _, k := range []string{"k-in", "k-mb"} {
		require.NoError(t, store.Set(context.Background(), "conn-01", k, secret.New("CANARY-app-test-secret-0123456789")))
	}
	vars := map[string]string{credentials.EnvConfig: cfg, "B2BX_DATA_DIR": data}
	be := newFakeBackend()
	m, err := NewApp(context.Background(), Options{Env: session.Env{Getenv: func(k string) string { return vars[k] }, Store: store},
		NewTab: be.NewTab})
	require.NoError(t, err)
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 36})
	for _, msg := range collect(m.Init()) {
		nm, cmd := m.Update(msg)
		m = nm.(Model)
		for _, next := range collect(cmd) {
			m = update(t, m, next)
		}
	}
	v := m.View()
	require.Contains(t, v, "conn-00")
	require.Contains(t, v, "✗ missing", "conn-00 has no secret")
	require.Contains(t, v, "✓ keyring")

	m = press(t, m, "j")
	m, cmd := updateCmd(t, m, keyMsg("enter"))
	msgs := collect(cmd)
	require.Equal(t, []tea.Msg{connlist.OpenMsg{Name: "conn-01"}}, msgs)
	m, cmd = updateCmd(t, m, msgs[0])
	msgs = collect(cmd) // the connect Cmd
	require.Len(t, msgs, 1)
	m = update(t, m, msgs[0])
	require.Len(t, m.tabs, 1)
	require.Equal(t, "conn-01", m.tabs[0].conn.Target.Name)
	require.Equal(t, "k-mb", m.tabs[0].conn.Target.Mailbox.KeyID)
	require.DirExists(t, data, "the connection's spool is opened")
	_, err = os.Stat(cfg)
	require.NoError(t, err)
}

// TestOnFirstFrameRunsOnceAfterTheFirstSize: b2bx demo's simulator start
// waits for the first full frame.
func TestOnFirstFrameRunsOnceAfterTheFirstSize(t *testing.T) {
	calls := 0
	m, err := NewApp(context.Background(), Options{Env: session.Env{Store: credentials.NewMemoryStore()}, OnFirstFrame: func() { calls++ }})
	require.NoError(t, err)
	m, cmd := updateCmd(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	require.NotNil(t, cmd, "a tick after the first size")
	require.Zero(t, calls, "not before the frame is drawn")
	_, again := updateCmd(t, m, tea.WindowSizeMsg{Width: 110, Height: 30})
	require.Nil(t, again, "only the first size")
	m, cmd = updateCmd(t, m, firstFrameMsg{})
	require.Zero(t, calls, "called from a Cmd, not from Update")
	require.Nil(t, cmd())
	require.Equal(t, 1, calls)
	_ = m
}
