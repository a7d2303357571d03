package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

func (s *simEnv) history(t *testing.T) []spool.UploadRecord {
	t.Helper()
	st, err := spool.Open(s.dataDir)
	require.NoError(t, err)
	h, err := st.Uploads(cliConn)
	require.NoError(t, err)
	return h
}

func TestUploadKeyNumbering(t *testing.T) {
	s := newSimEnv(t)
	po := orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 12, "PO-4711"))

	code, out, errOut := s.run(t, "", "upload", po)
	require.Equal(t, exitOK, code, errOut)
	keyAt := strings.Index(out, "key           4012345000009:PO-4711:orders:1")
	require.GreaterOrEqual(t, keyAt, 0, out)
	require.Less(t, keyAt, strings.Index(out, "result"), "the key is shown before the result")
	require.Contains(t, out, "first upload")
	require.Contains(t, out, "(HTTP 202)")
	ups := s.sim.Uploads(cliConn)
	require.Len(t, ups, 1)
	require.Equal(t, "4012345000009:PO-4711:orders:1", ups[0].IdempotencyKey)

	h := s.history(t)
	require.Len(t, h, 2)
	require.Equal(t, spool.OutcomePending, h[0].Outcome, "reserved before sending")
	require.Equal(t, spool.OutcomeAccepted, h[1].Outcome)
	require.Equal(t, 202, h[1].HTTPStatus)
	require.Equal(t, ups[0].ID, h[1].UploadID)
	require.Equal(t, po, h[1].File)
	require.Equal(t, "REF1", h[1].ControlRef, "the history links answers: UNB control reference")
	require.Equal(t, "4098765000003", h[1].RecipientID)
	require.Equal(t, []string{"PO-4711"}, h[1].DocNumbers)

	// Same bytes, no terminal, no choice: refused, nothing sent.
	code, _, errOut = s.run(t, "", "upload", po)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "--replay")
	require.Contains(t, errOut, "--new")
	require.Contains(t, errOut, "4012345000009:PO-4711:orders:2")
	require.Equal(t, 1, s.sim.RequestCount(partnersim.EndpointInbox, ""))

	code, out, errOut = s.run(t, "", "upload", po, "--replay", "--json")
	require.Equal(t, exitOK, code, errOut)
	j := decodeJSON[uploadJSON](t, out)
	require.Equal(t, "4012345000009:PO-4711:orders:1", j.Key)
	require.Equal(t, 200, j.HTTPStatus)
	require.True(t, j.Replay)
	require.Equal(t, "replay", j.Decision)
	require.Contains(t, errOut, "key           4012345000009:PO-4711:orders:1", "with --json the key goes to stderr first")

	code, out, _ = s.run(t, "", "upload", po, "--new", "--json")
	require.Equal(t, exitOK, code)
	j = decodeJSON[uploadJSON](t, out)
	require.Equal(t, "4012345000009:PO-4711:orders:2", j.Key)
	require.Equal(t, 202, j.HTTPStatus)
	require.Equal(t, "new-upload", j.Decision)

	// A changed file for the same order takes the next number.
	changed := orderstest.WriteFile(t, "po2.edi", orderstest.Orders("REF1", 13, "PO-4711"))
	code, out, _ = s.run(t, "", "upload", changed, "--json")
	require.Equal(t, exitOK, code)
	j = decodeJSON[uploadJSON](t, out)
	require.Equal(t, "4012345000009:PO-4711:orders:3", j.Key)
	require.Equal(t, "next-payload", j.Decision)

	// Several ORDERS: the business id is the interchange control reference.
	multi := orderstest.WriteFile(t, "multi.edi", orderstest.Orders("REF9", 1, "PO-1", "PO-2"))
	code, out, _ = s.run(t, "", "upload", multi, "--json")
	require.Equal(t, exitOK, code)
	require.Equal(t, "4012345000009:REF9:orders:1", decodeJSON[uploadJSON](t, out).Key)
}

func TestUploadPromptOnTerminal(t *testing.T) {
	s := newSimEnv(t)
	po := orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 12, "PO-1"))
	code, _, _ := s.run(t, "", "upload", po)
	require.Equal(t, exitOK, code)
	pretendTerminal(t)

	code, out, errOut := s.run(t, "\n", "upload", po)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "[r/n/N]")
	require.Contains(t, errOut, "aborted; nothing was sent")
	require.NotContains(t, out, "result")

	code, out, _ = s.run(t, "r\n", "upload", po)
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "orders:1")
	require.Contains(t, out, "replay of the earlier upload")

	code, out, _ = s.run(t, "new\n", "upload", po)
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "orders:2")
	require.Equal(t, 3, s.sim.RequestCount(partnersim.EndpointInbox, ""))
}

func TestUploadRetriesReuseKey(t *testing.T) {
	s := newSimEnv(t)
	po := orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF1", 12, "PO-7"))

	// The server stores the upload but every answer is lost: unclear.
	s.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointInbox, DropResponse: true})
	code, _, errOut := s.run(t, "", "upload", po)
	require.Equal(t, exitAPI, code)
	require.Contains(t, errOut, "may have arrived")
	require.Equal(t, spool.OutcomeUnclear, s.history(t)[1].Outcome)

	s.sim.ClearFaults()
	code, out, errOut := s.run(t, "", "upload", po, "--json")
	require.Equal(t, exitOK, code, errOut)
	j := decodeJSON[uploadJSON](t, out)
	require.Equal(t, "4012345000009:PO-7:orders:1", j.Key, "network retry: same key")
	require.Equal(t, "retry", j.Decision)
	require.True(t, j.Replay, "the server had it: replay, no duplicate")
	require.Len(t, s.sim.Uploads(cliConn), 1)

	// 503 storm: retried on the schedule, then given up; the key stays.
	po2 := orderstest.WriteFile(t, "po2.edi", orderstest.Orders("REF2", 1, "PO-8"))
	s.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointInbox, Status: 503})
	code, _, errOut = s.run(t, "", "upload", po2)
	require.Equal(t, exitAPI, code)
	require.Contains(t, errOut, "next attempt at")
	require.Contains(t, errOut, "ERR_B2B_EXCHANGE_UNAVAILABLE")
	h := s.history(t)
	require.Equal(t, spool.OutcomeFailed, h[len(h)-1].Outcome, "503: the server did not act")
	s.sim.ClearFaults()
	code, out, _ = s.run(t, "", "upload", po2, "--json")
	require.Equal(t, exitOK, code)
	require.Equal(t, "4012345000009:PO-8:orders:1", decodeJSON[uploadJSON](t, out).Key)
}

func TestUploadOperatorKeyAndConflict(t *testing.T) {
	s := newSimEnv(t)
	a := orderstest.WriteFile(t, "a.edi", orderstest.Orders("REF1", 1, "PO-1"))
	b := orderstest.WriteFile(t, "b.edi", orderstest.Orders("REF1", 2, "PO-1"))
	code, out, _ := s.run(t, "", "upload", a, "--key", "my-key.1", "--json")
	require.Equal(t, exitOK, code)
	require.Equal(t, 0, decodeJSON[uploadJSON](t, out).N)

	code, out, errOut := s.run(t, "", "upload", b, "--key", "my-key.1", "--json")
	require.Equal(t, exitAPI, code)
	j := decodeJSON[uploadJSON](t, out)
	require.Equal(t, 409, j.HTTPStatus)
	require.Equal(t, "conflict", j.Outcome)
	require.Contains(t, errOut, "ERR_B2B_EXCHANGE_CONFLICT")

	// A 409 for a generated key moves the numbering on.
	s.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointInbox, Status: 409, Times: 1})
	code, _, _ = s.run(t, "", "upload", b)
	require.Equal(t, exitAPI, code)
	code, out, _ = s.run(t, "", "upload", b, "--json")
	require.Equal(t, exitOK, code)
	j = decodeJSON[uploadJSON](t, out)
	require.Equal(t, "4012345000009:PO-1:orders:2", j.Key)
	require.Equal(t, "after-conflict", j.Decision)
}

func TestUploadRefusesWithoutSending(t *testing.T) {
	s := newSimEnv(t)
	big := filepath.Join(t.TempDir(), "big.edi")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(16<<20+1)) // sparse: refused from its size, never read
	require.NoError(t, f.Close())
	two := append(orderstest.Orders("R1", 1, "PO-1"), orderstest.Orders("R2", 1, "PO-2")...)
	ordrsp := []byte("UNB+UNOC:3+4012345000009:14+4098765000003:14+250602:0800+R1'UNH+1+ORDRSP:D:96A:UN'BGM+231+X+9'UNT+3+1'UNZ+1+R1'")
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"empty", []string{orderstest.WriteFile(t, "empty.edi", nil)}, "is empty"},
		{"too large", []string{big}, "at most 16 MiB"},
		{"two interchanges", []string{orderstest.WriteFile(t, "two.edi", two)}, "nothing was sent"},
		{"not orders", []string{orderstest.WriteFile(t, "rsp.edi", ordrsp)}, "ORDRSP"},
		{"garbage", []string{orderstest.WriteFile(t, "junk.edi", []byte("hello \x1b[31m world"))}, "nothing was sent"},
		{"directory", []string{t.TempDir()}, "not a regular file"},
		{"missing", []string{filepath.Join(t.TempDir(), "nope.edi")}, "cannot read the file"},
		{"no file", nil, "exactly one FILE"},
		{"bad key", []string{orderstest.WriteFile(t, "ok.edi", orderstest.Orders("R", 1, "PO")), "--key", "bad key/ä"}, "--key"},
		{"replay and new", []string{"x.edi", "--replay", "--new"}, "exclude each other"},
		{"key and replay", []string{"x.edi", "--key", "k", "--replay"}, "with --key you choose"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := s.run(t, "", append([]string{"upload"}, tc.args...)...)
			require.Equal(t, exitUsage, code, errOut)
			require.Contains(t, errOut, tc.msg)
			require.NotContains(t, errOut, "\x1b")
			require.Empty(t, out)
			require.Zero(t, s.sim.RequestCount(partnersim.EndpointInbox, ""), "nothing sent")
		})
	}
	require.Empty(t, s.history(t), "refusals leave no history")
}
