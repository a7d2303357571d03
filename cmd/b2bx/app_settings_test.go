package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/settings"
	"github.com/nutrab2b/b2bx/tui"
)

func TestAppChecksConfigTomlBeforeStarting(t *testing.T) {
	pretendTerminal(t)
	started := false
	fakeTUI(t, func(context.Context, tui.Options) error { started = true; return nil })
	dir := t.TempDir()
	envv := map[string]string{"B2BX_CONFIG": filepath.Join(dir, "profiles.toml"), "HOME": dir}
	cfg := filepath.Join(dir, "config.toml")
	require.NoError(t, os.WriteFile(cfg, []byte("[theme]\naccent = \"#5f87ff\"\n\n[keys]\nprocess = \"hyper+p\"\n"), 0o600))
	code, _, stderr := runCmd(t, "", envv, "app")
	require.Equal(t, exitUsage, code)
	require.False(t, started)
	require.Contains(t, stderr, cfg+":5:")
	require.Contains(t, stderr, `"hyper+p" is no key`)

	// Checked against the app's real actions: p is the tab's "prev"
	// (previous page), so process = "p" is a conflict named with both.
	require.NoError(t, os.WriteFile(cfg, []byte("[keys]\nprocess = \"p\"\n"), 0o600))
	code, _, stderr = runCmd(t, "", envv, "app")
	require.Equal(t, exitUsage, code)
	require.False(t, started)
	require.Contains(t, stderr, cfg+":2:")
	require.Contains(t, stderr, "prev")

	var got tui.Options
	fakeTUI(t, func(_ context.Context, o tui.Options) error { started, got = true, o; return nil })
	require.NoError(t, os.WriteFile(cfg, []byte("[keys]\nprocess = \"X\"\n"), 0o600))
	code, _, stderr = runCmd(t, "", envv, "app")
	require.Equal(t, exitOK, code, stderr)
	require.True(t, started)
	require.Equal(t, []string{"X"}, got.Config.Keys["process"], "the app gets the bindings")
}

func TestAppFreshForgetsTheSavedState(t *testing.T) {
	pretendTerminal(t)
	fakeTUI(t, func(context.Context, tui.Options) error { return nil })
	dir := t.TempDir()
	envv := map[string]string{"XDG_STATE_HOME": dir, "HOME": dir, "B2BX_CONFIG": filepath.Join(dir, "p.toml")}
	path, err := settings.StatePath(func(k string) string { return envv[k] })
	require.NoError(t, err)
	require.NoError(t, settings.SaveState(path, settings.State{Tabs: []settings.TabState{{Profile: "acme-de", PageSize: 10}}}))

	code, _, stderr := runCmd(t, "", envv, "app")
	require.Equal(t, exitOK, code, stderr)
	st, err := settings.LoadState(path, false)
	require.NoError(t, err)
	require.Len(t, st.Tabs, 1, "kept without --fresh")

	code, _, stderr = runCmd(t, "", envv, "app", "--fresh")
	require.Equal(t, exitOK, code, stderr)
	_, err = os.Stat(path)
	require.True(t, os.IsNotExist(err), "--fresh forgets the saved tabs")
	code, _, stderr = runCmd(t, "", envv, "app", "--fresh")
	require.Equal(t, exitOK, code, stderr)
}
