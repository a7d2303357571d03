package credentials

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dbus "github.com/godbus/dbus/v5"
	"github.com/stretchr/testify/require"
	"github.com/zalando/go-keyring"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// fakeBackend is a keyring.Keyring that fails with err, or blocks until
// release is closed, and counts calls.
type fakeBackend struct {
	mu      sync.Mutex
	err     error
	release chan struct{}
	calls   int
	data    map[string]string
}

func (f *fakeBackend) do() error {
	f.mu.Lock()
	f.calls++
	rel, err := f.release, f.err
	f.mu.Unlock()
	if rel != nil {
		<-rel
	}
	return err
}

func (f *fakeBackend) Get(s, u string) (string, error) {
	if err := f.do(); err != nil {
		return "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.data[s+"|"+u]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}

func (f *fakeBackend) Set(s, u, p string) error {
	if err := f.do(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.data == nil {
		f.data = map[string]string{}
	}
	f.data[s+"|"+u] = p
	return nil
}

func (f *fakeBackend) Delete(s, u string) error { return f.do() }
func (f *fakeBackend) DeleteAll(string) error   { return f.do() }

func (f *fakeBackend) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// mockStore uses go-keyring's mock provider through the real code path.
// keyring.MockInit is global: these tests do not run in parallel.
func mockStore(t *testing.T) *KeyringStore {
	t.Helper()
	keyring.MockInit()
	s := NewKeyringStore()
	s.preflight = nil // the mock needs no D-Bus
	return s
}

func TestKeyringStoreWithMockProvider(t *testing.T) {
	s := mockStore(t)
	ctx := context.Background()

	_, err := s.Get(ctx, "acme", "k1")
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorContains(t, err, "b2bx conn set-secret acme --key-id k1")

	require.NoError(t, s.Set(ctx, "acme", "k1", secret.New(canary)))
	raw, err := keyring.Get("b2bx", "acme/k1")
	require.NoError(t, err, `service "b2bx", account "<profile>/<key id>"`)
	require.Equal(t, canary, raw)

	v, err := s.Get(ctx, "acme", "k1")
	require.NoError(t, err)
	require.Equal(t, canary, v.Reveal())

	require.NoError(t, s.Set(ctx, "acme", "k1", secret.New(canary+"-rotated")))
	v, err = s.Get(ctx, "acme", "k1")
	require.NoError(t, err)
	require.Equal(t, canary+"-rotated", v.Reveal())

	require.NoError(t, s.Delete(ctx, "acme", "k1"))
	require.ErrorIs(t, s.Delete(ctx, "acme", "k1"), ErrNotFound)
	_, err = s.Get(ctx, "acme", "k1")
	require.ErrorIs(t, err, ErrNotFound)

	require.ErrorContains(t, s.Set(ctx, "acme", "k1", secret.Value{}), "empty")
}

func TestKeyringStoreMockInitWithError(t *testing.T) {
	keyring.MockInitWithError(errDBusServiceUnknown())
	s := NewKeyringStore()
	s.preflight = nil
	err := s.Set(context.Background(), "acme", "k1", secret.New(canary))
	require.ErrorIs(t, err, ErrNoService)
	require.NotContains(t, err.Error(), canary)
	keyring.MockInit()
}

func TestErrorMappingIsActionable(t *testing.T) {
	opErr := &net.OpError{Op: "dial", Net: "unix", Err: os.NewSyscallError("connect", syscall.ENOENT)}
	for _, tc := range []struct {
		name string
		err  error
		kind error
		hint []string
	}{
		{"service unknown", dbus.Error{Name: "org.freedesktop.DBus.Error.ServiceUnknown", Body: []any{"The name org.freedesktop.secrets was not provided by any .service files"}},
			ErrNoService, []string{"gnome-keyring", "KeePassXC", "gnome-keyring-daemon --unlock --components=secrets", "dbus-run-session", "B2BX_API_KEY=k1:<secret>"}},
		{"activation failed", &dbus.Error{Name: "org.freedesktop.DBus.Error.Spawn.ChildExited"}, ErrNoService, []string{"install and start"}},
		{"no dbus-launch", &exec.Error{Name: "dbus-launch", Err: exec.ErrNotFound}, ErrNoService, []string{"gnome-keyring"}},
		{"bus socket gone", opErr, ErrNoService, []string{"gnome-keyring"}},
		{"bad bus address", errors.New("dbus: invalid bus address (invalid or unsupported transport)"), ErrNoService, nil},
		{"is locked", dbus.Error{Name: "org.freedesktop.Secret.Error.IsLocked"}, ErrLocked, []string{"unlock", "Seahorse", "KeePassXC"}},
		{"unlock prompt failed", errors.New("failed to unlock correct collection '/org/freedesktop/secrets/aliases/default'"), ErrLocked, []string{"unlock"}},
		{"no collection", dbus.Error{Name: "org.freedesktop.Secret.Error.NoSuchObject"}, ErrLocked, nil},
		{"no reply", dbus.Error{Name: "org.freedesktop.DBus.Error.NoReply"}, ErrTimeout, []string{EnvKeyringTimeout}},
		{"not found", keyring.ErrNotFound, ErrNotFound, []string{"b2bx conn set-secret acme --key-id k1"}},
		{"too big", keyring.ErrSetDataTooBig, ErrTooLarge, nil},
		{"other", errors.New("something odd"), ErrKeyring, []string{"B2BX_API_KEY"}},
	} {
		s := NewKeyringStore(WithBackend(&fakeBackend{err: tc.err}))
		s.goos = "linux"
		_, err := s.Get(context.Background(), "acme", "k1")
		require.ErrorIs(t, err, tc.kind, tc.name)
		var se *StoreError
		require.ErrorAs(t, err, &se)
		require.Equal(t, "get", se.Op)
		require.Equal(t, tc.err, se.Err, "%s: the cause stays reachable", tc.name)
		require.Contains(t, err.Error(), "acme/k1", tc.name)
		for _, h := range tc.hint {
			require.Contains(t, err.Error(), h, tc.name)
		}
	}
}

func TestTimeoutOnHungProvider(t *testing.T) {
	fb := &fakeBackend{release: make(chan struct{})}
	defer close(fb.release)
	s := NewKeyringStore(WithBackend(fb), WithTimeout(50*time.Millisecond))
	err := s.Set(context.Background(), "acme", "k1", secret.New(canary))
	require.ErrorIs(t, err, ErrTimeout)
	require.Contains(t, err.Error(), "no answer within 50ms")
	require.Contains(t, err.Error(), "unlock prompt")
	require.Contains(t, err.Error(), EnvKeyringTimeout)
	require.NotContains(t, err.Error(), canary)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = NewKeyringStore(WithBackend(fb), WithTimeout(time.Hour)).Get(ctx, "acme", "k1")
	require.ErrorIs(t, err, context.Canceled)
	require.NotErrorIs(t, err, ErrTimeout, "a cancelled command is not a keyring timeout")
}

func TestTimeoutFromEnv(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{{"", DefaultTimeout, true}, {"2m", 2 * time.Minute, true}, {"0s", 0, false}, {"-1s", 0, false}, {"soon", 0, false}} {
		d, err := TimeoutFromEnv(func(string) string { return tc.v })
		if !tc.ok {
			require.ErrorContains(t, err, EnvKeyringTimeout)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, d)
	}
}

func TestSecretSizeCheckedBeforeCallingKeyring(t *testing.T) {
	require.Equal(t, 2560, MaxSecretLen("windows", Service, "acme/k1"))
	mac := MaxSecretLen("darwin", Service, "acme/k1")
	require.True(t, mac > 2900 && mac < 3072, "macOS about 3 KB, got %d", mac)
	require.Equal(t, 64<<10, MaxSecretLen("linux", Service, "acme/k1"))

	for _, tc := range []struct {
		goos  string
		n     int
		ok    bool
		shows string
	}{
		{"windows", 2560, true, ""}, {"windows", 2561, false, "Windows keyring takes at most 2560"},
		{"darwin", mac, true, ""}, {"darwin", mac + 1, false, "macOS keyring"},
		{"linux", 64 << 10, true, ""}, {"linux", 64<<10 + 1, false, "at most 65536"},
	} {
		fb := &fakeBackend{}
		s := NewKeyringStore(WithBackend(fb))
		s.goos = tc.goos
		err := s.Set(context.Background(), "acme", "k1", secret.New(strings.Repeat("x", tc.n)))
		if tc.ok {
			require.NoError(t, err, tc.goos)
			require.Equal(t, 1, fb.count())
			continue
		}
		require.ErrorIs(t, err, ErrTooLarge, tc.goos)
		require.Contains(t, err.Error(), tc.shows)
		require.Contains(t, err.Error(), fmt.Sprintf("it is %d bytes", tc.n))
		require.Zero(t, fb.count(), "the keyring is not called with an oversized secret")
	}
}

func TestBusPreflight(t *testing.T) {
	none := func(string) bool { return false }
	for _, tc := range []struct {
		goos, addr string
		exists     func(string) bool
		ok         bool
	}{
		{"linux", "unix:path=/run/user/1000/bus", none, true},
		{"linux", "", none, false},
		{"linux", "autolaunch:", none, false},
		{"linux", "disabled:", none, false},
		{"linux", "", func(p string) bool { return strings.HasSuffix(p, "/bus") }, true},
		{"freebsd", "", none, false},
		{"darwin", "", none, true},
		{"windows", "", none, true},
	} {
		err := busPreflight(tc.goos, func(string) string { return tc.addr }, tc.exists)
		require.Equal(t, tc.ok, err == nil, "%s %q: %v", tc.goos, tc.addr, err)
	}

	fb := &fakeBackend{}
	s := NewKeyringStore()
	s.backend = fb
	s.preflight = func() error { return busPreflight("linux", func(string) string { return "" }, none) }
	_, err := s.Get(context.Background(), "acme", "k1")
	require.ErrorIs(t, err, ErrNoService)
	require.Contains(t, err.Error(), "DBUS_SESSION_BUS_ADDRESS is not set")
	require.Zero(t, fb.count(), "godbus never gets to autolaunch a bus")
}

func TestMemoryStore(t *testing.T) {
	m := NewMemoryStore()
	ctx := context.Background()
	_, err := m.Get(ctx, "p", "k")
	require.ErrorIs(t, err, ErrNotFound)
	require.NoError(t, m.Set(ctx, "p", "k", secret.New(canary)))
	require.Equal(t, []string{"p/k"}, m.Accounts())
	m.FailWith(ErrLocked)
	_, err = m.Get(ctx, "p", "k")
	require.ErrorIs(t, err, ErrLocked)
	require.ErrorContains(t, err, "unlock")
	m.FailWith(nil)
	require.NoError(t, m.Delete(ctx, "p", "k"))
	require.ErrorIs(t, m.Delete(ctx, "p", "k"), ErrNotFound)
}

func errDBusServiceUnknown() error {
	return dbus.Error{Name: "org.freedesktop.DBus.Error.ServiceUnknown", Body: []any{"The name org.freedesktop.secrets was not provided by any .service files"}}
}
