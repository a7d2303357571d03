//go:build e2e

package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTerminalUploadReplayOrNewPrompt uploads bytes that were already
// accepted from a terminal: b2bx asks "Replay, new, or abort? [r/n/N]" and
// does what the operator answers.
func TestTerminalUploadReplayOrNewPrompt(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := startSim(t, w, "--reply-delay", "1h")
	de := s.conn(t, "acme-de")
	file := filepath.Join(repoRoot, ordersFixture)
	first := w.b2bx(t, apiKeyEnv(de), "", append(append([]string{"upload"}, s.connFlags(de)...), file)...)
	require.Equal(t, 0, first.code, "%s", first)
	require.Contains(t, first.stdout, ordersKey+"1")

	p := newPane(t, w, 160, 50, apiKeyEnv(de))
	upload := shellCmd(append(append([]string{bin, "upload"}, s.connFlags(de)...), file)...)
	const ask = "Replay, new, or abort? [r/n/N]"
	answer := func(cmdline, reply string) (int, string) {
		t.Helper()
		p.clear()
		m := p.start(cmdline)
		p.waitFor("the replay/new prompt", 20*time.Second, func(h string) bool { return strings.Contains(h, ask) })
		p.send(reply)
		code, h := p.wait(m, 20*time.Second)
		w.requireNoSecret(t, "the pane", h)
		return code, sinceMarker(h, m)
	}

	// r: the same key again; the server answers replay (HTTP 200).
	code, out := answer(upload, "r")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "n  new upload: key "+ordersKey+"2", "the prompt names the key a new upload would get")
	require.Regexp(t, `(?m)^key +`+regexp.QuoteMeta(ordersKey+"1")+`$`, out, "the replay uses the accepted key")
	require.Regexp(t, `HTTP 200.*replay`, out, "the result says the server answered replay")

	// n, with --json: the next key number; a new upload (HTTP 202, replay false).
	code, out = answer(upload+" --json", "n")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, `"key": "`+ordersKey+`2"`)
	require.Regexp(t, `"httpStatus": 202`, out)
	require.Regexp(t, `"replay": false`, out)
	doc := regexp.MustCompile(`(?s)\{\n.*\n\}`).FindString(out)
	var u uploadResult
	require.NoError(t, json.Unmarshal([]byte(doc), &u), "the --json result on the terminal:\n%s", out)
	require.Equal(t, "new-upload", u.Decision)

	// Enter alone (the default N): aborted, nothing sent, exit 2.
	code, out = answer(upload, "")
	require.Equal(t, 2, code, out)
	require.Contains(t, out, "nothing was sent")

	waitUntil(t, 5*time.Second, "three uploads in the simulator's log", func() bool { return len(s.requests("/inbox")) >= 3 })
	require.Equal(t, []string{"inbox 202", "inbox 200", "inbox 202"}, s.actions("/inbox"),
		"first upload, the replay, the new upload; the aborted one sent nothing")
}
