//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// demoBinary links the binary under a path of the test's own, so the
// processes the tour or the demo start can be told apart from other tests'
// ones.
func demoBinary(t *testing.T, w *world) string {
	t.Helper()
	dir := filepath.Join(w.dir, "demo-bin")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	link := filepath.Join(dir, "b2bx")
	require.NoError(t, os.Symlink(bin, link))
	return link
}

// processesOf lists the running processes whose program (argv[0]) is path,
// from /proc; elsewhere it cannot tell and returns nil.
func processesOf(t *testing.T, path string) []string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Logf("cannot list processes on %s; not checking for leftovers", runtime.GOOS)
		return nil
	}
	dirs, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var out []string
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && bytes.HasPrefix(cmdline, []byte(path+"\x00")) {
			out = append(out, d.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return out
}

// requireEmptyDir fails unless dir exists and is empty (the tour or the
// demo removed its temp dir).
func requireEmptyDir(t *testing.T, dir string) {
	t.Helper()
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, left, "left behind in %s", dir)
}

// simSecret matches what a simulator secret looks like.
var simSecret = regexp.MustCompile(`sk_[0-9a-f]{16,}`)

// TestTourScript runs .ci/scripts/tour.sh as `make tour` does: every step
// shows what it should, it exits 0, prints no secret and leaves no process
// or file behind.
func TestTourScript(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	link := demoBinary(t, w)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(repoRoot, ".ci", "scripts", "tour.sh"))
	cmd.Env = append(append([]string{}, w.env...), "B2BX="+link)
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		require.NoError(t, err)
	}
	text := string(out)
	require.NoError(t, ctx.Err(), "the tour did not finish in time:\n%s", text)
	require.Equal(t, 0, cmd.ProcessState.ExitCode(), "the tour failed:\n%s", text)

	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^== 1\. Start the Partner API simulator`),
		regexp.MustCompile(`(?m)^\$ b2bx mailbox ls \$CONN`),
		regexp.MustCompile(`(?m)^checks .*hashHeader ok.*trailer ok.*stored ok`),
		regexp.MustCompile(`(?m)^acknowledged +receipt `),
		regexp.MustCompile(`\(exit code 4\)`),
		regexp.MustCompile(`(?m)^ +POST claim -> 200\n +GET payload -> 200\n`),
		regexp.MustCompile(`(?m)^acknowledged +no`),
		regexp.MustCompile(`(?m)^key +` + regexp.QuoteMeta(ordersKey+"1") + `$`),
		regexp.MustCompile(`HTTP 200, replay`),
		regexp.MustCompile(`(?m)^ +new: \S+ +CONTRL$`),
		regexp.MustCompile(`(?m)^ +new: \S+ +ORDRSP$`),
		regexp.MustCompile(`(?m)^Done\.`),
		regexp.MustCompile(`(?m)^The same in the app.*make demo`),
	} {
		require.Regexp(t, want, text)
	}
	require.NotRegexp(t, simSecret, text, "the tour shows a secret")
	require.NotContains(t, text, "\x1b", "no colour when the output is not a terminal")
	require.Empty(t, processesOf(t, link), "the tour left a process running")
	requireEmptyDir(t, w.tmpDir)
}

// TestTourPauseAndInterrupt runs the tour in tmux with TOUR_PAUSE=1: it
// waits for Enter between steps, and Ctrl-C while it waits stops the
// simulator and removes the temp dir.
func TestTourPauseAndInterrupt(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	link := demoBinary(t, w)
	p := newPane(t, w, 120, 40, []string{"TOUR_PAUSE=1", "B2BX=" + link})
	m := p.start(shellQuote(filepath.Join(repoRoot, ".ci", "scripts", "tour.sh")))
	const pause = "(Enter for the next step)"
	p.waitFor("the first pause", 30*time.Second, func(h string) bool { return strings.Contains(h, pause) })
	require.NotContains(t, p.history(), "== 2.", "the tour waits for Enter")
	require.NotEmpty(t, processesOf(t, link), "the simulator runs while the tour waits")
	p.key("Enter")
	p.waitFor("the second pause", 30*time.Second, func(h string) bool {
		return strings.Contains(h, "== 2.") && strings.Count(h, pause) >= 2
	})
	p.key("C-c")
	code, h := p.wait(m, 30*time.Second)
	require.Equal(t, 130, code, "Ctrl-C ends the tour with 130:\n%s", h)
	require.NotContains(t, h, "== 3.")
	require.Empty(t, processesOf(t, link), "Ctrl-C left the simulator running")
	requireEmptyDir(t, w.tmpDir)
}
