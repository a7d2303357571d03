package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
	"github.com/nutrab2b/b2bx/internal/track"
)

const cliConn2 = "conn-cli-2"

// runOn runs b2bx against one of the simulator's connections.
func (s *simEnv) runOn(t *testing.T, conn string, args ...string) (int, string, string) {
	t.Helper()
	return runCmd(t, "", s.env, append(args, "--url", s.srv.URL, "--connection", conn)...)
}

// fetchAll fetches and acknowledges every due delivery of conn.
func (s *simEnv) fetchAll(t *testing.T, conn string) int {
	t.Helper()
	n := 0
	for {
		code, out, errOut := s.runOn(t, conn, "fetch", "--next", "--ack", "--json")
		require.Equal(t, exitOK, code, errOut)
		if strings.Contains(out, `"empty": true`) {
			return n
		}
		n++
		require.Less(t, n, 50)
	}
}

// TestFindAcrossConnectionsCLI: uploads on two connections of the
// simulator, the partner's answers fetched; find, --timeline and
// --overdue tell the story, and --json says the same.
func TestFindAcrossConnectionsCLI(t *testing.T) {
	s := newSimEnv(t, partnersim.WithResponder(partnersim.DemoStories()), partnersim.WithResponseDelay(0))
	require.NoError(t, s.sim.AddConnection(partnersim.Connection{ID: cliConn2, Tenant: cliTenant, Name: "cli-2"}))

	po1 := orderstest.WriteFile(t, "po1.edi", orderstest.Orders("REF1", 12, "PO-4711"))
	code, _, errOut := s.runOn(t, cliConn, "upload", po1)
	require.Equal(t, exitOK, code, errOut)
	// the partner's CONTRL rejects PO-4712 and never answers PO-4713
	code, _, errOut = s.runOn(t, cliConn2, "upload", orderstest.WriteFile(t, "po2.edi", orderstest.Orders("REF2", 5, "PO-4712")))
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = s.runOn(t, cliConn2, "upload", orderstest.WriteFile(t, "po3.edi", orderstest.Orders("REF3", 5, "PO-4713")))
	require.Equal(t, exitOK, code, errOut)
	// ... and PO-4713 was sent an hour ago (the history is the clock of an upload)
	hist := filepath.Join(s.dataDir, cliConn2, "uploads.jsonl")
	raw, err := os.ReadFile(hist)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for i := 2; i < 4; i++ {
		var r spool.UploadRecord
		require.NoError(t, json.Unmarshal([]byte(lines[i]), &r))
		r.Time = r.Time.Add(-time.Hour)
		if !r.ServerTime.IsZero() { // on both clocks
			r.ServerTime = r.ServerTime.Add(-time.Hour)
		}
		b, _ := json.Marshal(r)
		lines[i] = string(b)
	}
	require.NoError(t, os.WriteFile(hist, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	require.Equal(t, 2, s.fetchAll(t, cliConn), "a CONTRL and an ORDRSP")
	require.Equal(t, 1, s.fetchAll(t, cliConn2), "the rejecting CONTRL only")

	// find by order number: one conversation, upload, CONTRL and ORDRSP in order
	code, out, errOut := runCmd(t, "", s.env, "find", "PO-4711")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "the tracking index was rebuilt from the stored files (there was no index yet)", "said once")
	require.Contains(t, out, "order PO-4711 — conn-cli")
	up, ctl, rsp := strings.Index(out, "upload    ORDERS"), strings.Index(out, "delivery  CONTRL"), strings.Index(out, "delivery  ORDRSP")
	require.True(t, up > 0 && ctl > up && rsp > ctl, "upload, CONTRL, ORDRSP in time order:\n%s", out)
	code, _, errOut = runCmd(t, "", s.env, "find", "PO-4711")
	require.Equal(t, exitOK, code)
	require.NotContains(t, errOut, "rebuilt", "said once: the index exists now")

	// a GLN both connections' uploads carry: both conversations, newest first
	code, out, _ = runCmd(t, "", s.env, "find", "gln:4012345000009", "--json")
	require.Equal(t, exitOK, code)
	j := decodeJSON[findJSON](t, out)
	require.Len(t, j.Conversations, 3)
	require.Equal(t, "order PO-4712", j.Conversations[0].Label)
	require.Equal(t, []string{cliConn2}, j.Conversations[0].Conns)
	require.Equal(t, "needs action", j.Conversations[0].Flag)
	require.Equal(t, "order PO-4711", j.Conversations[1].Label)
	require.Equal(t, "answered", j.Conversations[1].Flag)
	require.Equal(t, "order PO-4713", j.Conversations[2].Label, "sent an hour ago: the oldest")
	require.Equal(t, "overdue", j.Conversations[2].Flag)

	// the timeline: every step with its source
	code, out, errOut = runCmd(t, "", s.env, "find", "--timeline", "po:PO-4711")
	require.Equal(t, exitOK, code, errOut)
	for _, want := range []string{"ORDERS uploaded: accepted (HTTP 202)", "key 4012345000009:PO-4711:orders:1", "HTTP 202",
		"CONTRL: accepted (created in the mailbox)", "claimed, verified (size, SHA-256, trailer) and stored", "acknowledged, receipt ",
		"ORDRSP: ", "source: upload history ", "source: delivery "} {
		require.Contains(t, out, want)
	}
	require.Less(t, strings.Index(out, "ORDERS uploaded"), strings.Index(out, "CONTRL: accepted (created"))
	require.Less(t, strings.Index(out, "CONTRL: accepted (created"), strings.Index(out, "answer       ORDRSP: "))
	code, out, _ = runCmd(t, "", s.env, "find", "--timeline", "po:PO-4712")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "CONTRL: rejected")
	require.Contains(t, out, "interchange REF2: 4 rejected", "the reasons in words")
	require.Contains(t, out, "element 2: 12 ")

	// overdue and needs action: --overdue exits 1
	code, out, _ = runCmd(t, "", s.env, "find", "--overdue")
	require.Equal(t, exitFileError, code, out)
	require.Contains(t, out, "no CONTRL 1h after the upload (sla.contrl 15m)")
	require.Contains(t, out, "1 overdue, 1 need action")
	code, out, _ = runCmd(t, "", s.env, "find", "--overdue", "--json")
	require.Equal(t, exitFileError, code)
	oj := decodeJSON[overdueJSON](t, out)
	require.Len(t, oj.NeedsAction, 1)
	require.Equal(t, []string{"PO-4712"}, oj.NeedsAction[0].Orders)
	require.Len(t, oj.Overdue, 1)
	require.Equal(t, []string{"PO-4713"}, oj.Overdue[0].Orders)
	code, _, _ = runCmd(t, "", s.env, "find", "--overdue", "--since", "30m")
	require.Equal(t, exitFileError, code, "PO-4712 is recent and needs action")
	code, out, _ = s.runOn(t, cliConn, "mailbox", "ls")
	require.Equal(t, exitOK, code, out)

	// index --rebuild builds the same from the files
	code, out, errOut = runCmd(t, "", s.env, "index", "--rebuild")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "indexed    5 files", out)
	require.Contains(t, errOut, "asked for with --rebuild")

	// bad queries are usage errors that say what to do
	code, _, errOut = runCmd(t, "", s.env, "find", "po:")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "has no value")
	code, _, errOut = runCmd(t, "", s.env, "find", strings.Repeat("x", 10<<10))
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "paste just the order number")
	code, out, _ = runCmd(t, "", s.env, "find", "'; DROP TABLE track_items; --")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "nothing stored matches")
	code, out, _ = runCmd(t, "", s.env, "find", "PO-4711")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "order PO-4711")
}

func TestFindCorruptIndexRebuiltCLI(t *testing.T) {
	s := newSimEnv(t, partnersim.WithResponder(partnersim.DefaultResponder{}), partnersim.WithResponseDelay(0))
	code, _, errOut := s.runOn(t, cliConn, "upload", orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 12, "PO-4711")))
	require.Equal(t, exitOK, code, errOut)
	code, _, _ = runCmd(t, "", s.env, "index")
	require.Equal(t, exitOK, code)
	db := track.DBPath(s.dataDir)
	require.NoError(t, os.WriteFile(db, []byte(strings.Repeat("garbage", 1000)), 0o600))
	_ = os.Remove(db + "-wal")
	_ = os.Remove(db + "-shm")
	code, out, errOut := runCmd(t, "", s.env, "find", "PO-4711")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "the index database was unusable")
	require.Contains(t, out, "order PO-4711")
	aside, _ := filepath.Glob(db + ".broken-*")
	require.NotEmpty(t, aside)
}

func TestDemoOrdersWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orders")
	require.NoError(t, writeDemoOrders(dir))
	for _, n := range []string{"PO-4711.edi", partnersim.DemoRejected + ".edi", partnersim.DemoSilent + ".edi"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err)
		require.Contains(t, string(b), "BGM+220+"+strings.TrimSuffix(n, ".edi"))
	}
}

// A delivery refused by an integrity check is not stored, but fetch notes
// it in the seen journal: find names it with the failed check.
func TestFindRefusedDeliveryCLI(t *testing.T) {
	s := newSimEnv(t)
	id := s.add(t, "ORDRSP", ediPayload(2<<10), partnersim.PayloadFault{WrongHashHeader: true})
	code, _, errOut := s.run(t, "", "fetch", id, "--ack")
	require.Equal(t, exitIntegrity, code, errOut)
	require.Empty(t, s.deliveryFiles(t), "nothing stored")
	code, out, errOut := runCmd(t, "", s.env, "find", "id:"+id)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "refused: hashHeader")
	code, out, _ = runCmd(t, "", s.env, "find", "--timeline", "id:"+id)
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "(not stored, not acknowledged: due again when the lease ends)")
}
