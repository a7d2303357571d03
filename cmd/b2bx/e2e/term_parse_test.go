//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/require"
)

// hostileInterchange is a UTF-8 (UNOW) ORDERS whose element values carry
// what a terminal would act on: OSC 52 (clipboard write), OSC 0/2 (window
// title), CSI 2J (clear screen), CR (overwrite the line), U+009B (8-bit
// CSI) and U+202E (right-to-left override). The control reference, shown in
// parse's summary, carries one too.
func hostileInterchange() []byte {
	const ref = "ICR\x1b]0;ref-title\x07X"
	return []byte("UNA:+.? '" +
		"UNB+UNOW:4+4012345000009:14+4098765000003:14+20250312:1030+" + ref + "++ORDERS'" +
		"UNH+M0001+ORDERS:D:96A:UN:EAN008'" +
		"BGM+220+PO-\x1b]52;c;Y2FuYXJ5\x07-\x1b]2;pwned-title\x07+9'" +
		"DTM+137:20250312:102'" +
		"NAD+BY+4012345000009::9++ACME\x1b[2J GmbH+Main\rStreet 1+Town\u009b31m++50667+DE'" +
		"NAD+SU+4098765000003::9'" +
		"FTX+AAI+++evil \u202ereversed text'" +
		"LIN+1++4000862141404:EN'" +
		"QTY+21:48'" +
		"UNS+S'" +
		"CNT+2:1'" +
		"UNT+11+M0001'" +
		"UNZ+1+" + ref + "'")
}

// The escaped forms termsafe shows for each hostile value.
var escapedForms = []string{
	"^[]52;c;Y2FuYXJ5^G",
	"^[]2;pwned-title^G",
	"ACME^[[2J GmbH",
	"Main^MStreet 1",
	"Town<U+009B>31m",
	"evil <U+202E>reversed text",
}

// TestTerminalParseShowsEscapesInert runs `b2bx parse` in tmux on a file
// whose values carry terminal escapes, and checks the terminal's state: the
// escapes show as text, the pane title and the clipboard did not change and
// the screen was not cleared. Control steps first prove each check can see
// the effect when a program does emit the raw sequence.
func TestTerminalParseShowsEscapesInert(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := filepath.Join(w.dir, "files")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	file := filepath.Join(dir, "hostile.edi")
	require.NoError(t, os.WriteFile(file, hostileInterchange(), 0o600))
	// The file name is hostile too; the shell's glob passes it unchanged.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "evil-\x1b]2;fname\x07-\x1b[2J.edi"), hostileInterchange(), 0o600))

	p := newPane(t, w, 200, 100, nil)
	p.tmux("select-pane", "-t", p.target, "-T", "e2e-title")

	requireDetectors(t, p, file)

	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"summary", []string{"parse", file}, []string{"ICR^[]0;ref-title^GX"}},
		{"segments", []string{"parse", "--segments", file}, escapedForms},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.clear()
			code, _ := p.run("echo BEFORE-PARSE-MARK", 10*time.Second)
			require.Equal(t, 0, code)
			m := p.start(shellCmd(append([]string{bin}, tc.args...)...))
			code, h := p.wait(m, 30*time.Second)
			out := sinceMarker(h, m)
			require.Contains(t, []int{0, 1}, code, "parse exits 0, or 1 for a file with errors:\n%s", out)
			for _, want := range tc.want {
				require.Contains(t, out, want, "the escaped form is shown")
			}
			requireInertPane(t, p, out)
		})
	}

	t.Run("file name", func(t *testing.T) {
		p.clear()
		code, _ := p.run("echo BEFORE-PARSE-MARK", 10*time.Second)
		require.Equal(t, 0, code)
		m := p.start(shellQuote(bin) + " parse " + shellQuote(dir) + "/evil-*.edi")
		code, h := p.wait(m, 30*time.Second)
		out := sinceMarker(h, m)
		require.Contains(t, []int{0, 1}, code, out)
		require.Contains(t, out, "evil-^[]2;fname^G-^[[2J.edi", "the file name is shown escaped")
		requireInertPane(t, p, out)
	})

	t.Run("json", func(t *testing.T) {
		r := w.b2bx(t, nil, "", "parse", "--json", file)
		require.Contains(t, []int{0, 1}, r.code, "%s", r)
		for _, c := range r.stdout {
			require.False(t, c < 0x20 && c != '\n' || c == 0x7f || c >= 0x80 && c < 0xa0,
				"--json output holds a raw control character %U", c)
		}
		require.Contains(t, r.stdout, `"controlRef": "ICR\u001b]0;ref-title\u0007X"`, "JSON escapes the control characters")
	})
}

// requireInertPane checks that the command's output changed nothing but the
// text: title and clipboard untouched, the line before it still on screen,
// no raw control or invisible format character in what the pane shows.
func requireInertPane(t *testing.T, p *pane, out string) {
	t.Helper()
	require.Equal(t, "e2e-title", p.display("#{pane_title}"), "the pane title changed")
	require.Empty(t, p.buffers(), "something wrote the clipboard (OSC 52)")
	require.Contains(t, p.screen(), "BEFORE-PARSE-MARK", "the screen was cleared")
	for _, r := range out {
		if r == '\n' {
			continue
		}
		require.False(t, unicode.IsControl(r) || unicode.Is(unicode.Cf, r), "the pane shows a raw %U", r)
	}
}

// requireDetectors proves each check of requireInertPane can see the effect
// it looks for: a raw OSC 2 sets the title, a raw OSC 52 fills a paste
// buffer, a raw CSI 2J empties the visible screen, and the hostile file's
// raw bytes do all three. It leaves the title and clipboard as they were.
func requireDetectors(t *testing.T, p *pane, file string) {
	t.Helper()
	code, _ := p.run(`printf '\033]2;control-title\007'`, 10*time.Second)
	require.Equal(t, 0, code)
	require.Equal(t, "control-title", p.display("#{pane_title}"), "control: OSC 2 sets the pane title")
	p.tmux("select-pane", "-t", p.target, "-T", "e2e-title")
	code, _ = p.run(`printf '\033]52;c;Y29udHJvbA==\007'`, 10*time.Second)
	require.Equal(t, 0, code)
	require.NotEmpty(t, p.buffers(), "control: OSC 52 writes a paste buffer")
	require.Equal(t, "control", p.tmux("show-buffer"), "control: the clipboard holds the OSC 52 text")
	for _, b := range p.buffers() {
		p.tmux("delete-buffer", "-b", b)
	}
	p.clear()
	code, _ = p.run(`echo CONTROL-MARK; printf '\033[2J'`, 10*time.Second)
	require.Equal(t, 0, code)
	require.NotContains(t, p.screen(), "CONTROL-MARK", "control: CSI 2J clears the visible screen")

	// Control: the file's raw bytes on the terminal do all of that.
	p.clear()
	code, _ = p.run("echo BEFORE-CAT-MARK; cat "+shellQuote(file)+"; echo", 10*time.Second)
	require.Equal(t, 0, code)
	require.NotEqual(t, "e2e-title", p.display("#{pane_title}"), "control: the raw file sets the title")
	require.NotEmpty(t, p.buffers(), "control: the raw file writes the clipboard")
	require.NotContains(t, p.screen(), "BEFORE-CAT-MARK", "control: the raw file clears the screen")
	p.tmux("select-pane", "-t", p.target, "-T", "e2e-title")
	for _, b := range p.buffers() {
		p.tmux("delete-buffer", "-b", b)
	}
}
