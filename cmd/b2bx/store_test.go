package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/internal/teamstore"
	"github.com/nutrab2b/b2bx/internal/testshared/pgtest"
)

// storeEnv is an environment whose config.toml names the team store url.
func storeEnv(t *testing.T, url string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "profiles.toml")
	if url != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[store]\nurl = \""+url+"\"\nuser = \"alice\"\n"), 0o600))
	}
	return map[string]string{credentials.EnvConfig: cfg, "HOME": dir}
}

func memoryKeyring(t *testing.T) *credentials.MemoryStore {
	t.Helper()
	m := credentials.NewMemoryStore()
	old := teamSecrets
	teamSecrets = func(*env) (credentials.SecretStore, error) { return m, nil }
	t.Cleanup(func() { teamSecrets = old })
	return m
}

func TestStoreCommandsWithoutAStore(t *testing.T) {
	memoryKeyring(t)
	for _, c := range []string{"init", "status", "login"} {
		code, _, errOut := runCmd(t, "", storeEnv(t, ""), "store", c)
		require.Equal(t, exitUsage, code, c)
		require.Contains(t, errOut, "[store] url", c)
	}
	code, _, errOut := runCmd(t, "", storeEnv(t, "postgres://b2bx:canary-pw-3@db.example.com/b2bx?sslmode=verify-full"), "store", "status")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "b2bx store login")
	require.NotContains(t, errOut, "canary-pw-3")
	code, _, errOut = runCmd(t, "", storeEnv(t, "postgres://b2bx@db.example.com/b2bx"), "store", "init")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "TLS")
}

func TestStoreInitStatusLogin(t *testing.T) {
	keyring := memoryKeyring(t)
	dsn := pgtest.DSN(t)
	envv := storeEnv(t, dsn)
	code, out, errOut := runCmd(t, "", envv, "store", "status")
	require.Equal(t, exitStorage, code, errOut)
	require.Contains(t, out, "b2bx store init")
	code, out, errOut = runCmd(t, "", envv, "store", "init")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "migrated from team tables 0, index 0")
	code, out, _ = runCmd(t, "", envv, "store", "init")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "(up to date)")
	code, out, errOut = runCmd(t, "", envv, "store", "status")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "reachable, schema team tables 1, index 1, records by alice on ")
	code, out, _ = runCmd(t, "", envv, "store", "status", "--json")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"reachable": true`)

	code, out, errOut = runCmd(t, "canary-pw-4\n", envv, "store", "login", "--password-stdin")
	require.Equal(t, exitOK, code, errOut)
	require.NotContains(t, out+errOut, "canary-pw-4")
	p, err := teamstore.Parse(dsn)
	require.NoError(t, err)
	v, err := keyring.Get(t.Context(), teamstore.KeyringProfile, p.Account)
	require.NoError(t, err)
	require.Equal(t, "canary-pw-4", v.Reveal())
	code, _, errOut = runCmd(t, "", envv, "store", "login")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "--password-stdin")
	code, _, errOut = runCmd(t, "\n", envv, "store", "login", "--password-stdin")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "empty password")
}
