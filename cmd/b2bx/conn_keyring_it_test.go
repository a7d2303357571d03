package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
)

// TestConnRealKeyring drives the conn commands and -c against the real OS
// keyring (gnome-keyring in CI, see .ci/keyring-session and DEVELOPERS.md)
// and the simulator: add, ls, test, mailbox ls -c, rotate, rm.
func TestConnRealKeyring(t *testing.T) {
	if os.Getenv("B2BX_KEYRING_IT") != "1" {
		t.Skip("real-keyring test: run it with B2BX_KEYRING_IT=1 inside .ci/keyring-session (see DEVELOPERS.md)")
	}
	s := newSimEnv(t)
	require.NoError(t, s.sim.AddKey(partnersim.Key{ID: "key-it-up", Secret: connCanaryIn, Tenant: cliTenant, Scopes: []string{partnersim.ScopeInboxCreate}}))
	id := s.add(t, "ORDRSP", []byte("payload"), partnersim.PayloadFault{})

	dir := t.TempDir()
	cfg := filepath.Join(dir, "b2bx", "profiles.toml")
	envv := map[string]string{credentials.EnvConfig: cfg, "HOME": dir, "B2BX_DATA_DIR": s.dataDir}
	name := fmt.Sprintf("it-%d-%d", os.Getpid(), time.Now().UnixNano())
	store := credentials.NewKeyringStore()
	t.Cleanup(func() {
		_ = store.Delete(context.Background(), name, "key-it-up")
		_ = store.Delete(context.Background(), name, "key-cli")
	})
	run := func(stdin string, args ...string) (int, string, string) {
		t.Helper()
		code, out, errOut := runCmd(t, stdin, envv, args...)
		noCanary(t, out+errOut)
		return code, out, errOut
	}

	code, out, errOut := run(connCanaryIn+"\n"+cliCanarySecret+"\n", "conn", "add", name, "--url", s.srv.URL, "--connection", cliConn,
		"--inbox-key-id", "key-it-up", "--mailbox-key-id", "key-cli", "--secret-stdin")
	require.Equal(t, exitOK, code, "%s%s", out, errOut)
	raw, err := os.ReadFile(cfg)
	require.NoError(t, err)
	noCanary(t, string(raw))

	code, out, errOut = run("", "conn", "ls")
	require.Equal(t, exitOK, code, errOut)
	require.Regexp(t, `(?m)^`+name+` .* inbox:keyring mailbox:keyring$`, out)

	code, out, _ = run("", "conn", "test", name)
	require.Equal(t, exitOK, code, out)
	require.Contains(t, out, "mailbox key key-cli: secret found in the OS keyring")
	require.Contains(t, out, "mailbox: OK")

	code, out, errOut = run("", "mailbox", "ls", "-c", name)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, id)

	// Rotate to a wrong secret: the API says 404 and conn test explains it.
	code, _, _ = run("CANARY-WRONG\n", "conn", "set-secret", name, "--key-id", "key-cli", "--secret-stdin")
	require.Equal(t, exitOK, code)
	code, out, _ = run("", "conn", "test", name)
	require.Equal(t, exitAPI, code)
	require.Contains(t, out, "key binding")
	code, _, _ = run(cliCanarySecret+"\n", "conn", "set-secret", name, "--key-id", "key-cli", "--secret-stdin")
	require.Equal(t, exitOK, code)
	code, _, _ = run("", "conn", "test", name)
	require.Equal(t, exitOK, code)

	code, out, _ = run("", "conn", "rm", name)
	require.Equal(t, exitOK, code)
	require.Equal(t, 2, strings.Count(out, "deleted keyring secret"))
	for _, k := range []string{"key-it-up", "key-cli"} {
		_, err := store.Get(context.Background(), name, k)
		require.ErrorIs(t, err, credentials.ErrNotFound, "conn rm removed %s from the real keyring", k)
	}
}
