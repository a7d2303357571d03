package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/teamstore"
	"github.com/nutrab2b/b2bx/internal/testshared/pgtest"
	"github.com/nutrab2b/b2bx/internal/who"
)

// storeEnv is an environment whose config.toml names the team store url.
func storeEnv(t *testing.T, url string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "profiles.toml")
	if url != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[store]\nurl = \""+url+"\"\nuser = \"alice\"\n"), 0o600))
	}
	return map[string]string{credentials.EnvConfig: cfg, "HOME": dir}
}

func memoryKeyring(t *testing.T) *credentials.MemoryStore {
	t.Helper()
	m := credentials.NewMemoryStore()
	old := teamSecrets
	teamSecrets = func(*env) (credentials.SecretStore, error) { return m, nil }
	t.Cleanup(func() { teamSecrets = old })
	return m
}

func TestStoreCommandsWithoutAStore(t *testing.T) {
	memoryKeyring(t)
	for _, c := range []string{"init", "status", "login"} {
		code, _, errOut := runCmd(t, "", storeEnv(t, ""), "store", c)
		require.Equal(t, exitUsage, code, c)
		require.Contains(t, errOut, "[store] url", c)
	}
	code, _, errOut := runCmd(t, "", storeEnv(t, "postgres://b2bx:canary-pw-3@db.example.com/b2bx?sslmode=verify-full"), "store", "status")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "b2bx store login")
	require.NotContains(t, errOut, "canary-pw-3")
	code, _, errOut = runCmd(t, "", storeEnv(t, "postgres://b2bx@db.example.com/b2bx"), "store", "init")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "TLS")
}

func TestStoreInitStatusLogin(t *testing.T) {
	keyring := memoryKeyring(t)
	dsn := pgtest.DSN(t)
	envv := storeEnv(t, dsn)
	code, out, errOut := runCmd(t, "", envv, "store", "status")
	require.Equal(t, exitStorage, code, errOut)
	require.Contains(t, out, "b2bx store init")
	code, out, errOut = runCmd(t, "", envv, "store", "init")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "migrated from team tables 0, index 0")
	code, out, errOut = runCmd(t, "", envv, "store", "init")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "(up to date)")
	require.NotContains(t, errOut, "migrating", "nothing to migrate: no word of a wait")
	// a store of team schema 1 (the bytes in blobs.data): init says it
	// migrates before the wait, then what it did
	pgtest.Exec(t, dsn, `DROP TABLE blob_chunks`, `ALTER TABLE blobs ADD COLUMN data BYTEA NOT NULL DEFAULT ''`,
		`UPDATE team_meta SET value = '1' WHERE name = 'version'`)
	code, out, errOut = runCmd(t, "", envv, "store", "status")
	require.Equal(t, exitStorage, code)
	require.Contains(t, out+errOut, "b2bx store init")
	code, out, errOut = runCmd(t, "", envv, "store", "init")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "store init: migrating team tables 1 → 3 (a large store takes minutes, at most 30m0s; ctrl+c stops it")
	require.Contains(t, out, "migrated from team tables 1, index 1")
	code, out, errOut = runCmd(t, "", envv, "store", "status")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "reachable, schema team tables 3, index 1, records by alice on ")
	code, out, _ = runCmd(t, "", envv, "store", "status", "--json")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"reachable": true`)

	code, out, errOut = runCmd(t, "canary-pw-4\n", envv, "store", "login", "--password-stdin")
	require.Equal(t, exitOK, code, errOut)
	require.NotContains(t, out+errOut, "canary-pw-4")
	p, err := teamstore.Parse(dsn)
	require.NoError(t, err)
	v, err := keyring.Get(t.Context(), teamstore.KeyringProfile, p.Account)
	require.NoError(t, err)
	require.Equal(t, "canary-pw-4", v.Reveal())
	code, _, errOut = runCmd(t, "", envv, "store", "login")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "--password-stdin")
	code, _, errOut = runCmd(t, "\n", envv, "store", "login", "--password-stdin")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "empty password")
}

const (
	tBuyer    = "4012345000009"
	tSupplier = "4098765000003"
)

func tOrders(ref, doc string, qty int) []byte {
	return fmt.Appendf(nil, "UNA:+.? 'UNB+UNOC:3+%s:14+%s:14+260312:1030+%s'UNH+M1+ORDERS:D:96A:UN'BGM+220+%s+9'"+
		"DTM+137:20260312:102'NAD+BY+%s::9'NAD+SU+%s::9'LIN+1++4000862141404:SRS'QTY+21:%d'UNS+S'UNT+9+M1'UNZ+1+%s'",
		tBuyer, tSupplier, ref, doc, tBuyer, tSupplier, qty, ref)
}

func tContrl(own, ref string, rejected bool) []byte {
	action := "7'UNT+3+C1"
	if rejected {
		action = "4'UCM+M1+ORDERS:D:96A:UN+4'UCS+3+13'UNT+5+C1"
	}
	return fmt.Appendf(nil, "UNB+UNOA:3+%s:14+%s:14+260312:1031+%s'UNH+C1+CONTRL:2:2:UN'UCI+%s+%s:14+%s:14+%s'UNZ+1+%s'",
		tSupplier, tBuyer, own, ref, tBuyer, tSupplier, action, own)
}

// Two engineers, two data directories, one database: what Alice stored
// and sent (pushed as her outbox pushes it) is what Bob's find shows,
// attributed to her; his key plan continues after her key, and bytes a
// partner rejected for her are refused for him.
func TestTwoEngineersShareFindAndKeys(t *testing.T) {
	memoryKeyring(t)
	ctx := t.Context()
	dsn := pgtest.DSN(t)
	aliceEnv, bobEnv := storeEnv(t, dsn), storeEnv(t, dsn)
	aliceEnv[spool.EnvDataDir], bobEnv[spool.EnvDataDir] = t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(filepath.Dir(bobEnv[credentials.EnvConfig]), "config.toml"), []byte("[store]\nurl = \""+dsn+"\"\nuser = \"bob\"\n"), 0o600)
	code, _, errOut := runCmd(t, "", aliceEnv, "store", "init")
	require.Equal(t, exitOK, code, errOut)

	// Alice: an upload of PO-4711 under :1, accepted, and its CONTRL rejecting it
	aliceStore, err := spool.Open(aliceEnv[spool.EnvDataDir])
	require.NoError(t, err)
	sent := tOrders("ICR0001", "PO-4711", 10)
	pf := writeOrders(t, sent)
	plan, err := orders.NewPlan(aliceStore, "conn-a", pf)
	require.NoError(t, err)
	require.Equal(t, tBuyer+":PO-4711:orders:1", plan.Key)
	_, err = aliceStore.KeepSent("conn-a", sent)
	require.NoError(t, err)
	rec := spool.UploadRecord{Time: t0s, ConnectionID: "conn-a", File: "po.edi", Size: int64(len(sent)), SHA256: pf.SHA256, Key: plan.Key,
		SenderID: tBuyer, BusinessID: "PO-4711", RecipientID: tSupplier, ControlRef: "ICR0001", DocNumbers: []string{"PO-4711"}, N: 1, Outcome: spool.OutcomePending}
	require.NoError(t, aliceStore.AppendUpload(rec))
	rec.Time, rec.Outcome, rec.HTTPStatus, rec.UploadID, rec.InterchangeID = t0s.Add(time.Second), spool.OutcomeAccepted, 202, "up-1", "ic-up-1"
	require.NoError(t, aliceStore.AppendUpload(rec))
	ctl := tContrl("CTL1", "ICR0001", true)
	w, err := aliceStore.Begin("conn-a", "d-contrl-1")
	require.NoError(t, err)
	_, err = w.Write(ctl)
	require.NoError(t, err)
	_, err = w.Commit(spool.Meta{ConnectionID: "conn-a", DeliveryAttemptID: "d-contrl-1", MessageType: "CONTRL", CreatedAt: t0s.Add(2 * time.Minute),
		Size: int64(len(ctl)), SHA256: shaOf(ctl)})
	require.NoError(t, err)
	st, err := aliceStore.MarkAcknowledged("conn-a", "d-contrl-1", "rc-1", t0s.Add(3*time.Minute))
	require.NoError(t, err)

	// what her outbox does: push each record with its bytes
	team, err := teamstore.Open(ctx, teamstore.Config{URL: dsn, By: who.Who{User: "alice", Host: "host-3"}})
	require.NoError(t, err)
	defer team.Close()
	hist, err := aliceStore.Uploads("conn-a")
	require.NoError(t, err)
	for _, r := range hist {
		require.NoError(t, team.PushUpload(ctx, "conn-a", r, sent, team.By()))
	}
	payload, err := os.ReadFile(st.Path)
	require.NoError(t, err)
	require.NoError(t, team.PushDelivery(ctx, "conn-a", *st, payload, team.By()))

	// Bob's find reads the team's index: Alice's upload and her CONTRL, by her
	code, out, errOut := runCmd(t, "", bobEnv, "find", "po:PO-4711")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "BY")
	require.Contains(t, out, "alice on host-3")
	require.Contains(t, out, "CONTRL")
	require.Contains(t, out, "d-contrl-1")
	code, out, errOut = runCmd(t, "", bobEnv, "find", "--timeline", "po:PO-4711")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "— by alice on host-3")
	require.Contains(t, out, "acknowledged")
	code, out, _ = runCmd(t, "", bobEnv, "find", "--json", "po:PO-4711")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"user": "alice"`)
	code, out, _ = runCmd(t, "", bobEnv, "find", "--overdue")
	require.Equal(t, exitFileError, code, "the rejected upload needs action")
	require.Contains(t, out, "PO-4711")
	require.Contains(t, out, "BY")
	require.Contains(t, out, "alice on host-3", "--overdue says who sent it")
	_, out, _ = runCmd(t, "", bobEnv, "find", "--overdue", "--json")
	require.Contains(t, out, `"by": {`)
	require.Contains(t, out, `"user": "alice"`)

	// Bob's key plan for a fixed file continues after Alice's :1
	bobStore, err := spool.Open(bobEnv[spool.EnvDataDir])
	require.NoError(t, err)
	bt, note := teamstore.ForKeyPlans(ctx, func(k string) string { return bobEnv[k] }, nil, bobStore)
	require.Empty(t, note)
	require.NotNil(t, bt)
	defer bt.Close()
	fixed := writeOrders(t, tOrders("ICR0002", "PO-4711", 8))
	plan, err = orders.NewPlan(bobStore, "conn-a", fixed)
	require.NoError(t, err)
	require.Equal(t, tBuyer+":PO-4711:orders:2", plan.Key, "Bob's next key after Alice's :1")
	l, err := bt.LinkedFor(ctx, bobStore, "conn-a", orders.Selection{SHAs: []string{fixed.SHA256}})
	require.NoError(t, err)
	require.NoError(t, orders.Guard(l, fixed.SHA256, nil, false), "changed bytes are fine")
	// the very bytes the partner rejected for Alice are refused for Bob
	l, err = bt.LinkedFor(ctx, bobStore, "conn-a", orders.Selection{SHAs: []string{pf.SHA256}})
	require.NoError(t, err)
	err = orders.Guard(l, pf.SHA256, nil, false)
	require.ErrorIs(t, err, orders.ErrSameAsRejected)
	require.Contains(t, err.Error(), "Fix the file")

	// the team store down: this machine's index answers, and says so once
	bad := storeEnv(t, "postgres://bob@127.0.0.1:1/none?sslmode=disable")
	bad[spool.EnvDataDir] = bobEnv[spool.EnvDataDir]
	code, out, errOut = runCmd(t, "", bad, "find", "po:PO-4711")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "team store not used")
	require.Contains(t, errOut, "this machine's index answers")
	require.Equal(t, 1, strings.Count(errOut, "team store not used"))
	require.Contains(t, out, "nothing stored matches")
}

var t0s = time.Date(2026, 3, 12, 10, 30, 0, 0, time.UTC)

func shaOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func writeOrders(t *testing.T, data []byte) *orders.Preflight {
	t.Helper()
	p := filepath.Join(t.TempDir(), "po.edi")
	require.NoError(t, os.WriteFile(p, data, 0o600))
	pf, err := orders.Inspect(t.Context(), p)
	require.NoError(t, err)
	require.False(t, pf.Blocked(), "%v", pf.Problem)
	return pf
}
