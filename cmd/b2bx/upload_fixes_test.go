package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

// The fix-and-resend story on the command line: the shipped rejectable
// ORDERS is accepted by the inbox and rejected by the partner's CONTRL;
// once that CONTRL is fetched, the same bytes are refused (unless
// --force), and the fixed file goes with --fixes under the next key and
// the link is recorded.
func TestUploadFixesAndRefusesRejectedBytes(t *testing.T) {
	s := newSimEnv(t, partnersim.WithResponseDelay(0))
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", "orders_rejectable.edi"))
	require.NoError(t, err)
	bad := orderstest.WriteFile(t, "po.edi", data)

	code, out, errOut := s.run(t, "", "upload", bad, "--json")
	require.Equal(t, exitOK, code, errOut)
	first := decodeJSON[uploadJSON](t, out)
	require.Equal(t, 202, first.HTTPStatus)
	require.Empty(t, first.Fixes)

	// Not yet known to be rejected: the usual choice for accepted bytes.
	code, _, errOut = s.run(t, "", "upload", bad)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "--replay")

	code, _, errOut = s.run(t, "", "fetch", "--next", "--ack")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut = runCmd(t, "", s.env, "uploads", "--connection", cliConn, "--json")
	require.Equal(t, exitOK, code, errOut)
	rows := decodeJSON[[]uploadsJSON](t, out)
	require.Len(t, rows, 1)
	require.True(t, rows[0].Rejected, "uploads shows the rejection")
	require.Equal(t, "answered by CONTRL: rejected (1 error)", rows[0].Answers)

	code, _, errOut = s.run(t, "", "upload", bad)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "identical to an upload the partner rejected")
	require.Contains(t, errOut, first.UploadID)
	require.Contains(t, errOut, "CONTRL: rejected")
	require.Contains(t, errOut, "--force")
	require.Equal(t, 1, s.sim.RequestCount(partnersim.EndpointInbox, ""), "nothing sent")

	// --fixes naming it with the same bytes: refused as well.
	code, _, errOut = s.run(t, "", "upload", bad, "--fixes", first.UploadID)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "identical to an upload the partner rejected")

	code, _, errOut = s.run(t, "", "upload", bad, "--force", "--new")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "--force: sending bytes identical")
	require.Equal(t, 2, s.sim.RequestCount(partnersim.EndpointInbox, ""))

	code, _, errOut = s.run(t, "", "upload", bad, "--fixes", "no-such-upload")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "no-such-upload")

	fixed := orderstest.WriteFile(t, "po-fixed.edi", []byte(strings.Replace(string(data), "NAD+BY+4012345000085", "NAD+BY+4012345000009", 1)))
	// The mailbox dates the CONTRL in whole seconds, so the fix below is
	// often sent within the second it is dated in: the CONTRL was stored
	// here before the fix left, so it still answers the first upload only
	// (answers.Answer.Received); no wait for the next second.
	code, out, errOut = s.run(t, "", "upload", fixed, "--fixes", first.UploadID)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "fixes         resend of upload "+first.UploadID+" (key "+first.Key+")")
	require.Contains(t, out, "4012345000009:PO-4720:orders:3")
	require.Contains(t, out, "(HTTP 202)")
	require.Contains(t, errOut, "note: the fix keeps the interchange control reference ICR0042")

	h := s.history(t)
	last := h[len(h)-1]
	require.Equal(t, first.UploadID, last.Fixes, "the history records the link")
	require.Equal(t, first.UploadID, h[len(h)-2].Fixes, "already in the pending record")
	fix := decodeJSON[uploadJSON](t, func() string {
		code, out, errOut := s.run(t, "", "upload", fixed, "--replay", "--json")
		// issue 23: the rejecting CONTRL answers the first upload only
		// (created before the fix was sent), so the accepted fix's bytes
		// may be replayed; the old rule linked it to the fix and refused
		require.Equal(t, exitOK, code, errOut)
		return out
	}())

	// The history shows both directions, and exports as CSV.
	code, out, errOut = runCmd(t, "", s.env, "uploads", "--connection", cliConn)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "resend of upload "+first.UploadID)
	require.Contains(t, out, "fixed by upload "+fix.UploadID)
	code, out, errOut = runCmd(t, "", s.env, "uploads", "--connection", cliConn, "--json")
	require.Equal(t, exitOK, code, errOut)
	rows = decodeJSON[[]uploadsJSON](t, out)
	require.Equal(t, first.UploadID, rows[len(rows)-1].UploadID, "newest first")
	require.True(t, rows[0].Replay, "the newest attempt: the replay of the fix")
	require.Equal(t, fix.UploadID, rows[0].UploadID)
	require.Equal(t, first.UploadID, rows[1].Fixes, "the fix records the upload it fixes")

	csvPath := filepath.Join(t.TempDir(), "uploads.csv")
	code, _, errOut = runCmd(t, "", s.env, "uploads", "--connection", cliConn, "-o", csvPath)
	require.Equal(t, exitOK, code, errOut)
	f, err := os.Open(csvPath)
	require.NoError(t, err)
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	require.NoError(t, err)
	require.Len(t, recs, 1+len(rows))
	require.Equal(t, "fixes", recs[0][13])
	require.Equal(t, first.UploadID, recs[2][13], "the fix's row (after its replay's)")
	code, _, errOut = runCmd(t, "", s.env, "uploads", "--connection", cliConn, "-o", csvPath)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "the file exists")
	code, _, errOut = runCmd(t, "", s.env, "uploads", "--connection", cliConn, "-o", csvPath, "--force")
	require.Equal(t, exitOK, code, errOut)
}
