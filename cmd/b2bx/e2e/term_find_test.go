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

// TestAppDemoFindTimeline is issue 14's story in b2bx demo, in tmux:
// :upload the demo's PO-4711, fetch its CONTRL and ORDRSP (A, G, c, y,
// d, a), then :find PO-4711 shows the conversation answered, enter opens
// its timeline with the upload, its CONTRL and its ORDRSP in that order,
// and enter on the upload step opens the viewer on the ORDERS sent.
// Then PO-4712, which the demo partner rejects: F, its number, and the
// results say NEEDS ACTION. The start screen (0, r) counts it as needing action.
func TestAppDemoFindTimeline(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	link := demoBinary(t, w)
	p := newPane(t, w, 140, 40, nil)
	a := &appScreens{p: p}

	m := p.start(shellCmd(link, "demo", "--reply-delay", "0s"))
	a.waitScreen("the acme-de tab", 30*time.Second, contains("[1 acme-de]", "head of the mailbox"))
	orders, err := filepath.Glob(filepath.Join(w.tmpDir, "b2bx-demo-*", "orders"))
	require.NoError(t, err)
	require.Len(t, orders, 1, "the demo's orders folder")

	upload := func(po string) {
		t.Helper()
		a.uploadByCommand(filepath.Join(orders[0], po+".edi"), []string{po}, nil)
	}
	// fetch takes the newest entry (the last row of the backlog): claim,
	// download and verify, acknowledge.
	fetch := func(want string) string {
		t.Helper()
		typ, _ := a.claimNewest(want)
		p.key("a")
		a.waitScreen("acknowledged", 20*time.Second, contains("✓ acknowledged", "receipt"))
		p.key("A")
		a.waitScreen("the page view", 20*time.Second, contains("acme-de  page 1"))
		return typ
	}

	upload("PO-4711")
	got := map[string]bool{}
	for range 2 {
		typ := fetch("CONTRL|ORDRSP")
		require.False(t, got[typ], "the same answer twice")
		got[typ] = true
	}

	p.key(":")
	a.waitScreen("the command line", 10*time.Second, func(s string) bool { return regexp.MustCompile(`(?m)^:`).MatchString(s) })
	p.send("find PO-4711")
	s := a.waitScreen("the find results", 30*time.Second, contains("find PO-4711", "1 conversation, newest first", "order PO-4711"))
	require.Regexp(t, `>\s+[\d-]+ [\d:]+Z\s+order PO-4711\s+acme-de\s+ANSWERED\s+CONTRL: accepted; ORDRSP: `, s)
	p.key("Enter")
	s = a.waitScreen("the timeline", 30*time.Second, contains("order PO-4711 — ANSWERED", "steps in time order", "ORDRSP: "))
	up := strings.Index(s, "ORDERS uploaded: accepted (HTTP 202)")
	ctl := strings.Index(s, "answer       CONTRL: accepted")
	rsp := strings.Index(s, "answer       ORDRSP: ")
	require.True(t, up >= 0 && ctl > up && rsp > ctl, "the upload, its CONTRL, its ORDRSP in order:\n%s", s)
	p.key("Enter") // the upload step: the viewer on the ORDERS sent
	a.waitScreen("the viewer on the ORDERS sent", 20*time.Second, contains("ORDERS", "PO-4711", "File check"))
	p.key("q")
	a.waitScreen("the timeline again", 10*time.Second, contains("steps in time order"))
	p.key("q")
	a.waitScreen("the results again", 10*time.Second, contains("1 conversation, newest first"))
	p.key("q")
	a.waitScreen("the mailbox", 10*time.Second, contains("acme-de  page 1"))

	// the rejected order: needs action in the results
	upload("PO-4712")
	fetch("CONTRL")
	p.key("F")
	a.waitScreen("the query input", 10*time.Second, func(s string) bool { return regexp.MustCompile(`(?m)^:find `).MatchString(s) })
	p.send("PO-4712")
	s = a.waitScreen("PO-4712 needs action", 30*time.Second, contains("find PO-4712", "order PO-4712", "NEEDS ACTION"))
	require.Contains(t, s, "CONTRL: rejected")
	p.key("q")
	a.waitScreen("the mailbox", 10*time.Second, contains("acme-de  page 1"))

	// the start screen's figures for the connection (read every minute;
	// r reads them again now)
	p.key("0")
	a.waitScreen("the start screen", 10*time.Second, contains("Connections in"))
	p.key("r")
	s = a.waitScreen("the start screen's figures", 30*time.Second, contains("acme-de", "due", "needs action 1 (this machine's files)"))
	require.Regexp(t, `refused here 0 · awaiting answer \d+ · overdue \d+ · needs action 1`, s)

	p.key("q")
	code, h := p.wait(m, 30*time.Second)
	require.Equal(t, 0, code, "%s", h)
	a.requireCleanDemoEnd(h, link, w)
}
