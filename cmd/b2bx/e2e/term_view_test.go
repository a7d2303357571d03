//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim/edigen"
)

// TestTerminalViewRejectingContrl: `b2bx view` on a rejecting CONTRL
// shows the verdict and the error count in the header; the issues-free
// file says so; q ends it with exit 0 and the shell's screen back.
func TestTerminalViewRejectingContrl(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	data, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "edifact", "contrl_22_rejected.edi"))
	require.NoError(t, err)
	file := filepath.Join(w.dir, "contrl.edi")
	require.NoError(t, os.WriteFile(file, data, 0o600))

	p := newPane(t, w, 120, 40, nil)
	m := p.start(shellCmd(bin, "view", file))
	p.waitFor("the viewer's header", 20*time.Second, func(string) bool {
		return strings.Contains(p.screen(), "CONTRL for interchange ICR0009: REJECTED, 2 errors")
	})
	s := p.screen()
	require.Contains(t, s, "File check  ✓ VALID: no errors, no warnings")
	require.Contains(t, s, "UCI Interchange response")
	// Search a tag and see the detail of the match.
	p.key("/")
	p.tmux("send-keys", "-t", p.target, "-l", "ucd")
	p.key("Enter")
	p.waitFor("the search match", 10*time.Second, func(string) bool {
		return strings.Contains(p.screen(), "Segment 6 UCD Data element error indication")
	})
	p.key("q")
	code, _ := p.wait(m, 20*time.Second)
	require.Equal(t, 0, code)
}

// TestTerminalViewLargeFile: a 16 MiB interchange opens, G reaches UNZ,
// and the peak memory of the whole command is logged (goal ≤ 3× the file).
func TestTerminalViewLargeFile(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	g := edigen.New(42)
	supplier := edigen.Party{GLN: g.GLN("40")}
	o := g.Order(edigen.Party{GLN: g.GLN("40")}, supplier, time.Date(2025, 3, 12, 10, 30, 0, 0, time.UTC), 1)
	env := edigen.Envelope{Syntax: 3, Sender: supplier.GLN, Recipient: o.Buyer.GLN, ControlRef: "BIGVIEW01",
		Prepared: time.Date(2025, 3, 12, 11, 0, 0, 0, time.UTC)}
	data := g.LargeOrdrsp(edigen.D96A, env, o, "RSP-BIG", 16<<20-4096)
	require.GreaterOrEqual(t, len(data), 15<<20)
	file := filepath.Join(w.dir, "big.edi")
	require.NoError(t, os.WriteFile(file, data, 0o600))

	p := newPane(t, w, 160, 50, nil)
	cmdline := shellCmd(bin, "view", file)
	timed := false
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		cmdline = "/usr/bin/time -f 'maxrss-kB=%M' " + cmdline
		timed = true
	}
	m := p.start(cmdline)
	p.waitFor("the viewer's header", 30*time.Second, func(string) bool {
		return strings.Contains(p.screen(), "ORDRSP to order")
	})
	p.key("G")
	p.waitFor("UNZ selected", 20*time.Second, func(string) bool {
		for _, l := range strings.Split(p.screen(), "\n") {
			if strings.HasPrefix(l, ">") && strings.Contains(l, " UNZ ") && strings.Contains(l, "BIGVIEW01") {
				return true
			}
		}
		return false
	})
	p.key("g")
	p.waitFor("back at the top", 20*time.Second, func(string) bool {
		return regexp.MustCompile(`(?m)^>\s+0 UN[AB] `).MatchString(p.screen())
	})
	p.key("q")
	code, h := p.wait(m, 30*time.Second)
	require.Equal(t, 0, code)
	if timed {
		mm := regexp.MustCompile(`maxrss-kB=(\d+)`).FindStringSubmatch(h)
		require.NotNil(t, mm, "no maxrss in:\n%s", h)
		kb, err := strconv.Atoi(mm[1])
		require.NoError(t, err)
		t.Logf("b2bx view on %d bytes: peak RSS %.1f MiB = %.2f× the file", len(data), float64(kb)/1024, float64(kb*1024)/float64(len(data)))
	}
}

// TestTerminalViewHostileInert: the viewer shows a hostile file's escapes
// as text; the pane title and the clipboard stay as they were, and the
// shell's screen is back after q.
func TestTerminalViewHostileInert(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	file := filepath.Join(w.dir, "hostile.edi")
	require.NoError(t, os.WriteFile(file, hostileInterchange(), 0o600))

	p := newPane(t, w, 200, 50, nil)
	p.tmux("select-pane", "-t", p.target, "-T", "e2e-title")
	requireDetectors(t, p, file)
	p.clear()
	code, _ := p.run("echo BEFORE-VIEW-MARK", 10*time.Second)
	require.Equal(t, 0, code)
	m := p.start(shellCmd(bin, "view", file))
	p.waitFor("the viewer", 20*time.Second, func(string) bool { return strings.Contains(p.screen(), "ORDERS PO-") })
	for range 4 {
		p.key("j")
	}
	p.waitFor("the BGM row escaped", 10*time.Second, func(string) bool {
		return strings.Contains(p.screen(), "PO-^[]52;c;Y2FuYXJ5^G-^[]2;pwned-title^G")
	})
	p.key("G", "r")
	p.waitFor("the raw view", 10*time.Second, func(string) bool { return strings.Contains(p.screen(), "Raw bytes around offset") })
	require.Contains(t, p.screen(), "ICR^[]0;ref-title^GX", "the control reference in the raw bytes, escaped")
	require.Equal(t, "e2e-title", p.display("#{pane_title}"), "the pane title changed")
	require.Empty(t, p.buffers(), "something wrote the clipboard (OSC 52)")
	p.key("q")
	code, _ = p.wait(m, 20*time.Second)
	require.Equal(t, 0, code)
	require.Contains(t, p.screen(), "BEFORE-VIEW-MARK", "the shell's screen is back")
	require.Equal(t, "e2e-title", p.display("#{pane_title}"))
	require.Empty(t, p.buffers())
}
