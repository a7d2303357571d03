package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/teamstore"
	"github.com/nutrab2b/b2bx/internal/testshared/pgtest"
	"github.com/nutrab2b/b2bx/internal/who"
)

// twoTeamEnvs are Alice's and Bob's environments (two HOMEs, two data
// directories) against one initialised team store.
func twoTeamEnvs(t *testing.T) (aliceEnv, bobEnv map[string]string, dsn string) {
	t.Helper()
	memoryKeyring(t)
	dsn = pgtest.DSN(t)
	aliceEnv, bobEnv = storeEnv(t, dsn), storeEnv(t, dsn)
	aliceEnv[spool.EnvDataDir], bobEnv[spool.EnvDataDir] = t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(bobEnv[credentials.EnvConfig]), "config.toml"),
		[]byte("[store]\nurl = \""+dsn+"\"\nuser = \"bob\"\n"), 0o600))
	code, _, errOut := runCmd(t, "", aliceEnv, "store", "init")
	require.Equal(t, exitOK, code, errOut)
	return aliceEnv, bobEnv, dsn
}

// pushAlicesContrl stores, on Alice's machine, the CONTRL d-contrl-1
// rejecting ICR0001 and pushes it as her outbox does; it returns her
// team store and the CONTRL's bytes.
func pushAlicesContrl(t *testing.T, aliceEnv map[string]string, dsn string) (*teamstore.Store, []byte) {
	t.Helper()
	aliceStore, err := spool.Open(aliceEnv[spool.EnvDataDir])
	require.NoError(t, err)
	ctl := tContrl("CTL1", "ICR0001", true)
	w, err := aliceStore.Begin("conn-a", "d-contrl-1")
	require.NoError(t, err)
	_, err = w.Write(ctl)
	require.NoError(t, err)
	st, err := w.Commit(spool.Meta{ConnectionID: "conn-a", DeliveryAttemptID: "d-contrl-1", MessageType: "CONTRL", CreatedAt: t0s.Add(2 * time.Minute),
		Size: int64(len(ctl)), SHA256: shaOf(ctl)})
	require.NoError(t, err)
	team, err := teamstore.Open(t.Context(), teamstore.Config{URL: dsn, By: who.Who{User: "alice", Host: "host-3"}})
	require.NoError(t, err)
	t.Cleanup(func() { team.Close() })
	require.NoError(t, team.PushDelivery(t.Context(), "conn-a", *st, ctl, team.By()))
	return team, ctl
}

// Bob bundles a delivery only Alice fetched: its bytes come from the
// team store (checked by their SHA-256), the README says who fetched it,
// answers.txt explains the CONTRL. Bytes in the team store that do not
// match the sidecar are refused, nothing is written.
func TestBundleOfAColleaguesDelivery(t *testing.T) {
	ctx := t.Context()
	aliceEnv, bobEnv, dsn := twoTeamEnvs(t)
	team, ctl := pushAlicesContrl(t, aliceEnv, dsn)

	code, out, errOut := runCmd(t, "", bobEnv, "bundle", "d-contrl-1", "-o", t.TempDir(), "--json")
	require.Equal(t, exitOK, code, errOut)
	files := bundleFiles(t, decodeJSON[bundleJSON](t, out))
	noSecretIn(t, files)
	require.Contains(t, files["dir/README.txt"], "fetched by alice on host-3")
	require.Contains(t, files["dir/README.txt"], "from the team store")
	require.Contains(t, files["dir/ids.txt"], "d-contrl-1")
	require.Contains(t, files["dir/checks.txt"], shaOf(ctl))
	require.Contains(t, files["dir/answers.txt"], "CONTRL")
	require.NotContains(t, files["dir/checks.txt"], "missing")

	// the team store's bytes changed under the sidecar: refused
	_, err := team.DB().ExecContext(ctx, `UPDATE blob_chunks SET data = $1 WHERE sha256 = $2`, []byte("UNB+tampered'"), shaOf(ctl))
	require.NoError(t, err)
	dir := t.TempDir()
	code, _, errOut = runCmd(t, "", bobEnv, "bundle", "d-contrl-1", "-o", dir)
	require.Equal(t, exitStorage, code, errOut)
	require.Contains(t, errOut, "SHA-256")
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents, "nothing written")
}
