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
)

// TestTerminalFetchProgress fetches the 15 MiB ORDRSP in tmux from a
// simulator throttled to 10 MiB/s (a slow partner link, ~1.5 s): with
// stderr on the terminal one progress line (bytes, percent) is redrawn in
// place, is seen part way and never goes backwards, and ends at 100 %,
// followed by the verified result; with stderr redirected there is no
// progress at all.
func TestTerminalFetchProgress(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := startSim(t, w, "--large", "2", "--throttle", "10MiB")
	de := s.conn(t, "acme-de")
	var large []string
	for _, e := range listAll(t, w, s, de) {
		if e.PayloadSize > 15<<20 {
			large = append(large, e.DeliveryAttemptID)
		}
	}
	require.Len(t, large, 2, "--large 2 lists two 15 MiB entries")

	p := newPane(t, w, 120, 40, apiKeyEnv(de))
	fetch := func(id string) string {
		return shellCmd(append(append([]string{bin, "fetch"}, s.connFlags(de)...), id, "--ack")...)
	}

	m := p.start(fetch(large[0]))
	partial := watchProgress(p, m, large[0])
	code, h := p.wait(m, 10*time.Second)
	out := sinceMarker(h, m)
	w.requireNoSecret(t, "the pane", h)
	t.Logf("progress states caught during the download: %d %q", len(partial), partial)
	require.Equal(t, 0, code, out)
	require.NotEmpty(t, partial, "the live indicator is seen part way through a 1.5 s download:\n%s", out)
	percent := regexp.MustCompile(`([0-9]+)%$`)
	last := 0
	for _, l := range partial {
		m := percent.FindStringSubmatch(l)
		require.NotNil(t, m, l)
		n, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		require.GreaterOrEqual(t, n, last, "progress never goes backwards: %q", partial)
		require.Less(t, n, 100, l)
		last = n
	}

	lines := strings.Split(out, "\n")
	final := regexp.MustCompile(`^` + regexp.QuoteMeta(large[0]) + `  15\.0 MiB / 15\.0 MiB +100%  [0-9.]+ MB/s  \S+$`)
	progressAt, checksAt := -1, -1
	for i, l := range lines {
		switch {
		case final.MatchString(l):
			require.Equal(t, -1, progressAt, "one progress line, redrawn in place:\n%s", out)
			progressAt = i
		case strings.HasPrefix(l, "checks "):
			checksAt = i
		}
	}
	require.NotEqual(t, -1, progressAt, "the progress line ends at 15.0 MiB / 15.0 MiB 100%%:\n%s", out)
	require.Greater(t, checksAt, progressAt, "the result follows the finished progress line:\n%s", out)
	for _, check := range []string{"sizeHeader ok", "sizeListing ok", "hashHeader ok", "hashListing ok", "trailer ok", "stored ok"} {
		require.Contains(t, lines[checksAt], check)
	}
	require.Regexp(t, `(?m)^acknowledged +receipt \S+`, out)
	requireNoEscapeDebris(t, out)

	// stderr into a file: no progress, neither on the terminal nor in the file.
	errFile := filepath.Join(w.dir, "fetch.stderr")
	m = p.start(fetch(large[1]) + " 2>" + shellQuote(errFile))
	code, h = p.wait(m, 60*time.Second)
	out = sinceMarker(h, m)
	require.Equal(t, 0, code, out)
	require.NotContains(t, out, "MiB / ", "no progress line without a terminal on stderr")
	require.Contains(t, out, "stored ok")
	b, err := os.ReadFile(errFile)
	require.NoError(t, err)
	require.Empty(t, string(b), "nothing on a redirected stderr")
	requireNoEscapeDebris(t, out)

	for _, id := range large {
		waitUntil(t, 5*time.Second, "the acknowledge of "+id, func() bool {
			return strings.Join(s.actions(id), ",") == "claim 200,payload 200,acknowledge 200"
		})
	}
}

// watchProgress watches the visible screen while the download started with
// marker runs and returns the progress states it caught before 100 %, in
// order.
func watchProgress(p *pane, marker, id string) []string {
	var partial []string
	progressLine := regexp.MustCompile(regexp.QuoteMeta(id) + `  [0-9.]+ [KMG]?i?B / 15\.0 MiB +[0-9]+%`)
	// rc= followed by digits: the typed command line itself ends in "rc=$?".
	done := regexp.MustCompile(regexp.QuoteMeta(marker) + ` rc=\d+`)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		sc := p.screen()
		if l := progressLine.FindString(sc); l != "" && !strings.HasSuffix(l, "100%") {
			partial = append(partial, l)
		}
		if done.MatchString(sc) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return partial
}

// requireNoEscapeDebris fails when text shows pieces of escape sequences a
// terminal should have consumed (a redraw gone wrong prints "[K" or "^[").
func requireNoEscapeDebris(t *testing.T, text string) {
	t.Helper()
	for _, debris := range []string{"\x1b", "\r", "[K", "^[", "[0m", "[2K"} {
		require.NotContains(t, text, debris, "escape debris on the terminal")
	}
}
