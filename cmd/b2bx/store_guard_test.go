package main

import (
	"bytes"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
	"github.com/nutrab2b/b2bx/internal/teamstore"
	"github.com/nutrab2b/b2bx/internal/testshared/pgtest"
	"github.com/nutrab2b/b2bx/internal/who"
)

// teamSimEnvs are Alice's and Bob's environments against one simulator
// and one team store: two HOMEs, two data directories, config.toml with
// [store] url and their user names. It returns the store's DSN too.
func teamSimEnvs(t *testing.T, opts ...partnersim.Option) (alice, bob *simEnv, dsn string) {
	t.Helper()
	memoryKeyring(t)
	dsn = pgtest.DSN(t)
	alice = newSimEnv(t, opts...)
	bob = &simEnv{sim: alice.sim, clock: alice.clock, srv: alice.srv, dataDir: filepath.Join(t.TempDir(), "data"), env: maps.Clone(alice.env)}
	bob.env["B2BX_DATA_DIR"], bob.env["HOME"] = bob.dataDir, t.TempDir()
	for _, e := range []struct {
		s    *simEnv
		user string
	}{{alice, "alice"}, {bob, "bob"}} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[store]\nurl = \""+dsn+"\"\nuser = \""+e.user+"\"\n"), 0o600))
		e.s.env[credentials.EnvConfig] = filepath.Join(dir, "profiles.toml")
	}
	code, _, errOut := runCmd(t, "", alice.env, "store", "init")
	require.Equal(t, exitOK, code, errOut)
	return alice, bob, dsn
}

// alicesPushes writes Alice's history into her store and pushes it as her
// outbox does: her upload of sent under n (accepted, upload id up-N,
// fixing fixes when set) at at, and the CONTRL that answers it a minute
// later (rejecting or accepting).
type alicesPushes struct {
	t     *testing.T
	store *spool.Store
	team  *teamstore.Store
}

func (a alicesPushes) upload(sent []byte, ref string, n int, fixes string, at time.Time, rejected bool) {
	t, ctx := a.t, a.t.Context()
	pf := writeOrders(t, sent)
	_, err := a.store.KeepSent(cliConn, sent)
	require.NoError(t, err)
	rec := spool.UploadRecord{Time: at, ConnectionID: cliConn, File: "po.edi", Size: int64(len(sent)), SHA256: pf.SHA256, Key: tBuyer + ":PO-4711:orders:" + string(rune('0'+n)),
		SenderID: tBuyer, BusinessID: "PO-4711", RecipientID: tSupplier, ControlRef: ref, DocNumbers: []string{"PO-4711"}, N: n, Outcome: spool.OutcomePending, Fixes: fixes}
	require.NoError(t, a.store.AppendUpload(rec))
	require.NoError(t, a.team.PushUpload(ctx, cliConn, rec, sent, a.team.By()))
	rec.Time, rec.Outcome, rec.HTTPStatus, rec.UploadID = at.Add(time.Second), spool.OutcomeAccepted, 202, "up-"+string(rune('0'+n))
	require.NoError(t, a.store.AppendUpload(rec))
	require.NoError(t, a.team.PushUpload(ctx, cliConn, rec, sent, a.team.By()))
	ctl := tContrl("CTL"+ref, ref, rejected)
	id := "d-contrl-" + ref
	w, err := a.store.Begin(cliConn, id)
	require.NoError(t, err)
	_, err = w.Write(ctl)
	require.NoError(t, err)
	st, err := w.Commit(spool.Meta{ConnectionID: cliConn, DeliveryAttemptID: id, MessageType: "CONTRL", CreatedAt: at.Add(time.Minute), Size: int64(len(ctl)), SHA256: shaOf(ctl)})
	require.NoError(t, err)
	require.NoError(t, a.team.PushDelivery(ctx, cliConn, *st, ctl, a.team.By()))
}

// One reject rule for the team: Alice's upload X is rejected by the
// partner's CONTRL and her fix Y accepted (nothing of hers needs action
// any more); Bob's upload of X's very bytes is still refused, as this
// machine's guard (orders.Guard) refuses them locally, and --force sends
// them.
func TestTeamUploadRefusesAColleaguesRejectedBytesAfterHerFix(t *testing.T) {
	alice, bob, dsn := teamSimEnvs(t, partnersim.WithResponseDelay(0))
	aliceStore, err := spool.Open(alice.dataDir)
	require.NoError(t, err)
	team, err := teamstore.Open(t.Context(), teamstore.Config{URL: dsn, By: who.Who{User: "alice", Host: "host-3"}})
	require.NoError(t, err)
	defer team.Close()
	a := alicesPushes{t: t, store: aliceStore, team: team}
	x := tOrders("ICR0001", "PO-4711", 10)
	a.upload(x, "ICR0001", 1, "", t0s, true)
	a.upload(tOrders("ICR0002", "PO-4711", 8), "ICR0002", 2, "up-1", t0s.Add(10*time.Minute), false)
	_, out, errOut := runCmd(t, "", bob.env, "find", "--overdue", "--json") // exit 1: her fix awaits its ORDRSP
	require.Contains(t, out, `"uploadId": "up-2"`, errOut)
	require.Empty(t, decodeJSON[map[string][]any](t, out)["needsAction"], "her fix was accepted: nothing needs action any more")

	bad := orderstest.WriteFile(t, "po.edi", x)
	code, _, errOut := bob.run(t, "", "upload", bad, "--new")
	require.Equal(t, exitUsage, code, errOut)
	require.Contains(t, errOut, "identical to an upload the partner rejected")
	require.Contains(t, errOut, "upload up-1")
	require.Contains(t, errOut, "CONTRL: rejected")
	require.Zero(t, alice.sim.RequestCount(partnersim.EndpointInbox, ""), "nothing sent")

	code, out, errOut = bob.run(t, "", "upload", bad, "--new", "--force")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "--force: sending bytes identical to an upload the partner rejected (in the team store)")
	require.Contains(t, out, tBuyer+":PO-4711:orders:3", "the next key after Alice's :2")
	require.Equal(t, 1, alice.sim.RequestCount(partnersim.EndpointInbox, ""))
}

// The app's key plans take the team's key-plan lock as `b2bx upload`
// does: Bob's app plans PO-4711 (:1) and holds the lock; Alice's upload
// of another version at that moment waits for it, and once Bob's
// reservation is pushed (the app's outbox, appTeam's wiring) she gets
// :2. Without the lock both would pick :1.
func TestTheAppAndTheCLIUploadAtOnceGetDistinctKeys(t *testing.T) {
	alice, bob, dsn := teamSimEnvs(t, partnersim.WithResponseDelay(0))
	ctx := t.Context()
	var errb bytes.Buffer
	be := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errb, getenv: func(k string) string { return bob.env[k] }}
	tp, faces := appTeam(ctx, be)
	require.NotNil(t, tp, errb.String())
	require.NotNil(t, faces)
	defer tp.finish(teamDrainWait)
	defer faces.Close()
	faces.Start(ctx)
	require.NotNil(t, faces.Index(ctx), faces.Note())
	bobStore, err := spool.Open(bob.dataDir)
	require.NoError(t, err)
	tp.Attach(bobStore)
	faces.AttachKeyPlans(ctx, bobStore)

	plan, err := orders.NewPlan(bobStore, cliConn, writeOrders(t, orderstest.Orders("REF1", 12, "PO-4711")))
	require.NoError(t, err)
	require.Equal(t, tBuyer+":PO-4711:orders:1", plan.Key)

	type result struct {
		code      int
		out, errs string
	}
	done := make(chan result, 1)
	po := orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF2", 13, "PO-4711"))
	go func() {
		code, out, errOut := alice.run(t, "", "upload", po, "--json")
		done <- result{code, out, errOut}
	}()
	// Alice's upload waits for the lock Bob's plan holds (bounded)
	team, err := teamstore.Open(ctx, teamstore.Config{URL: dsn})
	require.NoError(t, err)
	defer team.Close()
	waiting := func() bool {
		var n int
		require.NoError(t, team.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&n))
		return n > 0
	}
	for deadline := time.Now().Add(20 * time.Second); !waiting(); time.Sleep(20 * time.Millisecond) {
		select {
		case r := <-done:
			t.Fatalf("Alice's upload did not wait for Bob's key plan: %d %s %s", r.code, r.out, r.errs)
		default:
		}
		require.True(t, time.Now().Before(deadline), "Alice's upload never reached the lock")
	}
	require.NoError(t, plan.Reserve(), "Bob's reservation: nobody took :1 meanwhile")
	var r result
	select {
	case r = <-done:
	case <-time.After(40 * time.Second):
		t.Fatal("Alice's upload still waits after Bob's key was pushed")
	}
	require.Equal(t, exitOK, r.code, r.errs)
	require.Equal(t, tBuyer+":PO-4711:orders:2", decodeJSON[uploadJSON](t, r.out).Key)
	keys := map[string]bool{}
	recs, err := team.Uploads(ctx, cliConn)
	require.NoError(t, err)
	for _, rec := range recs {
		keys[rec.Key] = true
	}
	require.Equal(t, map[string]bool{tBuyer + ":PO-4711:orders:1": true, tBuyer + ":PO-4711:orders:2": true}, keys)
}
