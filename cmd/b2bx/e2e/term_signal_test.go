//go:build e2e

package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestOneSigtermInATerminal: one SIGTERM to `b2bx demo` (tabs open, the
// simulator running) or `b2bx view` in a real terminal ends it with 0
// and gives the terminal back: the main screen with what was there
// before, echo and canonical mode on. It used to hang in about one run
// in five (Bubble Tea's signal handler raced the app's), frozen on the
// alternate screen. A few runs each, since that was a race.
func TestOneSigtermInATerminal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	link := demoBinary(t, w)
	file := filepath.Join(repoRoot, "testdata", "edifact", "orders_d96a.edi")
	for _, tc := range []struct {
		args  []string
		ready func(string) bool
	}{
		{[]string{"demo"}, contains("1 acme-de", "2 acme-at", "page 1:")},
		{[]string{"view", file}, contains("ORDERS")},
	} {
		for trial := range 5 {
			p := newPane(t, w, 120, 36, nil)
			_, _ = p.run("echo before-the-app", 10*time.Second)
			a := &appScreens{p: p}
			m := p.start(shellCmd(append([]string{link}, tc.args...)...))
			a.waitScreen(tc.args[0]+" on screen", 30*time.Second, tc.ready)
			procs := processesOf(t, link)
			require.Len(t, procs, 1, "one b2bx process: %v", procs)
			pid, err := strconv.Atoi(strings.SplitN(procs[0], ":", 2)[0])
			require.NoError(t, err)
			require.NoError(t, syscall.Kill(pid, syscall.SIGTERM))
			code, h := p.wait(m, 30*time.Second)
			require.Equal(t, 0, code, "%s, trial %d: one SIGTERM ends it cleanly:\n%s", tc.args[0], trial, h)
			require.Equal(t, "0", p.display("#{alternate_on}"), "the alternate screen is left")
			require.Contains(t, p.screen(), "before-the-app", "the screen from before is back")
			_, st := p.run("stty -a", 10*time.Second)
			require.Regexp(t, `(^|\s)icanon(\s|$)`, st, "canonical mode is back")
			require.Regexp(t, `(^|\s)echo(\s|$)`, st, "echo is back")
			require.Empty(t, processesOf(t, link), "nothing left running")
		}
	}
}
