package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

// simProfile adds profile name for the simulator's connection, with key
// keyID whose secret (when not empty) goes into the in-memory keyring.
func simProfile(t *testing.T, c *connEnv, s *simEnv, name, conn, keyID, sec string) {
	t.Helper()
	code, _, errOut := c.run(t, "", "conn", "add", name, "--url", s.srv.URL, "--connection", conn, "--key-id", keyID, "--no-secret")
	require.Equal(t, exitOK, code, errOut)
	if sec != "" {
		require.NoError(t, c.store.Set(context.Background(), name, keyID, secret.New(sec)))
	}
}

func TestConnTestAgainstSimulator(t *testing.T) {
	s := newSimEnv(t)
	c := newConnEnv(t)
	require.NoError(t, s.sim.AddKey(partnersim.Key{ID: "key-ls-only", Secret: cliCanarySecret + "-2", Tenant: cliTenant, Scopes: []string{partnersim.ScopeInboxCreate}}))
	s.add(t, "ORDRSP", []byte("UNA:+.? 'UNB'"), partnersim.PayloadFault{})
	s.add(t, "CONTRL", []byte("x"), partnersim.PayloadFault{})

	simProfile(t, c, s, "good", cliConn, "key-cli", cliCanarySecret)
	c.env["B2BX_LOG"] = "debug"
	code, out, errOut := c.run(t, "", "conn", "test", "good")
	delete(c.env, "B2BX_LOG")
	require.Equal(t, exitOK, code, out+errOut)
	require.Contains(t, errOut, "level=", "debug logging is on, and c.run found no secret in it")
	require.Contains(t, out, "profile good: "+s.srv.URL+", connection "+cliConn)
	require.Contains(t, out, "inbox   key key-cli: secret found in the OS keyring")
	require.Contains(t, out, "mailbox key key-cli: secret found in the OS keyring")
	require.Contains(t, out, "mailbox: OK, GET /mailbox?limit=1 answered with 1 entry, more are due")

	for _, tc := range []struct {
		name, conn, key, sec string
	}{
		{"wrong-secret", cliConn, "key-cli", cliCanarySecret + "-old"},
		{"wrong-conn", "conn-elsewhere", "key-cli", cliCanarySecret},
		{"no-scope", cliConn, "key-ls-only", cliCanarySecret + "-2"},
		{"unknown-key", cliConn, "key-nobody", cliCanarySecret},
	} {
		simProfile(t, c, s, tc.name, tc.conn, tc.key, tc.sec)
		code, out, _ := c.run(t, "", "conn", "test", tc.name)
		require.Equal(t, exitAPI, code, tc.name)
		for _, w := range []string{"mailbox: FAILED", "404", "ERR_B2B_EXCHANGE_NOT_FOUND", "every authentication or authorization failure",
			"1. key binding: key " + tc.key, "tenant that owns connection " + tc.conn, "2. scope: key " + tc.key + " needs b2b_exchange_partner_mailbox:list",
			`3. connection ID: is "` + tc.conn + `"`, "b2bx conn set-secret " + tc.name + " --key-id " + tc.key} {
			require.Contains(t, out, w, tc.name)
		}
	}

	// No secret anywhere: the key is named and the way to store it given.
	simProfile(t, c, s, "nosecret", cliConn, "key-cli", "")
	env := c.env
	c.env = map[string]string{credentials.EnvConfig: c.path}
	code, _, errOut = c.run(t, "", "conn", "test", "nosecret")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `profile "nosecret", inbox+mailbox key`)
	require.Contains(t, errOut, "b2bx conn set-secret nosecret --key-id key-cli")

	// $B2BX_API_KEY fills in for automation.
	c.env = map[string]string{credentials.EnvConfig: c.path, envAPIKey: "key-cli:" + cliCanarySecret}
	code, out, _ = c.run(t, "", "conn", "test", "nosecret")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "secret from $B2BX_API_KEY (no keyring entry)")
	c.store.FailWith(credentials.ErrNoService)
	code, out, _ = c.run(t, "", "conn", "test", "nosecret")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "secret from $B2BX_API_KEY (no OS keyring available)")
	c.store.FailWith(nil)
	c.env = env

	// A slow server: conn test gives up after --timeout, without retries.
	s.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointList, Latency: 5 * time.Second})
	code, out, _ = c.run(t, "", "conn", "test", "good", "--timeout", "100ms")
	require.Equal(t, exitAPI, code)
	require.Contains(t, out, "no answer within 100ms")
	s.sim.ClearFaults()
	s.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointList, Status: 503, Times: 1})
	code, out, _ = c.run(t, "", "conn", "test", "good")
	require.Equal(t, exitAPI, code, "one attempt only: a 503 is reported, not retried")
	require.Contains(t, out, "503")

	// A dead server is a network problem, not a 404.
	s.srv.Close()
	code, out, _ = c.run(t, "", "conn", "test", "good")
	require.Equal(t, exitAPI, code)
	require.Contains(t, out, "no HTTP answer: check the URL")
}

func TestConnTestReportsTwoKeys(t *testing.T) {
	s := newSimEnv(t)
	c := newConnEnv(t)
	code, _, errOut := c.run(t, "up-secret\n"+cliCanarySecret+"\n", "conn", "add", "two", "--url", s.srv.URL, "--connection", cliConn,
		"--inbox-key-id", "key-up", "--mailbox-key-id", "key-cli", "--secret-stdin")
	require.Equal(t, exitOK, code, errOut)
	code, out, _ := c.run(t, "", "conn", "test", "two")
	require.Equal(t, exitOK, code, out)
	require.Contains(t, out, "inbox   key key-up: secret found in the OS keyring")
	require.Contains(t, out, "the inbox key is not exercised")
	require.Contains(t, out, "answered with 0 entries, nothing more due")

	c.store.FailWith(credentials.ErrNoService)
	code, _, errOut = c.run(t, "", "conn", "test", "two")
	require.Equal(t, exitStorage, code)
	require.Contains(t, errOut, "gnome-keyring")
}

func TestDashCResolvesProfileForAPICommands(t *testing.T) {
	s := newSimEnv(t)
	c := newConnEnv(t)
	id := s.add(t, "ORDRSP", []byte("payload"), partnersim.PayloadFault{})
	simProfile(t, c, s, "acme", cliConn, "key-cli", cliCanarySecret)

	code, out, errOut := c.run(t, "", "mailbox", "ls", "-c", "acme")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, id)

	code, _, errOut = c.run(t, "", "mailbox", "ls", "-c", "ghost")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `no profile "ghost"`)

	code, _, errOut = c.run(t, "", "mailbox", "ls", "-c", "bad/name")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "may only contain")

	require.NoError(t, c.store.Delete(context.Background(), "acme", "key-cli"))
	code, _, errOut = c.run(t, "", "mailbox", "ls", "-c", "acme")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "b2bx conn set-secret acme --key-id key-cli")

	c.env[envAPIKey] = "key-other:" + cliCanarySecret
	code, _, errOut = c.run(t, "", "mailbox", "ls", "-c", "acme")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `$B2BX_API_KEY holds key "key-other", not "key-cli"`)

	c.env[envAPIKey] = "key-cli:" + cliCanarySecret
	code, out, errOut = c.run(t, "", "mailbox", "ls", "-c", "acme")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, id)
}

func TestResolveProfileTarget(t *testing.T) {
	c := newConnEnv(t)
	code, _, _ := c.run(t, connCanaryIn+"\n"+connCanaryMb+"\n", append(addTwoKeys, "--store-dir", "/srv/spool/acme")...)
	require.Equal(t, exitOK, code)
	e := &env{getenv: func(k string) string { return c.env[k] }}
	tg, err := resolveProfile(context.Background(), e, "acme")
	require.NoError(t, err)
	require.Equal(t, "acme", tg.Name)
	require.Equal(t, "https://api.example.com", tg.BaseURL)
	require.Equal(t, "conn-1", tg.ConnectionID)
	require.Equal(t, "/srv/spool/acme", tg.StoreDir)
	require.Equal(t, "key-up", tg.Inbox.KeyID)
	require.Equal(t, connCanaryIn, tg.Inbox.Secret.Reveal())
	require.Equal(t, "key-mb", tg.Mailbox.KeyID)
	require.Equal(t, connCanaryMb, tg.Mailbox.Secret.Reveal())
}

func TestConnLsStates(t *testing.T) {
	c := newConnEnv(t)
	code, out, _ := c.run(t, "", "conn", "ls")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "no profiles in "+c.path)
	require.Contains(t, out, "b2bx conn add NAME")

	code, _, _ = c.run(t, "s\n", "conn", "add", "evil", "--url", "https://x.example", "--connection", "c", "--key-id", "k", "--partner", "Evil \u202e Corp", "--secret-stdin")
	require.Equal(t, exitOK, code)
	code, _, _ = c.run(t, "", "conn", "add", "envkey", "--url", "https://x.example", "--connection", "c", "--key-id", "k-env", "--no-secret")
	require.Equal(t, exitOK, code)
	c.env[envAPIKey] = "k-env:" + cliCanarySecret

	code, out, _ = c.run(t, "", "conn", "ls")
	require.Equal(t, exitOK, code)
	require.NotContains(t, out, "\u202e", "hand-editable values are sanitised")
	require.Regexp(t, `(?m)^envkey .* env$`, out)
	require.Regexp(t, `(?m)^evil .* keyring$`, out)

	code, out, _ = c.run(t, "", "conn", "ls", "--json")
	require.Equal(t, exitOK, code)
	ls := decodeJSON[connLsJSON](t, out)
	require.Equal(t, c.path, ls.ConfigFile)
	require.Len(t, ls.Profiles, 2)
	require.Equal(t, "envkey", ls.Profiles[0].Name)
	require.Equal(t, []keyJSON{{KeyID: "k-env", Uses: []string{"inbox", "mailbox"}, Secret: "env"}}, ls.Profiles[0].Keys)
	require.Equal(t, "Evil \u202e Corp", ls.Profiles[1].Partner, "JSON keeps the exact value")
	require.NotContains(t, out, "\u202e", "escaped as \\u202e")

	c.store.FailWith(credentials.ErrTimeout)
	delete(c.env, envAPIKey)
	code, out, errOut := c.run(t, "", "conn", "ls")
	require.Equal(t, exitOK, code, "a listing still lists")
	require.Regexp(t, `(?m)^evil .* timeout$`, out)
	require.Contains(t, errOut, "the keyring did not answer in time")
	require.Equal(t, 1, strings.Count(errOut, "keyring get"), "one hint, not one per key")
}

func TestConnCommandsRefuseAFileWithASecret(t *testing.T) {
	c := newConnEnv(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(c.path), 0o700))
	require.NoError(t, os.WriteFile(c.path, []byte("[profile.acme]\nurl = \"https://x.example\"\nconnection = \"c\"\ninbox_key_id = \"k\"\nmailbox_key_id = \"k\"\nsecret = \""+connCanaryIn+"\"\n"), 0o600))
	for _, args := range [][]string{{"conn", "ls"}, {"conn", "ls", "--json"}, {"conn", "test", "acme"}, {"mailbox", "ls", "-c", "acme"}} {
		code, _, errOut := c.run(t, "", args...)
		require.Equal(t, exitUsage, code, args)
		require.Contains(t, errOut, `key "secret" looks like a secret`, args)
		require.Contains(t, errOut, "delete that line", args)
	}
}

// TestURLFlagRefusesPlainHTTPBeforeAnyRequest: --url gets the profile's
// rule (https, or http only on loopback) before any request goes out, so
// neither the key nor an upload travels in clear text. 0.0.0.0 is not a
// loopback address, yet on Linux it reaches the simulator on 127.0.0.1:
// the control call proves a request would have arrived.
func TestURLFlagRefusesPlainHTTPBeforeAnyRequest(t *testing.T) {
	s := newSimEnv(t)
	exposed := strings.Replace(s.srv.URL, "127.0.0.1", "0.0.0.0", 1)
	require.NotEqual(t, s.srv.URL, exposed)
	cred := secret.Credential{KeyID: "key-cli", Secret: secret.New(cliCanarySecret)}
	ctl, err := apiclient.New(apiclient.Config{BaseURL: exposed, ConnectionID: cliConn, Credentials: apiclient.StaticCredentials{Inbox: cred, Mailbox: cred}})
	require.NoError(t, err)
	_, err = ctl.ListMailbox(context.Background(), 1, "")
	require.NoError(t, err, "control: the address reaches the simulator")
	lists, uploads := s.sim.RequestCount(partnersim.EndpointList, ""), s.sim.RequestCount(partnersim.EndpointInbox, "")

	po := orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 1, "PO-1"))
	for _, args := range [][]string{{"mailbox", "ls"}, {"mailbox", "ls", "--json"}, {"upload", po}, {"fetch", "--next"}} {
		code, out, errOut := runCmd(t, "", s.env, append(args, "--url", exposed, "--connection", cliConn)...)
		require.Equal(t, exitUsage, code, args)
		require.Contains(t, errOut, "uses plain http: use https", args)
		require.Contains(t, errOut, "127.0.0.0/8, ::1 and localhost", args)
		require.NotContains(t, out+errOut, cliCanarySecret)
	}
	require.Equal(t, lists, s.sim.RequestCount(partnersim.EndpointList, ""), "no mailbox request went out")
	require.Equal(t, uploads, s.sim.RequestCount(partnersim.EndpointInbox, ""), "no upload went out")
}

// TestURLFlagNeverEchoesCredentials: a bad --url is reported without its
// user info, also when it cannot be parsed at all.
func TestURLFlagNeverEchoesCredentials(t *testing.T) {
	s := newSimEnv(t)
	for _, tc := range []struct{ url, want string }{
		{"https://key1:" + cliCanarySecret + "@exa mple.com", "(unparsable URL)"},
		{"https://key1:" + cliCanarySecret + "@api.example.com", "must not contain a user name or password"},
		{"https://" + cliCanarySecret + "@api.example.com", "must not contain a user name or password"},
		{"http://key1:" + cliCanarySecret + "@127.0.0.1:9", "must not contain a user name or password"},
		{"https://api.example.com:" + cliCanarySecret, "(unparsable URL)"},
		{"ftp://key1:" + cliCanarySecret + "@example.com", "is not an http(s) URL"},
		{"https://api.example.com/?key=" + cliCanarySecret, "must not have a query"},
	} {
		for _, json := range []bool{false, true} {
			args := []string{"mailbox", "ls", "--url", tc.url, "--connection", cliConn}
			if json {
				args = append(args, "--json")
			}
			code, out, errOut := runCmd(t, "", s.env, args...)
			require.Equal(t, exitUsage, code, tc.url)
			require.Contains(t, errOut, tc.want, tc.url)
			require.NotContains(t, out+errOut, cliCanarySecret, tc.url)
		}
	}
}

// TestProfileFileHardening: a secret-shaped value is refused like a
// secret key (without echoing it), a non-regular $B2BX_CONFIG is refused
// at once, and a file other users can read draws a warning on stderr
// from every command that loads it.
func TestProfileFileHardening(t *testing.T) {
	c := newConnEnv(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(c.path), 0o700))
	table := "[profile.acme]\nurl = \"https://x.example\"\nconnection = \"%s\"\ninbox_key_id = \"k\"\nmailbox_key_id = \"k\"\n"
	for _, v := range []string{"k:" + connCanaryIn, "sk_live_" + connCanaryIn} {
		require.NoError(t, os.WriteFile(c.path, []byte(strings.Replace(table, "%s", v, 1)), 0o600))
		for _, args := range [][]string{{"conn", "ls"}, {"conn", "ls", "--json"}, {"conn", "test", "acme"}, {"mailbox", "ls", "-c", "acme"}} {
			code, _, errOut := c.run(t, "", args...)
			require.Equal(t, exitUsage, code, args)
			require.Contains(t, errOut, "looks like an API key secret", args)
			require.Contains(t, errOut, "b2bx conn set-secret acme", args)
		}
	}
	code, _, errOut := c.run(t, "", "conn", "add", "p", "--url", "https://x.example", "--connection", "k:"+connCanaryIn, "--key-id", "k", "--no-secret")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "looks like an API key secret", "conn add makes the same check")

	require.NoError(t, os.WriteFile(c.path, []byte(strings.Replace(table, "%s", "conn-1", 1)), 0o600))
	require.NoError(t, os.Chmod(c.path, 0o644))
	for _, args := range [][]string{{"conn", "ls"}, {"conn", "ls", "--json"}} {
		code, out, errOut := c.run(t, "", args...)
		require.Equal(t, exitOK, code, errOut)
		require.Contains(t, errOut, "b2bx: warning: profiles: "+c.path+" has mode 0644, so other users can read it", args)
		require.Contains(t, errOut, "chmod 600", args)
		require.NotContains(t, out, "warning", "stdout stays clean for --json")
	}
	code, _, errOut = c.run(t, "", "mailbox", "ls", "-c", "acme")
	require.Equal(t, exitUsage, code, "no secret stored")
	require.Contains(t, errOut, "other users can read it")

	c.env[credentials.EnvConfig] = filepath.Dir(c.path)
	code, _, errOut = c.run(t, "", "conn", "ls")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "is a directory, not a regular file: point $B2BX_CONFIG at a profile file")
}
