package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

// TestCanaryFullRun drives upload, mailbox ls and fetch --ack (good and
// faulty deliveries, the partner's answers to the upload, an --out copy)
// with debug logging on, then searches every byte the CLI produced —
// stdout, stderr with all slog output, every file under the spool root and
// the out directory (with the upload history's CSV export and a ticket
// bundle of every delivery and upload) — for the canary API secret and
// claim tokens.
func TestCanaryFullRun(t *testing.T) {
	s := newSimEnv(t, partnersim.WithResponseDelay(0))
	s.env[envLog] = "debug"
	var hay []string
	run := func(stdin string, args ...string) int {
		code, out, errOut := s.run(t, stdin, args...)
		hay = append(hay, out, errOut)
		return code
	}
	for _, f := range []partnersim.PayloadFault{{}, {WrongHashHeader: true}, {Trailer: partnersim.TrailerAbsent}, {}, {Reset: true, ResetAt: 100}, {}} {
		s.add(t, "ORDRSP", ediPayload(20<<10), f)
	}
	po := orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 3, "PO-CANARY"))
	require.Equal(t, exitOK, run("", "upload", po))
	require.Equal(t, exitOK, run("", "upload", po, "--replay", "--json"))
	s.clock.Advance(partnersim.DefaultResponseDelay)
	require.Equal(t, exitOK, run("", "mailbox", "ls", "--all"))
	require.Equal(t, exitOK, run("", "mailbox", "ls", "--json"))

	outDir := filepath.Join(t.TempDir(), "out")
	codes := map[int]int{}
	for range 12 {
		codes[run("", "fetch", "--next", "--ack", "--out", outDir, "--json")]++
		codes[run("", "fetch", "--next", "--ack")]++
	}
	// fetch --all --ack over fresh entries, with the clocks disagreeing
	// and a lease that ends mid-download
	for _, f := range []partnersim.PayloadFault{{}, {}, {WrongHashHeader: true}} {
		s.add(t, "ORDRSP", ediPayload(20<<10), f)
	}
	s.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointClaim, DateSkew: -time.Hour, Times: 1})
	codes[run("", "fetch", "--all", "--ack", "--json")]++
	codes[run("", "fetch", "--all", "--ack")]++
	require.Positive(t, codes[exitOK])
	require.Positive(t, codes[exitIntegrity], "faulty deliveries were part of the run")
	require.Positive(t, s.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
	require.Positive(t, s.sim.RequestCount(partnersim.EndpointPayload, ""))
	// The commands that only read the store: the history and a ticket
	// bundle of every stored delivery and upload (their files are walked
	// below with the out directory).
	local := func(args ...string) {
		code, out, errOut := runCmd(t, "", s.env, append(args, "--connection", cliConn)...)
		require.Equal(t, exitOK, code, errOut)
		hay = append(hay, out, errOut)
	}
	local("uploads", "--json", "-o", filepath.Join(outDir, "uploads.csv"))
	st, err := spool.Open(s.dataDir)
	require.NoError(t, err)
	stored, err := st.List(cliConn)
	require.NoError(t, err)
	for _, d := range stored {
		local("bundle", d.Meta.DeliveryAttemptID, "-o", outDir)
	}
	for _, r := range s.history(t) {
		if r.UploadID != "" {
			local("bundle", r.UploadID, "-o", outDir)
		}
	}
	ents, err := os.ReadDir(outDir)
	require.NoError(t, err)
	bundles := 0
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), "b2bx-bundle-") {
			bundles++
		}
	}
	require.Greater(t, bundles, 3, "bundles were written")
	// the tracking index and the seen journal are searched too
	search := func(args ...string) int {
		code, out, errOut := runCmd(t, "", s.env, args...)
		hay = append(hay, out, errOut)
		return code
	}
	require.Equal(t, exitOK, search("find", "PO-CANARY"))
	require.Equal(t, exitOK, search("find", "--timeline", "PO-CANARY", "--json"))
	search("find", "--overdue")
	require.FileExists(t, filepath.Join(s.dataDir, ".index", "track.db"))
	require.FileExists(t, filepath.Join(s.dataDir, cliConn, "seen.jsonl"), "the refused deliveries were noted")
	logs := strings.Join(hay, "\n")
	require.Contains(t, logs, "level=DEBUG", "debug logging was captured")

	for _, root := range []string{s.dataDir, outDir} {
		require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			require.NoError(t, err)
			if !d.IsDir() {
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				hay = append(hay, p, string(b))
			}
			return nil
		}))
	}
	require.Greater(t, len(hay), 60)
	for _, h := range hay {
		require.NotContains(t, h, cliCanarySecret)
		require.NotContains(t, h, cliCanaryToken)
		require.NotContains(t, h, "CANARY-CLI-TOKEN")
	}
}
