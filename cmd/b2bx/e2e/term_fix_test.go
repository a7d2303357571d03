//go:build e2e

package e2e

import (
	"encoding/base64"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAppDemoFixResendCopyExport is issue 15's walk through b2bx demo in
// tmux, its raw output recorded with script(1): the shipped rejectable
// ORDERS is uploaded (202) and the partner's CONTRL rejects it; in H, v
// shows the error pinned on the NAD; E runs EDITOR=testdata/fix-rejectable.sh
// on a work copy, the review shows the new key, y resends it (202, a new
// key, "resend of"); y copies the new upload's ID with OSC 52 (in the raw
// output); :export writes the uploads as a CSV that a CSV parser reads.
func TestAppDemoFixResendCopyExport(t *testing.T) {
	t.Parallel()
	requireTool(t, "B2BX_E2E_REQUIRE", "script")
	w := newWorld(t)
	link := demoBinary(t, w)
	editor := filepath.Join(repoRoot, "testdata", "fix-rejectable.sh")
	p := newPane(t, w, 160, 45, []string{"EDITOR=" + editor, "VISUAL="})
	a := &appScreens{p: p}
	bad := filepath.Join(repoRoot, "testdata", "edifact", "orders_rejectable.edi")
	raw := filepath.Join(w.dir, "raw.out")
	csvPath := filepath.Join(w.dir, "uploads.csv")

	m := p.start(shellCmd("script", "-q", "-f", "-c", shellCmd(link, "demo", "--reply-delay", "0s"), raw))
	a.waitScreen("the acme-de tab", 30*time.Second, contains("[1 acme-de]", "head of the mailbox"))

	a.uploadRejectedInH(bad)

	// H: v shows the error pinned.
	p.key("v")
	s := a.waitScreen("the pinned ORDERS", 20*time.Second, contains("1 error of the partner's answer pinned", "CONTRL element 2.1 [12]"))
	require.Contains(t, s, "4012345000085")
	require.Regexp(t, `(?m)^>\s+◆\s+\d+ NAD`, s, "the NAD row is marked and selected")
	p.key("q")
	a.waitScreen("the uploads again", 10*time.Second, contains("Uploads and answers"))

	// E: the editor script fixes the GLN; the review, then y sends.
	p.key("E")
	s = a.waitScreen("the review", 30*time.Second, contains("Against the rejected bytes", "y send the fix"))
	require.Contains(t, s, "4012345000009")
	require.Regexp(t, `Idempotency-Key \S+:PO-4720:orders:2`, s)
	p.key("y")
	s = a.waitScreen("the fix accepted", 30*time.Second, contains("202 accepted", "resend of"))
	require.Regexp(t, `key\s+\S+:PO-4720:orders:2`, s)
	id := regexp.MustCompile(`upload id\s+(\S+)`).FindStringSubmatch(s)
	require.NotNil(t, id, "%s", s)

	// y: a menu of the new upload's values; 1 copies its upload ID.
	p.key("y")
	a.waitScreen("the copy menu", 10*time.Second, contains("Copy which value?"))
	p.key("1")
	a.waitScreen("the footer's note", 10*time.Second, contains("copied upload ID"))
	want := base64.StdEncoding.EncodeToString([]byte(id[1]))
	waitUntil(t, 10*time.Second, "the OSC 52 sequence in the raw output", func() bool {
		b, _ := os.ReadFile(raw)
		return strings.Contains(string(b), "]52;c;"+want)
	})

	// :export on the uploads screen: a CSV a CSV parser reads back.
	p.key("Escape")
	a.waitScreen("the uploads again", 10*time.Second, contains("Uploads and answers"))
	p.key(":")
	a.waitScreen("the command line", 10*time.Second, func(s string) bool { return regexp.MustCompile(`(?m)^:`).MatchString(s) })
	p.send("export " + csvPath)
	a.waitScreen("exported", 10*time.Second, contains("exported uploads"))
	f, err := os.Open(csvPath)
	require.NoError(t, err)
	recs, err := csv.NewReader(f).ReadAll()
	_ = f.Close()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(recs), 3, "a header and both uploads: %v", recs)

	p.key("q")
	a.waitScreen("the mailbox", 10*time.Second, func(s string) bool { return !strings.Contains(s, "Uploads and answers") })
	p.key("q")
	code, h := p.wait(m, 30*time.Second)
	require.Equal(t, 0, code, "%s", h)
	for i, screen := range append(a.seen, h) {
		require.NotRegexp(t, simSecret, screen, "screen %d shows a simulator secret", i)
	}
	b, err := os.ReadFile(raw)
	require.NoError(t, err)
	require.NotRegexp(t, simSecret, string(b), "the raw output holds a simulator secret")
	require.Empty(t, processesOf(t, link), "the demo left a process running")
}

// TestAppDemoFixKeepsEachAnswerOnItsUpload is issue 23's walk in b2bx
// demo: the rejectable ORDERS is uploaded and rejected; E fixes it
// keeping its interchange control reference (the review warns), y sends
// it; the new CONTRL is fetched. H shows the old CONTRL on the first
// upload, now history ("sent again as upload …"), and the new CONTRL on
// the resend; :find shows the conversation's steps in time order, the
// rejection before the resend, and nothing needs action any more.
func TestAppDemoFixKeepsEachAnswerOnItsUpload(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	link := demoBinary(t, w)
	editor := filepath.Join(repoRoot, "testdata", "fix-rejectable.sh")
	p := newPane(t, w, 170, 50, []string{"EDITOR=" + editor, "VISUAL="})
	a := &appScreens{p: p}
	bad := filepath.Join(repoRoot, "testdata", "edifact", "orders_rejectable.edi")

	m := p.start(shellCmd(link, "demo", "--reply-delay", "0s"))
	a.waitScreen("the acme-de tab", 30*time.Second, contains("[1 acme-de]", "head of the mailbox"))
	a.uploadRejectedInH(bad)
	p.key("E")
	s := a.waitScreen("the review", 30*time.Second, contains("Against the rejected bytes", "y send the fix"))
	require.Regexp(t, `Idempotency-Key \S+:PO-4720:orders:2`, s)
	p.key("y")
	a.waitScreen("the fix accepted", 30*time.Second, contains("202 accepted", "resend of"))
	p.key("Escape")
	a.waitScreen("the uploads again", 10*time.Second, contains("Uploads and answers"))
	p.key("q")
	a.waitScreen("the mailbox", 10*time.Second, func(s string) bool { return !strings.Contains(s, "Uploads and answers") })

	// the resend's own answers (its CONTRL accepted, its ORDRSP), each
	// linked to the resend; A leaves the backlog read before, and
	// claimNewest reads it anew
	for range 2 {
		p.key("A")
		a.waitScreen("the page again", 20*time.Second, contains("acme-de  page 1"))
		a.claimNewest("CONTRL|ORDRSP", "answers upload of PO-4720", ":PO-4720:orders:2")
		p.key("a")
		a.waitScreen("acknowledged", 20*time.Second, contains("✓ acknowledged"))
	}

	p.key("H")
	s = a.waitScreen("both uploads with their own answers", 20*time.Second, contains("Uploads (2 accepted)", "sent again as upload"))
	resend := regexp.MustCompile(`(?m)^.*:PO-4720:orders:2.*$`).FindString(s)
	first := regexp.MustCompile(`(?m)^.*:PO-4720:orders:1.*$`).FindString(s)
	require.Contains(t, resend, "CONTRL: accepted", "%s", s)
	require.Contains(t, resend, "ORDRSP: ", "%s", s)
	require.NotContains(t, resend, "rejected", "%s", s)
	require.Contains(t, first, "answered by CONTRL: rejected", "%s", s)
	require.Contains(t, first, "sent again as upload", "%s", s)
	require.NotContains(t, first, "E fix and resend", "a fixed rejection is history: %s", s)
	require.NotContains(t, s, "NEEDS ACTION")
	require.NotContains(t, s, "OVERDUE")
	p.key("q")
	a.waitScreen("the mailbox", 10*time.Second, func(s string) bool { return !strings.Contains(s, "Uploads and answers") })

	p.key(":")
	a.waitScreen("the command line", 10*time.Second, func(s string) bool { return regexp.MustCompile(`(?m)^:`).MatchString(s) })
	p.send("find PO-4720")
	s = a.waitScreen("the find results", 30*time.Second, contains("find PO-4720", "1 conversation, newest first", "order PO-4720"))
	require.NotContains(t, s, "NEEDS ACTION", "the conversation follows its latest attempt")
	p.key("Enter")
	s = a.waitScreen("the timeline", 30*time.Second, contains("order PO-4720", "steps in time order", "CONTRL: accepted"))
	up1 := strings.Index(s, "ORDERS uploaded: accepted (HTTP 202)")
	rej := strings.Index(s, "answer       CONTRL: rejected")
	up2 := strings.LastIndex(s, "ORDERS uploaded: accepted (HTTP 202)")
	acc := strings.Index(s, "answer       CONTRL: accepted")
	require.True(t, up1 >= 0 && rej > up1 && up2 > rej && acc > up2, "upload, its rejection, the resend, its CONTRL in order:\n%s", s)
	p.key("q")
	a.waitScreen("the results again", 10*time.Second, contains("1 conversation, newest first"))
	p.key("q")
	a.waitScreen("the mailbox", 10*time.Second, contains("acme-de  backlog:"))

	p.key("q")
	code, h := p.wait(m, 30*time.Second)
	require.Equal(t, 0, code, "%s", h)
	a.requireCleanDemoEnd(h, link, w)
}

// uploadRejectedInH uploads the rejectable ORDERS by command, claims,
// downloads and acknowledges its CONTRL (the newest entry) and opens H
// on the rejected upload.
func (a *appScreens) uploadRejectedInH(bad string) {
	a.p.t.Helper()
	a.uploadByCommand(bad, []string{":PO-4720:orders:1"}, nil)
	a.claimNewest("CONTRL", "answers upload of PO-4720")
	a.p.key("a")
	a.waitScreen("acknowledged", 20*time.Second, contains("✓ acknowledged"))
	a.p.key("H")
	a.waitScreen("the rejected upload", 20*time.Second, contains("Uploads and answers", "rejected · v pinned errors · E fix and resend"))
}
