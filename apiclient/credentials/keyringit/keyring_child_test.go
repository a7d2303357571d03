package keyringit

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// The failure scenarios need a process of their own: godbus keeps one
// shared session-bus connection per process, so each scenario's bus (or
// lack of one) must be the first the process sees.

// TestKeyringChild is the child side; it does nothing unless started by
// runChild with B2BX_KEYRING_CHILD set.
func TestKeyringChild(t *testing.T) {
	scenario := os.Getenv(envChild)
	if scenario == "" {
		t.Skip("helper: runs only as a child process of the scenario tests")
	}
	ctx := context.Background()
	name := uniqueProfile("child")
	switch scenario {
	case "no-bus", "no-service":
		_, err := credentials.NewKeyringStore(credentials.WithTimeout(10*time.Second)).Get(ctx, name, "k1")
		require.ErrorIs(t, err, credentials.ErrNoService)
		for _, w := range []string{"gnome-keyring", "KeePassXC", "dbus-run-session", "B2BX_API_KEY=k1:<secret>"} {
			require.Contains(t, err.Error(), w)
		}
		t.Logf("error: %v", err)
	case "hung":
		_, err := credentials.NewKeyringStore(credentials.WithTimeout(300*time.Millisecond)).Get(ctx, name, "k1")
		require.ErrorIs(t, err, credentials.ErrTimeout)
		require.Contains(t, err.Error(), "no answer within 300ms")
		t.Logf("error: %v", err)
	case "locked":
		childLocked(t, ctx, name)
	default:
		t.Fatalf("unknown scenario %q", scenario)
	}
}

// childLocked stores a secret, locks the login collection through the
// Secret Service API, and expects the locked error (or a timeout, should a
// prompter manage to show an unlock dialog).
func childLocked(t *testing.T, ctx context.Context, name string) {
	store := credentials.NewKeyringStore(credentials.WithTimeout(10 * time.Second))
	require.NoError(t, store.Set(ctx, name, "k1", secret.New(canaryUp)))
	out, err := exec.Command("dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.secrets",
		"/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock",
		"array:objpath:/org/freedesktop/secrets/collection/login").CombinedOutput()
	require.NoError(t, err, "lock the collection: %s", out)
	_, err = store.Get(ctx, name, "k1")
	if !errors.Is(err, credentials.ErrLocked) && !errors.Is(err, credentials.ErrTimeout) {
		t.Fatalf("want ErrLocked or ErrTimeout, got %v", err)
	}
	require.Contains(t, err.Error(), "unlock")
	require.NotContains(t, err.Error(), canaryUp)
	t.Logf("error: %v", err)
}

// runChild runs TestKeyringChild with scenario in a new process, under
// wrapper (e.g. dbus-run-session) when given.
func runChild(t *testing.T, scenario string, wrapper []string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(append([]string{}, wrapper...), os.Args[0], "-test.run=^TestKeyringChild$", "-test.v", "-test.count=1")
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", envChild:
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, append(env, envChild+"="+scenario)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child %s:\n%s", scenario, out)
	require.Contains(t, string(out), "--- PASS: TestKeyringChild", "child %s:\n%s", scenario, out)
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "error: ") {
			t.Logf("child %s: %s", scenario, strings.TrimSpace(line))
		}
	}
	return string(out)
}

func requireUnix(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("the Secret Service over D-Bus is the keyring of Linux and the BSDs")
	}
}

// needTool skips without the tool, but fails when the real-keyring tests
// were asked for: CI must not pass by skipping.
func needTool(t *testing.T, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		if itEnabled() {
			t.Fatalf("%s=1 but %s is missing: apt-get install -y --no-install-recommends gnome-keyring dbus", envIT, tool)
		}
		t.Skipf("%s not installed", tool)
	}
}

// TestRealKeyringNoBus: the bus socket does not exist.
func TestRealKeyringNoBus(t *testing.T) {
	requireUnix(t)
	out := runChild(t, "no-bus", nil, "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(t.TempDir(), "no-bus"))
	require.Contains(t, out, "no such file or directory")
}

// TestRealKeyringHungBus: something accepts the bus connection and never
// answers; the call times out instead of hanging.
func TestRealKeyringHungBus(t *testing.T) {
	requireUnix(t)
	sock := filepath.Join(t.TempDir(), "bus")
	l, err := net.Listen("unix", sock)
	require.NoError(t, err)
	defer l.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				_ = c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // read nothing, answer nothing
		}
	}()
	runChild(t, "hung", nil, "DBUS_SESSION_BUS_ADDRESS=unix:path="+sock)
}

// noServicesConf is a session bus that can activate nothing, so nothing
// owns org.freedesktop.secrets.
const noServicesConf = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// TestRealKeyringNoSecretService: a real D-Bus session bus without any
// Secret Service (org.freedesktop.DBus.Error.ServiceUnknown).
func TestRealKeyringNoSecretService(t *testing.T) {
	requireUnix(t)
	needTool(t, "dbus-run-session")
	conf := filepath.Join(t.TempDir(), "session.conf")
	require.NoError(t, os.WriteFile(conf, []byte(noServicesConf), 0o600))
	out := runChild(t, "no-service", []string{"dbus-run-session", "--config-file=" + conf, "--"})
	require.Contains(t, out, "org.freedesktop.secrets")
}

// TestRealKeyringLocked: gnome-keyring with its login collection locked,
// in a private session of its own so the lock cannot disturb tests
// running in parallel against the shared one.
func TestRealKeyringLocked(t *testing.T) {
	requireIT(t)
	requireUnix(t)
	needTool(t, "gnome-keyring-daemon")
	wrapper, err := filepath.Abs(filepath.Join("..", "..", "..", ".ci", "keyring-session"))
	require.NoError(t, err)
	_, err = os.Stat(wrapper)
	require.NoError(t, err, "the session wrapper lives in the repository")
	runChild(t, "locked", []string{wrapper})
}
