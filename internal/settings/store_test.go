package settings

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStoreSection(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.toml")
	require.NoError(t, os.WriteFile(p, []byte("[store]\nurl = \"postgres://b2bx@db.example.com/b2bx?sslmode=verify-full\"\nuser = \"alice\"\n"), 0o600))
	cfg, err := Load(p, nil, nil, nil)
	require.NoError(t, err)
	require.Equal(t, Store{URL: "postgres://b2bx@db.example.com/b2bx?sslmode=verify-full", User: "alice"}, cfg.Store)
	require.True(t, cfg.Store.Configured())

	require.NoError(t, os.WriteFile(p, []byte("[store]\nurl = \"postgres://b2bx:hunter2canary@db/b2bx\"\n"), 0o600))
	_, err = Load(p, nil, nil, nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "b2bx store login")
	require.NotContains(t, err.Error(), "hunter2canary", "the password is never echoed")

	require.NoError(t, os.WriteFile(p, []byte("[store]\nurl = \"postgres://db/b2bx\"\npassword = \"x\"\n"), 0o600))
	_, err = Load(p, nil, nil, nil)
	require.ErrorContains(t, err, "unknown setting")
}
