//go:build e2e

package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// appScreens keeps every screen a test saw, to check them all for secrets
// at the end (the app draws on the alternate screen: nothing of it is in
// the scrollback).
type appScreens struct {
	p    *pane
	seen []string
}

// waitScreen polls the visible pane until cond holds and returns it; on
// timeout it fails with what the pane shows.
func (a *appScreens) waitScreen(what string, timeout time.Duration, cond func(screen string) bool) string {
	a.p.t.Helper()
	s := a.waitScreenFor(timeout, cond)
	if s == "" {
		a.p.t.Fatalf("timed out after %s waiting for %s; the pane shows:\n%s", timeout, what, a.p.screen())
	}
	return s
}

// waitScreenFor is waitScreen that gives up quietly: "" when cond did
// not hold within timeout.
func (a *appScreens) waitScreenFor(timeout time.Duration, cond func(screen string) bool) string {
	deadline := time.Now().Add(timeout)
	for {
		s := a.p.screen()
		if cond(s) {
			a.seen = append(a.seen, s)
			return s
		}
		if time.Now().After(deadline) {
			return ""
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// uploadByCommand sends the demo's file path with `:upload PATH`, waits
// for the pre-flight showing every string of preflight, sends it (y),
// waits for the 202 showing every string of accepted, and goes back to
// the mailbox. It returns the pre-flight screen.
func (a *appScreens) uploadByCommand(path string, preflight, accepted []string) string {
	a.p.t.Helper()
	a.p.key(":")
	a.waitScreen("the command line", 10*time.Second, func(s string) bool { return regexp.MustCompile(`(?m)^:`).MatchString(s) })
	a.p.send("upload " + path)
	s := a.waitScreen("the pre-flight of "+filepath.Base(path), 20*time.Second, contains(append([]string{"Upload ORDERS", "Idempotency-Key"}, preflight...)...))
	a.p.key("y")
	a.waitScreen("the upload accepted", 20*time.Second, contains(append([]string{"202 accepted"}, accepted...)...))
	// Two escapes at once read as alt+esc: one at a time. The first
	// leaves the result for the file list, the second the upload screen.
	a.p.key("Escape")
	a.waitScreen("the file list", 10*time.Second, func(s string) bool { return !strings.Contains(s, "202 accepted") })
	a.p.key("Escape")
	a.waitScreen("the mailbox again", 10*time.Second, contains("acme-de  page 1"))
	return s
}

// claimNewest takes the newest entry of the acme-de mailbox (A loads every
// page, G the last row), whose row must name a type matching types; it
// claims it (c, y: it is not the head), downloads and verifies it (d)
// and waits for the verified panel showing every string of verified. It
// returns the type and that screen; acknowledging is the caller's.
func (a *appScreens) claimNewest(types string, verified ...string) (typ, screen string) {
	a.p.t.Helper()
	// The answer is created by the simulator after the upload's 202, so
	// a listing read too soon does not have it yet: the newest row must
	// be minutes old at most (the demo's own entries are hours old), and
	// the backlog is read again (A) until it is.
	row := regexp.MustCompile(`(?m)^>\s+\d+ \S+ \S+\s+(?:\d+s|\dm) +(` + types + `) `)
	var s string
	deadline := time.Now().Add(30 * time.Second)
	header := regexp.MustCompile(`(?m)^\S+  backlog: \d+ entries`) // the tab's header line, not the status bar
	loaded := func(s string) bool {
		return header.MatchString(s) && !strings.Contains(s, "loading every page")
	}
	for try := 0; s == ""; try++ {
		if try > 0 { // A goes back to the page; the next A reads the backlog anew
			a.p.key("A")
			a.waitScreen("the page view", 20*time.Second, func(s string) bool { return !header.MatchString(s) })
			time.Sleep(200 * time.Millisecond)
		}
		a.p.key("A")
		a.waitScreen("the backlog", 20*time.Second, loaded)
		a.p.key("G")
		s = a.waitScreenFor(2*time.Second, row.MatchString)
		if s == "" && time.Now().After(deadline) {
			a.p.t.Fatalf("timed out after 30s waiting for a new entry (%s) as the newest row; the pane shows:\n%s", types, a.p.screen())
		}
	}
	typ = row.FindStringSubmatch(s)[1]
	a.p.key("c")
	a.waitScreen("the not-the-head question", 10*time.Second, contains("Claim it anyway?"))
	a.p.key("y")
	a.waitScreen("the claim", 20*time.Second, contains("d download + verify"))
	a.p.key("d")
	s = a.waitScreen("the "+typ+" verified", 30*time.Second, contains(append([]string{"verified and stored durably"}, verified...)...))
	return typ, s
}

// requireCleanDemoEnd checks what every demo walk ends with: no screen
// seen, nor h (what the pane showed at the exit), shows a simulator
// secret, no process of link is left and the world's temp dir is empty.
func (a *appScreens) requireCleanDemoEnd(h, link string, w *world) {
	t := a.p.t
	t.Helper()
	for i, screen := range append(a.seen, h) {
		require.NotRegexp(t, simSecret, screen, "screen %d shows a simulator secret", i)
	}
	require.Empty(t, processesOf(t, link), "the demo left a process running")
	requireEmptyDir(t, w.tmpDir)
}

func contains(subs ...string) func(string) bool {
	return func(s string) bool {
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				return false
			}
		}
		return true
	}
}

// TestAppDemo drives `b2bx demo` in tmux the way docs/app.md's walkthrough
// does: first frame with both demo tabs, P on the head entry (verified
// and acknowledged), W on to the faulty entry (refused, the failed check
// named, nothing acknowledged), q asks because of the open claim, y quits.
// The pane's title and clipboard stay untouched, the screen comes back,
// no simulator secret is ever shown, and the temp dir is gone.
func TestAppDemo(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	link := demoBinary(t, w)
	p := newPane(t, w, 120, 36, nil)
	p.tmux("select-pane", "-t", p.target, "-T", "e2e-title")
	_, _ = p.run("echo before-the-app", 10*time.Second)
	a := &appScreens{p: p}

	started := time.Now()
	m := p.start(shellCmd(link, "demo"))
	first := a.waitScreen("the first frame", 30*time.Second, contains("DEMO", "connections", "│"))
	t.Logf("first frame after %s (tmux polling included)", time.Since(started).Round(time.Millisecond))
	require.Contains(t, first, "b2bx")
	s := a.waitScreen("both demo tabs with the mailbox", 30*time.Second, contains("1 acme-de", "2 acme-at", "page 1:", "head of the mailbox"))
	require.Regexp(t, `(?m)^ DEMO │ acme-de │ page 1`, s, "the status bar names the demo and the connection")

	p.key("P")
	s = a.waitScreen("the head entry verified and acknowledged", 60*time.Second, contains("✓ acknowledged", "receipt"))
	for _, check := range []string{"✓ size vs header", "✓ size vs listing", "✓ hash vs header", "✓ hash vs listing", "✓ trailer verified", "✓ stored durably"} {
		require.Contains(t, s, check)
	}

	p.key("W")
	s = a.waitScreen("the faulty entry refused", 60*time.Second, contains("NOT VERIFIED", "hash vs header"))
	require.Contains(t, s, "✗ hash vs header")
	require.Contains(t, s, "Nothing will be acknowledged")
	require.Regexp(t, regexp.MustCompile(`refused: hash`), s, "the status bar says the transfer was refused")

	p.key("q")
	s = a.waitScreen("the quit prompt", 10*time.Second, contains("Quit b2bx?", "[y/N]"))
	require.Contains(t, s, "an active claim on")
	p.key("n")
	a.waitScreen("the prompt gone", 10*time.Second, func(s string) bool { return !strings.Contains(s, "Quit b2bx?") })
	p.key("q")
	a.waitScreen("the quit prompt again", 10*time.Second, contains("Quit b2bx?"))
	p.key("y")
	code, h := p.wait(m, 30*time.Second)
	require.Equal(t, 0, code, "b2bx demo exits 0 after q, y:\n%s", h)

	after := p.screen()
	require.Contains(t, after, "before-the-app", "the screen from before the app is back")
	require.NotContains(t, after, "DEMO │", "the app's screen is gone")
	require.Equal(t, "e2e-title", p.display("#{pane_title}"), "the pane title changed")
	require.Empty(t, p.buffers(), "something wrote to the clipboard")
	a.requireCleanDemoEnd(h, link, w)
}

// TestAppSmallTerminal: below 80×24 the app says so instead of drawing a
// broken frame, draws once the terminal is large enough, and q quits.
func TestAppSmallTerminal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := newPane(t, w, 70, 20, nil)
	a := &appScreens{p: p}
	m := p.start(shellCmd(bin, "demo"))
	a.waitScreen("the size message", 30*time.Second, contains("needs a terminal of at least 80×24", "this one is 70×20"))
	p.tmux("resize-window", "-t", "e2e", "-x", "100", "-y", "30")
	a.waitScreen("the app at 100×30", 30*time.Second, contains("DEMO", "1 acme-de"))
	p.key("q")
	code, h := p.wait(m, 30*time.Second)
	require.Equal(t, 0, code, h)
	requireEmptyDir(t, w.tmpDir)
}

// TestAppNeedsATerminal: without a terminal, b2bx prints its usage and
// b2bx demo names the scripted tour; both exit 2 and start nothing.
func TestAppNeedsATerminal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.b2bx(t, nil, "")
	require.Equal(t, 2, r.code, r.String())
	require.Contains(t, r.stderr, "the app needs a terminal")
	require.Contains(t, r.stderr, "usage: b2bx <command>")
	r = w.b2bx(t, nil, "", "demo")
	require.Equal(t, 2, r.code, r.String())
	require.Contains(t, r.stderr, "make tour")
	requireEmptyDir(t, w.tmpDir)
}

// TestAppAddConnection types a new connection into the app's + form in a
// private keyring session: the secret (the simulator's real one, a
// canary) is typed masked, stored in the keyring (the list then says
// "keyring" and the tab reads the mailbox with it), and never appears on
// any screen, in the session log or in any file.
func TestAppAddConnection(t *testing.T) {
	t.Parallel()
	requireTool(t, "B2BX_KEYRING_IT", "gnome-keyring-daemon", "dbus-run-session", "dbus-send")
	w := newWorld(t)
	s := startSim(t, w)
	de := s.conn(t, "acme-de")

	session := filepath.Join(repoRoot, ".ci", "keyring-session")
	p := newPane(t, w, 120, 36, nil, "bash", "-c", `"$0" "$@"; echo "__session_end rc=$?"`,
		session, "env", "PS1="+prompt, "bash", "--norc", "--noprofile")
	a := &appScreens{p: p}
	m := p.start(shellCmd(bin))
	a.waitScreen("the first-run screen", 30*time.Second, contains("No connection profiles yet", "b2bx demo", "+"))

	p.key("+")
	a.waitScreen("the form", 10*time.Second, contains("Add a connection", "Mailbox key secret"))
	for _, v := range []string{"acme-app", s.URL, de.ConnectionID, de.KeyID, de.Secret} {
		p.tmux("send-keys", "-t", p.target, "-l", v)
		p.key("Tab")
	}
	typed := a.waitScreen("the masked secret", 10*time.Second, contains(strings.Repeat("•", 8)))
	require.NotContains(t, typed, de.Secret)
	p.key("C-s")
	a.waitScreen("the new connection with its key in the keyring", 30*time.Second, contains("acme-app", "✓ keyring"))

	p.key("Enter")
	a.waitScreen("the connection's mailbox", 30*time.Second, contains("1 acme-app", "page 1:"))
	p.key("L")
	logScreen := a.waitScreen("the session log", 10*time.Second, contains("Session log", "correlationId="))
	require.Contains(t, logScreen, "op=list")
	p.key("L")
	a.waitScreen("the log closed", 10*time.Second, func(s string) bool { return !strings.Contains(s, "Session log") })
	p.key("q")
	code, h := p.wait(m, 30*time.Second)
	require.Equal(t, 0, code, h)

	for i, screen := range append(a.seen, p.history()) {
		w.requireNoSecret(t, "screen "+string(rune('0'+i%10)), screen)
		for j := 0; j+12 <= len(de.Secret); j++ {
			require.NotContains(t, screen, de.Secret[j:j+12], "screen %d shows a piece of the secret", i)
		}
	}
	w.requireNoSecretOnDisk(t)
	code, h = p.run(shellCmd(bin, "conn", "test", "acme-app"), 30*time.Second)
	require.Equal(t, 0, code, "the keyring holds exactly the typed secret:\n%s", h)
}
