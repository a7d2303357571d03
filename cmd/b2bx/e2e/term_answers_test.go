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

// TestAppDemoUploadAnswersLinked is issue 9's walk through b2bx demo in
// tmux: :upload PATH shows the generated key before sending, y sends it
// (202), the partner's CONTRL and ORDRSP arrive in the mailbox; each is
// downloaded, verified and shown linked to the upload ("answers upload
// of PO-4711 (key …)"); H lists the upload with both answers under it;
// the viewer opens the ORDRSP; D shows the line the partner changed.
func TestAppDemoUploadAnswersLinked(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	link := demoBinary(t, w)
	p := newPane(t, w, 140, 40, nil)
	a := &appScreens{p: p}
	const key = "4012345000009:PO-4711:orders:1"
	po := filepath.Join(repoRoot, ordersFixture)

	m := p.start(shellCmd(link, "demo", "--reply-delay", "0s"))
	a.waitScreen("the acme-de tab", 30*time.Second, contains("[1 acme-de]", "head of the mailbox"))

	s := a.uploadByCommand(po, []string{key}, []string{key})
	require.Contains(t, s, "✓ order (BGM) PO-4711")

	// The answers come after the demo's deliveries: load every page, take
	// the newest entry (the last row), twice.
	seen := map[string]bool{}
	for range 2 {
		var typ string
		typ, s = a.claimNewest("CONTRL|ORDRSP", "answers upload of PO-4711 (key "+key+")")
		require.False(t, seen[typ], "the same answer twice: %s", s)
		seen[typ] = true
		switch typ {
		case "CONTRL":
			require.Contains(t, s, "CONTRL: accepted — answers upload of PO-4711")
		case "ORDRSP":
			require.Regexp(t, `ORDRSP: 1 of \d+ lines? changed — answers upload of PO-4711`, s)
			require.Contains(t, s, "D what the partner changed against the ORDERS sent")
			p.key("v")
			s = a.waitScreen("the viewer on the ORDRSP", 20*time.Second, contains("ORDRSP to order PO-4711", "File check"))
			require.Contains(t, s, "RFF Reference")
			p.key("G")
			a.waitScreen("the last segment", 10*time.Second, func(s string) bool { return regexp.MustCompile(`(?m)^>\s+\d+ UNZ`).MatchString(s) })
			p.key("q")
			a.waitScreen("the claim panel again", 10*time.Second, contains("verified and stored durably"))
		}
		p.key("a")
		a.waitScreen("acknowledged", 20*time.Second, contains("✓ acknowledged", "receipt"))
		p.key("A") // back to the page view, so the next A reads the backlog afresh
		a.waitScreen("the page view", 20*time.Second, contains("acme-de  page 1"))
	}
	require.Len(t, seen, 2)

	p.key("H")
	s = a.waitScreen("the uploads and answers", 20*time.Second, contains("Uploads and answers", "↳ CONTRL: accepted"))
	require.Regexp(t, `PO-4711\s+key `+regexp.QuoteMeta(key)+`\s+answered by`, s)
	require.Regexp(t, `↳ ORDRSP: 1 of \d+ lines? changed`, s)
	p.key("D")
	s = a.waitScreen("the diff", 20*time.Second, contains("Diff", "for order PO-4711", "changed"))
	require.Regexp(t, `line \d+ .*changed .*→`, s, "the changed line, before and after")
	p.key("q")
	a.waitScreen("the diff closed", 10*time.Second, func(s string) bool { return !strings.Contains(s, "Diff ") })
	p.key("q")
	a.waitScreen("the mailbox", 10*time.Second, func(s string) bool { return !strings.Contains(s, "Uploads and answers") })
	p.key("q")
	code, h := p.wait(m, 30*time.Second)
	require.Equal(t, 0, code, "%s", h)
	a.requireCleanDemoEnd(h, link, w)
}
