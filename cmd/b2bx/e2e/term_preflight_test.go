//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAppPreflightKnowsThePartner is issue 21's walk in tmux against the
// simulator, with a profile that names its directory and the demo
// partner's rules (mig = "demo.toml"): the start screen shows the
// directory; the upload screen names the connection, the directory and
// the rules file, warns on a partner rule with its file:line, and blocks
// a buyer GLN with a wrong check digit with the digit it should be; on
// the command line an ORDERS in another directory is blocked and goes
// with --force.
func TestAppPreflightKnowsThePartner(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := startSim(t, w, "--reply-delay", "1h")
	de := s.conn(t, "acme-de")
	cfgDir := filepath.Dir(w.config)
	require.NoError(t, os.MkdirAll(cfgDir, 0o700))
	rules, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "mig", "demo.toml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(cfgDir, "demo.toml"), rules, 0o600))
	profile := func(name, extra string) string {
		return fmt.Sprintf("[profile.%s]\nurl = %q\nconnection = %q\ninbox_key_id = %q\nmailbox_key_id = %q\ndirectory = \"D.96A\"\n%s\n",
			name, s.URL, de.ConnectionID, de.KeyID, de.KeyID, extra)
	}
	require.NoError(t, os.WriteFile(w.config, []byte(profile("acme-mig", `mig = "demo.toml"`)+profile("acme-plain", "")), 0o600))

	p := newPane(t, w, 180, 45, apiKeyEnv(de))
	a := &appScreens{p: p}
	m := p.start(shellCmd(bin))
	a.waitScreen("the start screen with the directory", 30*time.Second, contains("acme-mig  "+s.URL+"  connection "+de.ConnectionID+"  D.96A"))
	p.key("Enter")
	a.waitScreen("the connection's mailbox", 30*time.Second, contains("1 acme-mig", "page 1:"))

	// Two escapes at once read as alt+esc: one at a time. The first
	// leaves the report for the file list, the second the upload screen.
	closeUpload := func() {
		p.key("Escape")
		a.waitScreen("the file list", 10*time.Second, contains("choose a file"))
		p.key("Escape")
		a.waitScreen("the mailbox again", 10*time.Second, func(s string) bool { return !strings.Contains(s, "Upload ORDERS") })
	}

	// A partner rule: the upload screen warns with the rule's file:line.
	// (the shipped ORDERS names its delivery party NAD+DP; this one a
	// ship-to party NAD+ST instead, which the partner's rules do not take)
	noDP := filepath.Join(w.dir, "po-no-dp.edi")
	b, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "edifact", "orders_d96a.edi"))
	require.NoError(t, err)
	require.Contains(t, string(b), "NAD+DP+")
	require.NoError(t, os.WriteFile(noDP, []byte(strings.Replace(string(b), "NAD+DP+", "NAD+ST+", 1)), 0o600))
	p.key(":")
	a.waitScreen("the command line", 10*time.Second, contains(":"))
	p.send("upload " + noDP)
	scr := a.waitScreen("the pre-flight with the partner's rules", 20*time.Second,
		contains("Upload ORDERS to acme-mig · D.96A · partner rules demo.toml — po-no-dp.edi", "demo.toml:5: ORDERS", "NAD+DP; the partner requires at least 1"))
	require.Contains(t, scr, "send anyway?")
	closeUpload()

	// A wrong GLN check digit: blocked, with the digit it should be.
	p.key(":")
	a.waitScreen("the command line", 10*time.Second, contains(":"))
	p.send("upload " + filepath.Join(repoRoot, "testdata", "edifact", "orders_bad_gln.edi"))
	scr = a.waitScreen("the blocked pre-flight", 20*time.Second, contains("Upload ORDERS to acme-mig · D.96A", "blocked:", "its GS1 check digit is 9 (4012345000009)"))
	require.NotContains(t, scr, "Idempotency-Key")
	closeUpload()
	p.key("q")
	if strings.Contains(p.screen(), "Quit b2bx?") {
		p.key("y")
	}
	code, h := p.wait(m, 30*time.Second)
	require.Equal(t, 0, code, h)
	require.Empty(t, s.requests("/inbox"), "nothing was sent from the app")

	// The command line: an ORDERS in D.25A on the D.96A connection is
	// blocked (exit 2, nothing sent); --force sends it with a warning.
	d25a := filepath.Join(repoRoot, "testdata", "edifact", "utf8_orders_d25a.edi")
	code, out := p.run(shellCmd(bin, "upload", "-c", "acme-plain", d25a), 30*time.Second)
	require.Equal(t, 2, code, out)
	require.Contains(t, out, "is in directory D.25A, but this connection's profile revision is D.96A")
	require.Contains(t, out, "--force sends it anyway")
	require.Empty(t, s.requests("/inbox"), "the blocked upload sent nothing")
	code, out = p.run(shellCmd(bin, "upload", "-c", "acme-plain", "--force", d25a), 30*time.Second)
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "sent anyway (--force)")
	waitUntil(t, 10*time.Second, "the forced upload in the simulator's log", func() bool { return len(s.requests("/inbox")) == 1 })
	w.requireNoSecret(t, "the pane", p.history())
}

// TestAppPreflightWarnsOnAShapeNeverAccepted is issue 21 §4 in tmux: the
// partner accepted five ORDERS (uploaded and their CONTRLs fetched on the
// command line); the app's upload screen then warns, without blocking,
// that a file with an invoicee (NAD+IV) has a shape none of them had.
func TestAppPreflightWarnsOnAShapeNeverAccepted(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := startSim(t, w, "--seed", "empty", "--reply-delay", "0s")
	de := s.conn(t, "acme-de")
	require.NoError(t, os.MkdirAll(filepath.Dir(w.config), 0o700))
	require.NoError(t, os.WriteFile(w.config, []byte(fmt.Sprintf("[profile.acme-hist]\nurl = %q\nconnection = %q\ninbox_key_id = %q\nmailbox_key_id = %q\ndirectory = \"D.96A\"\n",
		s.URL, de.ConnectionID, de.KeyID, de.KeyID)), 0o600))
	base, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "edifact", "orders_d96a.edi"))
	require.NoError(t, err)
	order := func(n int, extra string) string {
		b := strings.ReplaceAll(string(base), "PO-4711", fmt.Sprintf("PO-59%02d", n))
		b = strings.ReplaceAll(b, "ICR0001", fmt.Sprintf("ICR59%02d", n))
		if extra != "" { // one segment more: the message's segment count too
			b = strings.Replace(b, "NAD+DP+", extra+"'NAD+DP+", 1)
			b = regexp.MustCompile(`UNT\+(\d+)\+`).ReplaceAllStringFunc(b, func(m string) string {
				var c int
				_, _ = fmt.Sscanf(m, "UNT+%d+", &c)
				return fmt.Sprintf("UNT+%d+", c+1)
			})
		}
		path := filepath.Join(w.dir, fmt.Sprintf("po-59%02d.edi", n))
		require.NoError(t, os.WriteFile(path, []byte(b), 0o600))
		return path
	}
	env := apiKeyEnv(de)
	for n := 1; n <= 5; n++ {
		r := w.b2bx(t, env, "", "upload", "-c", "acme-hist", order(n, ""))
		require.Equal(t, 0, r.code, "%s", r)
	}
	waitUntil(t, 20*time.Second, "the ten answers listed", func() bool {
		r := w.b2bx(t, env, "", "mailbox", "ls", "-c", "acme-hist", "--json")
		return r.code == 0 && strings.Count(r.stdout, `"deliveryAttemptId"`) >= 10
	})
	r := w.b2bx(t, env, "", "fetch", "--all", "--ack", "-c", "acme-hist")
	require.Equal(t, 0, r.code, "%s", r)
	r = w.b2bx(t, env, "", "check", "-c", "acme-hist", order(6, "NAD+IV+4012345000023::9"))
	require.Equal(t, 1, r.code, "warnings only: %s", r)
	require.Contains(t, r.stdout+r.stderr, "this partner accepted 5 ORDERS, none with NAD+IV")

	p := newPane(t, w, 180, 45, env)
	a := &appScreens{p: p}
	m := p.start(shellCmd(bin))
	a.waitScreen("the start screen", 30*time.Second, contains("acme-hist"))
	p.key("Enter")
	a.waitScreen("the connection's mailbox", 30*time.Second, contains("1 acme-hist"))
	p.key(":")
	a.waitScreen("the command line", 10*time.Second, contains(":"))
	p.send("upload " + order(7, "NAD+IV+4012345000023::9"))
	scr := a.waitScreen("the pre-flight with the partner's history", 30*time.Second,
		contains("Upload ORDERS to acme-hist", "this partner accepted 5 ORDERS, none with NAD+IV"))
	require.Contains(t, scr, "1 warning(s) above: send anyway?", "a warning, not a block")
	require.NotContains(t, scr, "blocked:")
	p.key("Escape")
	a.waitScreen("the file list", 10*time.Second, contains("choose a file"))
	p.key("Escape")
	a.waitScreen("the mailbox again", 10*time.Second, func(s string) bool { return !strings.Contains(s, "Upload ORDERS") })
	p.key("q")
	if strings.Contains(p.screen(), "Quit b2bx?") {
		p.key("y")
	}
	code, h := p.wait(m, 30*time.Second)
	require.Equal(t, 0, code, h)
	require.Len(t, s.requests("/inbox"), 5, "the app sent nothing")
	w.requireNoSecret(t, "the pane", p.history())
}
