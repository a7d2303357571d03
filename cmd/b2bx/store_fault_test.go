package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/teamstore"
	"github.com/nutrab2b/b2bx/internal/testshared/pgtest"
	"github.com/nutrab2b/b2bx/internal/who"
)

// hostileTeam is what a colleague's machine (or a hostile partner) may
// put in a team store column: terminal escapes (clear screen, OSC 52
// clipboard, a C1 CSI), bidi overrides, carriage return, backspace, bell.
const hostileTeam = "\x1b[2J\x1b]52;c;cHdu\x07\u202e\u2066\r\b\u009b%_"

// rawControls are runes that must never reach the terminal raw.
var rawControls = []string{"\x1b", "\x07", "\r", "\b", "\u009b", "\u202e", "\u2066"}

// Every column a colleague pushed (delivery ID, interchange ID, message
// type, file name, receipt, user and host names, upload status and
// fixes) holding escapes and bidi overrides: Bob's find, --timeline,
// --overdue and --json show them escaped, never raw.
func TestTeamFindEscapesHostileColumns(t *testing.T) {
	memoryKeyring(t)
	ctx := t.Context()
	dsn := pgtest.DSN(t)
	bobEnv := storeEnv(t, dsn)
	bobEnv[spool.EnvDataDir] = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(bobEnv[credentials.EnvConfig]), "config.toml"), []byte("[store]\nurl = \""+dsn+"\"\nuser = \"bob\"\n"), 0o600))
	code, _, errOut := runCmd(t, "", bobEnv, "store", "init")
	require.Equal(t, exitOK, code, errOut)

	team, err := teamstore.Open(ctx, teamstore.Config{URL: dsn, By: who.Who{User: "alice" + hostileTeam, Host: "host" + hostileTeam}})
	require.NoError(t, err)
	defer team.Close()
	by := team.By()
	sent := tOrders("ICR0001", "PO-4711", 10)
	rec := spool.UploadRecord{Time: t0s, ConnectionID: "conn-a", File: "po" + hostileTeam + ".edi", Size: int64(len(sent)), SHA256: shaOf(sent),
		Key: tBuyer + ":PO-4711:orders:1", SenderID: tBuyer, BusinessID: "PO-4711", RecipientID: tSupplier + hostileTeam, ControlRef: "ICR0001",
		DocNumbers: []string{"PO-4711"}, N: 1, Outcome: spool.OutcomePending, Fixes: "up" + hostileTeam}
	require.NoError(t, team.PushUpload(ctx, "conn-a", rec, sent, by))
	rec.Time, rec.Outcome, rec.HTTPStatus = t0s.Add(1e9), spool.OutcomeAccepted, 202
	rec.UploadID, rec.InterchangeID, rec.Status = "up-1"+hostileTeam, "ic"+hostileTeam, "accepted"+hostileTeam
	require.NoError(t, team.PushUpload(ctx, "conn-a", rec, sent, by))
	ctl := tContrl("CTL1", "ICR0001", true)
	at := t0s.Add(2 * 60e9)
	acked := at.Add(60e9)
	st := spool.Stored{Meta: spool.Meta{ConnectionID: "conn-a", DeliveryAttemptID: "d-contrl-1" + hostileTeam, InterchangeID: "ic-c" + hostileTeam,
		MessageType: "CONTRL", CreatedAt: at, Size: int64(len(ctl)), SHA256: shaOf(ctl), ReceivedAt: at, File: "c" + hostileTeam + ".edi",
		AcknowledgedAt: &acked, ReceiptID: "rc" + hostileTeam}, Path: "/x/c.edi"}
	require.NoError(t, team.PushDelivery(ctx, "conn-a", st, ctl, by))

	for _, args := range [][]string{
		{"find", "po:PO-4711"},
		{"find", "--timeline", "po:PO-4711"},
		{"find", "--json", "po:PO-4711"},
		{"find", "--overdue"},
	} {
		code, out, errOut := runCmd(t, "", bobEnv, args...)
		require.Contains(t, []int{exitOK, exitFileError}, code, "%v: %s", args, errOut)
		require.NotContains(t, errOut, "team store not used", "%v", args)
		require.Contains(t, out, "PO-4711", "%v", args)
		for _, c := range rawControls {
			require.NotContains(t, out+errOut, c, "%v shows %q raw:\n%s", args, c, out)
		}
		if args[1] == "po:PO-4711" {
			require.Contains(t, out, "alice", "%v attributes the colleague's records", args)
			require.Contains(t, out, "CONTRL", "%v", args)
			require.True(t, strings.Contains(out, "d-contrl-1"), "%v shows the hostile delivery ID, escaped:\n%s", args, out)
		}
	}
}
