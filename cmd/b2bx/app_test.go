package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/tui"
)

// fakeTUI replaces the app for the test and calls inside while "running".
func fakeTUI(t *testing.T, inside func(ctx context.Context, o tui.Options) error) {
	t.Helper()
	old := runTUI
	runTUI = inside
	t.Cleanup(func() { runTUI = old })
}

func TestNoArgumentsWithoutTerminalPrintsUsage(t *testing.T) {
	fakeTUI(t, func(context.Context, tui.Options) error {
		t.Fatal("the app must not start without a terminal")
		return nil
	})
	code, stdout, stderr := runCmd(t, "", nil)
	require.Equal(t, exitUsage, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "the app needs a terminal")
	require.Contains(t, stderr, "usage: b2bx <command>")
	require.Contains(t, stderr, "demo ")
}

func TestNoArgumentsInATerminalOpensTheApp(t *testing.T) {
	pretendTerminal(t)
	var got tui.Options
	fakeTUI(t, func(_ context.Context, o tui.Options) error { got = o; return nil })
	code, _, stderr := runCmd(t, "", map[string]string{"B2BX_CONFIG": "/x/profiles.toml"})
	require.Equal(t, exitOK, code, stderr)
	require.NotNil(t, got.Env.Store, "one secret store for the session")
	require.Equal(t, "the OS keyring", got.StoreName)
	require.Equal(t, "/x/profiles.toml", got.Env.Getenv("B2BX_CONFIG"), "the user's environment")
	require.False(t, got.Demo)
	require.Empty(t, got.Open)
}

func TestAppFailureExits2(t *testing.T) {
	pretendTerminal(t)
	fakeTUI(t, func(context.Context, tui.Options) error { return errors.New("could not open a TTY") })
	code, _, stderr := runCmd(t, "", nil, "app")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "could not open a TTY")
}

func TestDemoWithoutTerminalNamesTheTour(t *testing.T) {
	fakeTUI(t, func(context.Context, tui.Options) error { t.Fatal("no app without a terminal"); return nil })
	code, _, stderr := runCmd(t, "", nil, "demo")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "needs a terminal")
	require.Contains(t, stderr, "make tour")
}

func TestDemoFlags(t *testing.T) {
	pretendTerminal(t)
	fakeTUI(t, func(context.Context, tui.Options) error { t.Fatal("bad flags start nothing"); return nil })
	for _, tc := range []struct{ args, want string }{
		{"--entries -1", "--entries must be from 0"},
		{"--throttle fast", `--throttle "fast"`},
		{"--reply-delay -1s", "--reply-delay must not be negative"},
		{"extra", "demo takes no arguments"},
	} {
		code, _, stderr := runCmd(t, "", nil, append([]string{"demo"}, strings.Fields(tc.args)...)...)
		require.Equal(t, exitUsage, code, tc.args)
		require.Contains(t, stderr, tc.want, tc.args)
	}
}

// TestDemoIsAPrivateWorld runs b2bx demo with the app replaced: both demo
// connections are opened, they work against the in-process simulator, the
// secrets are in memory, the user's profiles, data and $B2BX_API_KEY are
// never used, and everything is removed on exit.
func TestDemoIsAPrivateWorld(t *testing.T) {
	pretendTerminal(t)
	home := t.TempDir()
	userCfg := filepath.Join(home, "profiles.toml")
	userData := filepath.Join(home, "data")
	userEnv := map[string]string{"B2BX_CONFIG": userCfg, "B2BX_DATA_DIR": userData,
		"B2BX_API_KEY": "key-user:CANARY-SECRET-user-0a1b", "HOME": home}
	var dir, baseURL string
	fakeTUI(t, func(ctx context.Context, o tui.Options) error {
		require.True(t, o.Demo)
		require.Equal(t, []string{"acme-de", "acme-at"}, o.Open)
		require.IsType(t, &credentials.MemoryStore{}, o.Env.Store, "never the keyring")
		require.Equal(t, "the demo's in-memory secret store", o.StoreName)
		require.Empty(t, o.Env.Getenv("B2BX_API_KEY"))
		cfg := o.Env.Getenv("B2BX_CONFIG")
		dir = filepath.Dir(filepath.Dir(cfg))
		require.NotEqual(t, userCfg, cfg)
		require.NotEqual(t, userData, o.Env.Getenv("B2BX_DATA_DIR"))
		require.NotNil(t, o.Wait, "the simulator starts once the app shows its first frame")
		require.NotNil(t, o.OnFirstFrame)
		o.OnFirstFrame()
		o.OnFirstFrame() // once only
		require.NoError(t, o.Wait(ctx))

		// The demo connections really work.
		for _, name := range o.Open {
			target, err := session.ResolveProfile(ctx, o.Env, name)
			require.NoError(t, err)
			conn, err := session.Open(target, session.Options{Getenv: o.Env.Getenv})
			require.NoError(t, err)
			page, err := conn.Client.ListMailbox(ctx, 5, "")
			require.NoError(t, err)
			require.NotEmpty(t, page.Entries)
			conn.Close()
			baseURL = target.BaseURL
		}
		raw, err := os.ReadFile(cfg)
		require.NoError(t, err)
		require.NotContains(t, string(raw), "sk_", "the profile file holds no secret")
		return nil
	})
	code, _, stderr := runCmd(t, "", userEnv, "demo")
	require.Equal(t, exitOK, code, stderr)
	require.NoDirExists(t, dir, "the temp dir is removed on exit")
	require.NoFileExists(t, userCfg)
	require.NoDirExists(t, userData)
	require.True(t, strings.HasPrefix(baseURL, "http://127.0.0.1:"))
	resp, err := http.Get(baseURL + "/")
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err, "the simulator is stopped on exit")
}

// TestDemoStartsWithoutAFirstFrame: a terminal that never reports its
// size still gets the simulator, a little later.
func TestDemoStartsWithoutAFirstFrame(t *testing.T) {
	pretendTerminal(t)
	fakeTUI(t, func(ctx context.Context, o tui.Options) error {
		_, err := session.ResolveProfile(ctx, o.Env, "acme-de")
		require.Error(t, err, "no profiles before the simulator started")
		require.NoError(t, o.Wait(ctx))
		_, err = session.ResolveProfile(ctx, o.Env, "acme-de")
		return err
	})
	code, _, stderr := runCmd(t, "", nil, "demo")
	require.Equal(t, exitOK, code, stderr)
}

// TestDemoQuitBeforeTheSimulatorStarts: nothing is left behind and Close
// does not wait for a start that never began.
func TestDemoQuitBeforeTheSimulatorStarts(t *testing.T) {
	w, err := newDemoWorld()
	require.NoError(t, err)
	w.Close()
	require.NoDirExists(t, w.dir)
	w.begin(context.Background(), demoOptions{}) // too late: does nothing
	require.NoDirExists(t, w.dir)
}
