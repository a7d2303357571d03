//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// prompt is the pane shell's PS1; waiting for it means the shell is ready.
const prompt = "e2e$ "

// tmuxConf is the private server's configuration: no status line (the pane
// is the whole window), a long scrollback for `capture-pane -S -`, OSC 52
// from applications lands in a paste buffer (so a test can see a clipboard
// write), and dead panes stay for a last capture.
const tmuxConf = `set -g status off
set -g history-limit 100000
set -s set-clipboard on
set -s escape-time 0
set -g remain-on-exit on
`

// pane is a tmux server on a private socket with one session whose single
// pane runs a shell; the test types into it and reads the screen back.
type pane struct {
	t      *testing.T
	w      *world
	socket string
	target string
	seq    int
}

// newPane starts a private tmux server with a width×height session running
// shell (default: bash without rc files) in the world's environment plus
// extraEnv, and waits for the shell prompt. The server is killed when the
// test ends.
func newPane(t *testing.T, w *world, width, height int, extraEnv []string, shell ...string) *pane {
	t.Helper()
	requireTool(t, "B2BX_E2E_REQUIRE", "tmux", "bash")
	// A short directory of its own: socket paths are limited to ~100 bytes.
	dir, err := os.MkdirTemp("", "b2bx-tmux-")
	require.NoError(t, err)
	conf := filepath.Join(dir, "tmux.conf")
	require.NoError(t, os.WriteFile(conf, []byte(tmuxConf), 0o600))
	p := &pane{t: t, w: w, socket: filepath.Join(dir, "s"), target: "e2e:0.0"}
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-S", p.socket, "kill-server").Run()
		_ = os.RemoveAll(dir)
	})
	if len(shell) == 0 {
		shell = []string{"bash", "--norc", "--noprofile"}
	}
	args := []string{"-S", p.socket, "-f", conf, "new-session", "-d", "-s", "e2e", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), "--"}
	cmd := exec.Command("tmux", append(args, shell...)...)
	cmd.Env = append(append(append([]string{}, w.env...), "PS1="+prompt, "SHELL=/bin/bash"), extraEnv...)
	cmd.Dir = w.dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "tmux new-session: %s", out)
	p.waitFor("the shell prompt", 20*time.Second, func(screen string) bool { return strings.Contains(screen, prompt) })
	return p
}

// tmux runs a tmux command against the private server.
func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.socket}, args...)...).CombinedOutput()
	require.NoError(p.t, err, "tmux %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// screen is the visible pane; history adds the whole scrollback. Wrapped
// lines are joined (-J), so a string split by the pane width still shows.
func (p *pane) screen() string { return p.tmux("capture-pane", "-p", "-J", "-t", p.target) }
func (p *pane) history() string {
	return p.tmux("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", p.target)
}

// display evaluates a tmux format for the pane, e.g. #{pane_title}.
func (p *pane) display(format string) string {
	return strings.TrimRight(p.tmux("display-message", "-p", "-t", p.target, format), "\n")
}

// buffers lists the server's paste buffers (OSC 52 clipboard writes land here).
func (p *pane) buffers() []string {
	return strings.Fields(p.tmux("list-buffers", "-F", "#{buffer_name}"))
}

// waitFor polls the whole scrollback until cond holds; on timeout it fails
// with what the pane shows.
func (p *pane) waitFor(what string, timeout time.Duration, cond func(history string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		h := p.history()
		if cond(h) {
			return h
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out after %s waiting for %s; the pane shows:\n%s", timeout, what, h)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// send types text literally, then presses Enter.
func (p *pane) send(text string) {
	p.t.Helper()
	if text != "" {
		p.tmux("send-keys", "-t", p.target, "-l", text)
	}
	p.tmux("send-keys", "-t", p.target, "Enter")
}

// key presses tmux key names (C-c, Enter, …).
func (p *pane) key(keys ...string) {
	p.t.Helper()
	p.tmux(append([]string{"send-keys", "-t", p.target}, keys...)...)
}

// start types a shell command that reports its exit code with a marker of
// its own when it ends; wait collects that code.
func (p *pane) start(cmdline string) (marker string) {
	p.t.Helper()
	p.seq++
	marker = fmt.Sprintf("__e2e_done_%d", p.seq)
	p.send(cmdline + "; echo " + marker + " rc=$?")
	return marker
}

// wait waits for the command started with marker to end and returns its
// exit code and the scrollback.
func (p *pane) wait(marker string, timeout time.Duration) (int, string) {
	p.t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(marker) + ` rc=(\d+)`)
	h := p.waitFor("the end of the command ("+marker+")", timeout, func(h string) bool { return re.MatchString(h) })
	code, err := strconv.Atoi(re.FindStringSubmatch(h)[1])
	require.NoError(p.t, err)
	return code, h
}

// run types a command, waits for it and returns its exit code and the
// scrollback.
func (p *pane) run(cmdline string, timeout time.Duration) (int, string) {
	p.t.Helper()
	return p.wait(p.start(cmdline), timeout)
}

// clear empties the screen and the scrollback, so later captures show only
// what follows.
func (p *pane) clear() {
	p.t.Helper()
	code, _ := p.run("printf '\\033[H\\033[2J'", 10*time.Second)
	require.Equal(p.t, 0, code)
	p.tmux("clear-history", "-t", p.target)
}

// shellQuote quotes s for the pane's shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellCmd joins a command line for the pane's shell.
func shellCmd(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// sinceMarker returns the part of the scrollback after the line that typed
// marker's command (the command's own output and later lines).
func sinceMarker(history, marker string) string {
	i := strings.Index(history, marker+" rc=$?")
	if i < 0 {
		return history
	}
	if j := strings.IndexByte(history[i:], '\n'); j >= 0 {
		return history[i+j+1:]
	}
	return ""
}
