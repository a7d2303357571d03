package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
)

const (
	connCanaryIn = "CANARY-CONN-INBOX-1a2b"
	connCanaryMb = "CANARY-CONN-MAILBOX-3c4d"
)

// connEnv is a profile file in a temp dir and an in-memory keyring.
type connEnv struct {
	store *credentials.MemoryStore
	path  string
	env   map[string]string
}

// newConnEnv installs an in-memory secret store for the test. The store is
// a package variable: tests using it do not run in parallel.
func newConnEnv(t *testing.T) *connEnv {
	t.Helper()
	c := &connEnv{store: credentials.NewMemoryStore()}
	dir := t.TempDir()
	c.path = filepath.Join(dir, "cfg", "b2bx", "profiles.toml")
	c.env = map[string]string{credentials.EnvConfig: c.path, "HOME": dir}
	old := secretStoreFor
	secretStoreFor = func(*env) (credentials.SecretStore, error) { return c.store, nil }
	t.Cleanup(func() { secretStoreFor = old })
	return c
}

// run runs b2bx and checks that no canary secret reached the output.
func (c *connEnv) run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	code, out, errOut := runCmd(t, stdin, c.env, args...)
	noCanary(t, out+errOut)
	return code, out, errOut
}

func noCanary(t *testing.T, s string) {
	t.Helper()
	for _, cn := range []string{connCanaryIn, connCanaryMb, cliCanarySecret} {
		require.NotContains(t, s, cn, "a secret reached the output")
	}
}

func (c *connEnv) secret(t *testing.T, profile, keyID string) string {
	t.Helper()
	v, err := c.store.Get(context.Background(), profile, keyID)
	require.NoError(t, err)
	return v.Reveal()
}

func (c *connEnv) fileText(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(c.path)
	require.NoError(t, err)
	return string(raw)
}

var addTwoKeys = []string{"conn", "add", "acme", "--url", "https://api.example.com", "--connection", "conn-1",
	"--partner", "ACME GmbH", "--inbox-key-id", "key-up", "--mailbox-key-id", "key-mb", "--secret-stdin"}

func TestConnAddLsSetSecretRm(t *testing.T) {
	c := newConnEnv(t)
	code, out, errOut := c.run(t, connCanaryIn+"\r\n"+connCanaryMb+"\n", addTwoKeys...)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "added profile acme in "+c.path)
	require.Contains(t, out, "key key-up (inbox): secret stored in the OS keyring as b2bx / acme/key-up")
	require.Contains(t, out, "key key-mb (mailbox): secret stored in the OS keyring as b2bx / acme/key-mb")
	require.Contains(t, out, "b2bx conn test acme")
	require.Equal(t, connCanaryIn, c.secret(t, "acme", "key-up"), "stdin lines in key order, line ending trimmed")
	require.Equal(t, connCanaryMb, c.secret(t, "acme", "key-mb"))

	text := c.fileText(t)
	noCanary(t, text)
	require.Contains(t, text, "[profile.acme]\nurl = \"https://api.example.com\"\nconnection = \"conn-1\"\npartner = \"ACME GmbH\"\ninbox_key_id = \"key-up\"\nmailbox_key_id = \"key-mb\"\n")
	if runtime.GOOS != "windows" {
		st, err := os.Stat(c.path)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
		st, err = os.Stat(filepath.Dir(c.path))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	}

	code, out, _ = c.run(t, "", "conn", "add", "solo", "--url", "http://127.0.0.1:8080", "--connection", "c-2", "--key-id", "k-solo", "--no-secret", "--rate", "400")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "key k-solo (inbox and mailbox): no secret stored")
	require.Contains(t, c.fileText(t), "mailbox_key_id = \"k-solo\"\nrate = 400\n")

	code, out, errOut = c.run(t, "", "conn", "ls")
	require.Equal(t, exitOK, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Equal(t, []string{"NAME", "PARTNER", "URL", "CONNECTION", "DIRECTORY", "RATE/S", "INBOX", "KEY", "MAILBOX", "KEY", "SECRET"}, strings.Fields(lines[0]))
	require.Equal(t, []string{"acme", "ACME", "GmbH", "https://api.example.com", "conn-1", "D.96A", "100", "key-up", "key-mb", "inbox:keyring", "mailbox:keyring"}, strings.Fields(lines[1]))
	require.Equal(t, []string{"solo", "-", "http://127.0.0.1:8080", "c-2", "D.96A", "400", "k-solo", "k-solo", "missing"}, strings.Fields(lines[2]))
	require.Equal(t, "profiles: "+c.path, lines[3])
	require.Contains(t, errOut, "1 key(s) have no secret")

	code, out, _ = c.run(t, connCanaryMb+"-rotated\n", "conn", "set-secret", "acme", "--key-id", "key-mb", "--secret-stdin")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "stored the secret of key key-mb of profile acme in the OS keyring (b2bx / acme/key-mb)")
	require.Equal(t, connCanaryMb+"-rotated", c.secret(t, "acme", "key-mb"))
	require.Equal(t, connCanaryIn, c.secret(t, "acme", "key-up"), "only the named key rotates")

	code, _, errOut = c.run(t, "CANARY-webhook-secret\n", "event", "set-secret", "-c", "acme", "--secret-stdin")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "CANARY-webhook-secret", c.secret(t, "acme", credentials.WebhookKeyID))

	code, out, _ = c.run(t, "", "conn", "rm", "acme")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "removed profile acme")
	require.Contains(t, out, "deleted keyring secret b2bx / acme/key-up")
	require.Contains(t, out, "deleted keyring secret b2bx / acme/key-mb")
	require.Contains(t, out, "deleted keyring secret b2bx / acme/webhook", "the profile's webhook secret goes with it")
	require.Empty(t, c.store.Accounts())
	require.NotContains(t, c.fileText(t), "[profile.acme]")
	require.Contains(t, c.fileText(t), "[profile.solo]")
}

func TestConnAddRefusesARateOutOfRange(t *testing.T) {
	c := newConnEnv(t)
	for _, r := range []string{"-1", "2001"} {
		code, _, errOut := c.run(t, "", "conn", "add", "solo", "--url", "http://127.0.0.1:8080", "--connection", "c-2", "--key-id", "k-solo", "--no-secret", "--rate", r)
		require.Equal(t, exitUsage, code)
		require.Contains(t, errOut, "rate")
		require.Contains(t, errOut, "1 to 2000", "the error says what to write")
	}
	_, err := os.Stat(c.path)
	require.True(t, os.IsNotExist(err), "nothing written")
}

func TestConnAddPromptsWithoutEcho(t *testing.T) {
	c := newConnEnv(t)
	var prompts []string
	old := promptSecret
	promptSecret = func(_ *env, p string) (string, error) {
		prompts = append(prompts, p)
		return connCanaryIn, nil
	}
	t.Cleanup(func() { promptSecret = old })

	code, _, errOut := c.run(t, "", "conn", "add", "one", "--url", "https://x.example", "--connection", "c", "--key-id", "k1")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, []string{"Secret for API key k1 (inbox and mailbox) of profile one: "}, prompts, "one key serving both: one prompt")
	require.Equal(t, connCanaryIn, c.secret(t, "one", "k1"))

	prompts = nil
	code, _, _ = c.run(t, "", "conn", "set-secret", "one")
	require.Equal(t, exitOK, code)
	require.Len(t, prompts, 1)
}

func TestConnAddErrors(t *testing.T) {
	base := []string{"conn", "add", "acme", "--url", "https://api.example.com", "--connection", "c-1", "--key-id", "k1"}
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		code  int
		want  []string
	}{
		{"no name", []string{"conn", "add", "--url", "https://x"}, "", exitUsage, []string{"missing profile NAME"}},
		{"two names", []string{"conn", "add", "a", "b"}, "", exitUsage, []string{`unexpected argument "b"`}},
		{"bad name", []string{"conn", "add", "a/b", "--url", "https://x"}, "", exitUsage, []string{"may only contain letters"}},
		{"plain http", []string{"conn", "add", "acme", "--url", "http://api.example.com", "--connection", "c", "--key-id", "k"}, "", exitUsage,
			[]string{`profile "acme": url:`, "use https", "127.0.0.0/8, ::1 and localhost"}},
		{"secret in url", []string{"conn", "add", "acme", "--url", "https://k:" + connCanaryIn + "@x.example", "--connection", "c", "--key-id", "k"}, "", exitUsage,
			[]string{"must not contain a user name or password"}},
		{"secret in an unparsable url", []string{"conn", "add", "acme", "--url", "https://k:" + connCanaryIn + "@exa mple.com", "--connection", "c", "--key-id", "k"}, "", exitUsage,
			[]string{"(unparsable URL)"}},
		{"no key", []string{"conn", "add", "acme", "--url", "https://x.example", "--connection", "c"}, "", exitUsage, []string{"--key-id ID", "--inbox-key-id"}},
		{"no connection", []string{"conn", "add", "acme", "--url", "https://x.example", "--key-id", "k"}, "", exitUsage, []string{"connection: connection ID is empty"}},
		{"relative store dir ok but both secret flags", with("--secret-stdin", "--no-secret"), "", exitUsage, []string{"exclude each other"}},
		{"no stdin line", with("--secret-stdin"), "", exitUsage, []string{"no line for the secret of API key k1", "inbox key first"}},
		{"second line missing", []string{"conn", "add", "acme", "--url", "https://x.example", "--connection", "c", "--inbox-key-id", "a", "--mailbox-key-id", "b", "--secret-stdin"},
			connCanaryIn + "\n", exitUsage, []string{"no line for the secret of API key b (mailbox)"}},
		{"space in secret", with("--secret-stdin"), "CANARY-CONN-INBOX-1a2b extra\n", exitUsage, []string{"spaces or control characters", "paste only the secret"}},
		{"empty secret", with("--secret-stdin"), "\n", exitUsage, []string{"it is empty"}},
		{"no terminal", base, "", exitUsage, []string{"stdin is not a terminal", "--secret-stdin"}},
	} {
		c := newConnEnv(t)
		code, out, errOut := c.run(t, tc.stdin, tc.args...)
		require.Equal(t, tc.code, code, "%s: %s", tc.name, errOut)
		require.Empty(t, out, tc.name)
		for _, w := range tc.want {
			require.Contains(t, errOut, w, tc.name)
		}
		require.NotContains(t, errOut, "extra", "%s: the secret line is never quoted", tc.name)
		require.Empty(t, c.store.Accounts(), tc.name)
		_, err := os.Stat(c.path)
		require.ErrorIs(t, err, os.ErrNotExist, "%s: nothing saved", tc.name)
	}
}

func TestConnAddKeyringUnavailableSavesNothing(t *testing.T) {
	c := newConnEnv(t)
	c.store.FailWith(credentials.ErrNoService)
	code, out, errOut := c.run(t, connCanaryIn+"\n"+connCanaryMb+"\n", addTwoKeys...)
	require.Equal(t, exitStorage, code)
	require.Empty(t, out)
	for _, w := range []string{"no OS keyring", "gnome-keyring", "KeePassXC", "dbus-run-session", "B2BX_API_KEY", "\n  nothing was saved", "--no-secret"} {
		require.Contains(t, errOut, w)
	}
	require.NotContains(t, errOut, "^J", "advice goes on its own line, not through the sanitiser")
	_, err := os.Stat(c.path)
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestConnAddExistingNeedsForceAndDropsOldSecrets(t *testing.T) {
	c := newConnEnv(t)
	code, _, _ := c.run(t, "s-a\ns-b\n", "conn", "add", "p", "--url", "https://x.example", "--connection", "c", "--inbox-key-id", "a", "--mailbox-key-id", "b", "--secret-stdin")
	require.Equal(t, exitOK, code)

	code, _, errOut := c.run(t, "x\n", "conn", "add", "p", "--url", "https://x.example", "--connection", "c", "--key-id", "a", "--secret-stdin")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `profile "p" already exists`)
	require.Contains(t, errOut, "--force")
	require.Equal(t, "s-a", c.secret(t, "p", "a"))

	code, out, errOut := c.run(t, "s-a2\ns-c\n", "conn", "add", "p", "--url", "https://y.example", "--connection", "c", "--inbox-key-id", "a", "--mailbox-key-id", "c", "--secret-stdin", "--force")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "replaced profile p")
	require.ElementsMatch(t, []string{"p/a", "p/c"}, c.store.Accounts(), "the secret of key b, no longer used, is gone")
	require.Equal(t, "s-a2", c.secret(t, "p", "a"))
	require.Contains(t, c.fileText(t), `url = "https://y.example"`)
}

func TestStoreSecretsRestoresOnFailure(t *testing.T) {
	ctx := context.Background()
	m := credentials.NewMemoryStore()
	require.NoError(t, m.Set(ctx, "p", "a", secret.New("old-a")))
	tx, err := session.StoreSecrets(ctx, m, "p", []keySecret{{KeyID: "a", Secret: secret.New("new-a")}, {KeyID: "b", Secret: secret.New("new-b")}})
	require.NoError(t, err)
	v, _ := m.Get(ctx, "p", "b")
	require.Equal(t, "new-b", v.Reveal())
	require.NoError(t, tx.Undo(ctx))
	v, _ = m.Get(ctx, "p", "a")
	require.Equal(t, "old-a", v.Reveal(), "an existing secret is restored, not deleted")
	require.Equal(t, []string{"p/a"}, m.Accounts(), "a new secret is deleted")
}

func TestConnRm(t *testing.T) {
	c := newConnEnv(t)
	code, _, _ := c.run(t, connCanaryIn+"\n"+connCanaryMb+"\n", addTwoKeys...)
	require.Equal(t, exitOK, code)

	code, _, errOut := c.run(t, "", "conn", "rm", "nope")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `no profile "nope"`)
	require.Contains(t, errOut, "b2bx conn ls")

	c.store.FailWith(credentials.ErrLocked)
	code, _, errOut = c.run(t, "", "conn", "rm", "acme")
	require.Equal(t, exitStorage, code)
	require.Contains(t, errOut, "the keyring is locked")
	require.Contains(t, errOut, "the profile is kept")
	require.Contains(t, errOut, "--keep-secrets")
	require.Contains(t, c.fileText(t), "[profile.acme]")

	code, out, _ := c.run(t, "", "conn", "rm", "acme", "--keep-secrets")
	require.Equal(t, exitOK, code)
	require.NotContains(t, out, "deleted keyring secret")
	require.NotContains(t, c.fileText(t), "[profile.acme]")
	c.store.FailWith(nil)
	require.Len(t, c.store.Accounts(), 2, "--keep-secrets leaves the keyring alone")
}

func TestConnSetSecretErrors(t *testing.T) {
	c := newConnEnv(t)
	code, _, _ := c.run(t, "s1\ns2\n", addTwoKeys...)
	require.Equal(t, exitOK, code)

	code, _, errOut := c.run(t, "x\n", "conn", "set-secret", "acme", "--key-id", "other", "--secret-stdin")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "uses key key-up for the inbox and key-mb for the mailbox, not other")
	require.Contains(t, errOut, "conn add acme --force")

	c.store.FailWith(credentials.ErrNoService)
	code, _, errOut = c.run(t, connCanaryIn+"\n", "conn", "set-secret", "acme", "--key-id", "key-up", "--secret-stdin")
	require.Equal(t, exitStorage, code)
	require.Contains(t, errOut, "no secret was changed")
	c.store.FailWith(nil)
	require.Equal(t, "s1", c.secret(t, "acme", "key-up"))

	code, _, errOut = c.run(t, "", "conn", "set-secret", "ghost", "--secret-stdin")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `no profile "ghost"`)
}

// A profile's rate is the limit of the client every API command builds
// for it; without one, the contract's 100/s.
func TestAPICommandsUseTheProfileRate(t *testing.T) {
	c := newConnEnv(t)
	for _, a := range [][]string{
		{"conn", "add", "fast", "--url", "http://127.0.0.1:8080", "--connection", "c-1", "--key-id", "k-1", "--no-secret", "--rate", "400"},
		{"conn", "add", "plain", "--url", "http://127.0.0.1:8080", "--connection", "c-2", "--key-id", "k-1", "--no-secret"},
	} {
		code, _, errOut := c.run(t, "", a...)
		require.Equal(t, exitOK, code, errOut)
	}
	vars := map[string]string{envAPIKey: "k-1:" + cliCanarySecret}
	for k, v := range c.env {
		vars[k] = v
	}
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(k string) string { return vars[k] }}
	for name, want := range map[string]float64{"fast": 400, "plain": 100} {
		cf := connFlags{profile: name}
		tg, err := cf.resolve(context.Background(), e)
		require.NoError(t, err, name)
		ac, err := newAPIConn(e, tg, "fetch")
		require.NoError(t, err)
		lim, _ := ac.client.Limit()
		require.InDelta(t, want, float64(lim), 0, name)
		ac.client.Close()
	}
}
