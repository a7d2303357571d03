package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/teamstore"
	"github.com/nutrab2b/b2bx/internal/who"
)

// Bob uploaded PO-4711, Alice fetched the CONTRL that rejected it: Bob's
// bundle of his upload finds its connection in the team's index (no -c)
// and its timeline.txt tells Alice's CONTRL, by her. With the team store
// down, the bundle says so once on stderr and this machine's index
// answers (without Alice's CONTRL).
func TestBundleReadsTheTeamsIndex(t *testing.T) {
	ctx := t.Context()
	aliceEnv, bobEnv, dsn := twoTeamEnvs(t)

	// Bob's upload, accepted, pushed as his outbox pushes it
	bobStore, err := spool.Open(bobEnv[spool.EnvDataDir])
	require.NoError(t, err)
	sent := tOrders("ICR0001", "PO-4711", 10)
	_, err = bobStore.KeepSent("conn-a", sent)
	require.NoError(t, err)
	rec := spool.UploadRecord{Time: t0s, ConnectionID: "conn-a", File: "po.edi", Size: int64(len(sent)), SHA256: shaOf(sent), Key: tBuyer + ":PO-4711:orders:1",
		SenderID: tBuyer, BusinessID: "PO-4711", RecipientID: tSupplier, ControlRef: "ICR0001", DocNumbers: []string{"PO-4711"}, N: 1, Outcome: spool.OutcomePending}
	require.NoError(t, bobStore.AppendUpload(rec))
	rec.Time, rec.Outcome, rec.HTTPStatus, rec.UploadID, rec.InterchangeID = t0s.Add(time.Second), spool.OutcomeAccepted, 202, "up-1", "ic-up-1"
	require.NoError(t, bobStore.AppendUpload(rec))
	bobTeam, err := teamstore.Open(ctx, teamstore.Config{URL: dsn, By: who.Who{User: "bob", Host: "host-7"}})
	require.NoError(t, err)
	defer bobTeam.Close()
	hist, err := bobStore.Uploads("conn-a")
	require.NoError(t, err)
	for _, r := range hist {
		require.NoError(t, bobTeam.PushUpload(ctx, "conn-a", r, sent, bobTeam.By()))
	}

	// Alice's CONTRL rejecting it, stored on her machine and pushed
	pushAlicesContrl(t, aliceEnv, dsn)

	// Bob's bundle: no -c, the team's index knows the connection
	code, out, errOut := runCmd(t, "", bobEnv, "bundle", "up-1", "-o", t.TempDir(), "--json")
	require.Equal(t, exitOK, code, errOut)
	require.NotContains(t, errOut, "team store not used")
	files := bundleFiles(t, decodeJSON[bundleJSON](t, out))
	noSecretIn(t, files)
	tl := files["dir/timeline.txt"]
	require.Contains(t, tl, "CONTRL: rejected", "Alice's answer:\n%s", tl)
	require.Contains(t, tl, "— by alice on host-3", "who fetched it:\n%s", tl)
	require.Contains(t, tl, "— by bob on host-7", "who uploaded:\n%s", tl)
	require.NotContains(t, tl, dsn)

	// Bob's uploads: his upload, answered by the CONTRL Alice fetched
	code, out, errOut = runCmd(t, "", bobEnv, "uploads", "--connection", "conn-a", "--json")
	require.Equal(t, exitOK, code, errOut)
	rows := decodeJSON[[]uploadsJSON](t, out)
	require.Len(t, rows, 1, "one attempt (pending, then accepted)")
	require.True(t, rows[0].Rejected, "Alice's CONTRL rejects it: %+v", rows[0])
	require.Contains(t, rows[0].Answers, "CONTRL")

	// the team store down: one stderr line, then this machine's index
	bad := storeEnv(t, "postgres://bob@127.0.0.1:1/none?sslmode=disable")
	bad[spool.EnvDataDir] = bobEnv[spool.EnvDataDir]
	code, out, errOut = runCmd(t, "", bad, "bundle", "up-1", "--connection", "conn-a", "-o", t.TempDir(), "--json")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, 1, strings.Count(errOut, "team store not used"), errOut)
	require.Contains(t, errOut, "this machine's index answers")
	tl = bundleFiles(t, decodeJSON[bundleJSON](t, out))["dir/timeline.txt"]
	require.Contains(t, tl, "ORDERS uploaded")
	require.NotContains(t, tl, "alice", "this machine never saw Alice's CONTRL")
	code, out, errOut = runCmd(t, "", bad, "uploads", "--connection", "conn-a", "--json")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, 1, strings.Count(errOut, "team store not used"), errOut)
	require.False(t, decodeJSON[[]uploadsJSON](t, out)[0].Rejected, "no CONTRL on this machine")
}
