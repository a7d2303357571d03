package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

func ediPayload(n int) []byte {
	var b bytes.Buffer
	b.WriteString("UNB+UNOC:3+4012345000009:14+4098765000003:14+250602:0800+IC1'UNH+1+ORDRSP:D:96A:UN'BGM+231+PO-1+4'")
	for b.Len() < n {
		b.WriteString("LIN+1++4000862141404:SRS'QTY+21:12'")
	}
	b.WriteString("UNT+3+1'UNZ+1+IC1'")
	return b.Bytes()
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestFetchSuccess(t *testing.T) {
	s := newSimEnv(t)
	data := ediPayload(100 << 10)
	id := s.add(t, "ORDRSP", data, partnersim.PayloadFault{})

	code, out, errOut := s.run(t, "", "fetch", "--next", "--json")
	require.Equal(t, exitOK, code, errOut)
	j := decodeJSON[map[string]any](t, out)
	for _, k := range []string{"deliveryAttemptId", "messageType", "bytes", "sha256", "checks", "path", "acknowledged", "receiptId", "replay"} {
		require.Contains(t, j, k)
	}
	require.Equal(t, id, j["deliveryAttemptId"])
	require.Equal(t, "ORDRSP", j["messageType"])
	require.EqualValues(t, len(data), j["bytes"])
	require.Equal(t, sha(data), j["sha256"])
	require.Equal(t, map[string]any{"sizeHeader": true, "sizeListing": true, "hashHeader": true, "hashListing": true, "trailer": true, "stored": true}, j["checks"])
	require.Equal(t, false, j["acknowledged"])
	require.NotEmpty(t, j["leaseExpiresAt"])
	stored, err := os.ReadFile(j["path"].(string))
	require.NoError(t, err)
	require.Equal(t, data, stored)
	require.Zero(t, s.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
	require.NotContains(t, errOut, "\r", "no progress when stderr is not a terminal")

	// The lease is active: the entry is not listed, so the ID is refused.
	code, _, errOut = s.run(t, "", "fetch", id, "--ack")
	require.Equal(t, exitAPI, code)
	require.Contains(t, errOut, "not in the mailbox listing")
	require.Contains(t, errOut, "b2bx mailbox ls")

	// After the lease ran out: fetch by ID with --ack; the store is a no-op.
	s.clock.Advance(partnersim.LeaseDuration + 1)
	code, out, errOut = s.run(t, "", "fetch", id, "--ack", "--json")
	require.Equal(t, exitOK, code, errOut)
	j = decodeJSON[map[string]any](t, out)
	require.Equal(t, true, j["acknowledged"])
	require.Equal(t, true, j["alreadyStored"])
	require.NotEmpty(t, j["receiptId"])
	require.Equal(t, false, j["replay"])
	require.NotContains(t, j, "leaseExpiresAt")
	st, _ := s.sim.Entry(cliConn, id)
	require.Equal(t, partnersim.StatusAcknowledged, st.Status)

	code, out, errOut = s.run(t, "", "fetch", "--next", "--json")
	require.Equal(t, exitOK, code)
	require.Equal(t, true, decodeJSON[map[string]any](t, out)["empty"])
	require.Contains(t, errOut, "no due deliveries")
}

// chunkingProxy serves the simulator through a reverse proxy that hands
// payload bodies on in flushed 1 KiB chunks with short pauses, like a
// slow link, and counts the chunks.
func chunkingProxy(t *testing.T, target string) (string, *atomic.Int64) {
	u, err := url.Parse(target)
	require.NoError(t, err)
	chunks := &atomic.Int64{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1 // flush after every write
	rp.ModifyResponse = func(r *http.Response) error {
		if strings.HasSuffix(r.Request.URL.Path, "/payload") {
			r.Body = &chunkedBody{rc: r.Body, chunks: chunks}
		}
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.URL, chunks
}

type chunkedBody struct {
	rc     io.ReadCloser
	chunks *atomic.Int64
}

func (b *chunkedBody) Read(p []byte) (int, error) {
	if len(p) > 1024 {
		p = p[:1024]
	}
	n, err := b.rc.Read(p)
	if n > 0 && b.chunks.Add(1)%4 == 0 {
		time.Sleep(time.Millisecond)
	}
	return n, err
}

func (b *chunkedBody) Close() error { return b.rc.Close() }

func TestFetchHumanOutputAndProgress(t *testing.T) {
	s := newSimEnv(t)
	pretendTerminal(t)
	data := ediPayload(2 << 20)
	id := s.add(t, "CONTRL", data, partnersim.PayloadFault{})
	proxy, chunks := chunkingProxy(t, s.srv.URL)
	start := time.Now()
	code, out, errOut := runCmd(t, "", s.env, "fetch", id, "--ack", "--url", proxy, "--connection", cliConn)
	elapsed := time.Since(start)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "delivery      "+id+" (CONTRL)")
	require.Contains(t, out, checksLine("ok", "ok", "ok", "ok", "ok", "ok"))
	require.Contains(t, out, "acknowledged  receipt ")
	require.Contains(t, errOut, "\r\x1b[K"+id)
	require.Contains(t, errOut, "100%")

	redraws, n := strings.Count(errOut, "\r"), chunks.Load()
	require.GreaterOrEqual(t, n, int64(len(data)/1024), "the payload arrived in many small chunks")
	require.GreaterOrEqual(t, redraws, 2, "drawn while running and once at the end")
	require.Less(t, redraws*20, int(n), "redrawn on a tick, not per chunk")
	require.LessOrEqual(t, redraws, int(elapsed/progressInterval)+2, "at most ~10 Hz plus the final state")
}

// checksLine is the human output's checks line for the six states in
// order: sizeHeader, sizeListing, hashHeader, hashListing, trailer, stored.
func checksLine(words ...string) string {
	names := []string{"sizeHeader", "sizeListing", "hashHeader", "hashListing", "trailer", "stored"}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + words[i]
	}
	return "checks        " + strings.Join(parts, ", ") + "\n"
}

func TestFetchFailuresExitCodes(t *testing.T) {
	data := ediPayload(64 << 10)
	const ok, bad, no = "passed", "failed", "not run"
	for _, tc := range []struct {
		name   string
		fault  partnersim.PayloadFault
		ep     *partnersim.EndpointFault
		code   int
		states []string // sizeHeader, sizeListing, hashHeader, hashListing, trailer, stored
		errMsg string
	}{
		{name: "hash header", fault: partnersim.PayloadFault{WrongHashHeader: true}, code: exitIntegrity, states: []string{ok, ok, bad, ok, ok, no}, errMsg: "hashHeader failed"},
		{name: "listing size", fault: partnersim.PayloadFault{WrongListingSize: true}, code: exitIntegrity, states: []string{ok, bad, ok, ok, ok, no}, errMsg: "sizeListing failed"},
		{name: "trailer failed", fault: partnersim.PayloadFault{Trailer: partnersim.TrailerFailed}, code: exitIntegrity, states: []string{ok, ok, ok, ok, bad, no}, errMsg: "trailer failed"},
		{name: "truncated", fault: partnersim.PayloadFault{Truncate: true, TruncateAt: 1000}, code: exitIntegrity, states: []string{bad, bad, bad, bad, bad, no}, errMsg: "sizeHeader failed"},
		{name: "reset", fault: partnersim.PayloadFault{Reset: true, ResetAt: 1000}, code: exitIntegrity, states: []string{bad, bad, bad, bad, bad, no}, errMsg: "read failed"},
		{name: "payload 500", ep: &partnersim.EndpointFault{Endpoint: partnersim.EndpointPayload, Status: 500}, code: exitAPI, states: []string{no, no, no, no, no, no}, errMsg: "ERR_B2B_EXCHANGE_INTERNAL"},
		{name: "payload 503", ep: &partnersim.EndpointFault{Endpoint: partnersim.EndpointPayload, Status: 503, Times: 20}, code: exitAPI, states: []string{no, no, no, no, no, no}, errMsg: "ERR_B2B_EXCHANGE_UNAVAILABLE"},
		{name: "claim conflict", ep: &partnersim.EndpointFault{Endpoint: partnersim.EndpointClaim, Status: 409}, code: exitAPI, states: []string{no, no, no, no, no, no}, errMsg: "ERR_B2B_EXCHANGE_CONFLICT"},
		// The payload header announces 10^15 bytes over an endless body:
		// refused before a byte is read, so only that size check ran.
		{name: "hostile size header", ep: &partnersim.EndpointFault{Endpoint: partnersim.EndpointPayload, Payload: partnersim.PayloadFault{AnnounceSize: 1e15, Endless: true}},
			code: exitIntegrity, states: []string{bad, no, no, no, no, no}, errMsg: "announces 1000000000000000 bytes, more than the contract's 16 MiB limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSimEnv(t)
			id := s.add(t, "ORDRSP", data, tc.fault)
			if tc.ep != nil {
				s.sim.InjectFault(*tc.ep)
			}
			code, out, errOut := s.run(t, "", "fetch", id, "--ack", "--json")
			require.Equal(t, tc.code, code, errOut)
			j := decodeJSON[map[string]any](t, out)
			names := []string{"sizeHeader", "sizeListing", "hashHeader", "hashListing", "trailer", "stored"}
			wantStates, wantBools := map[string]any{}, map[string]any{}
			for i, n := range names {
				wantStates[n] = tc.states[i]
				wantBools[n] = tc.states[i] == ok
			}
			require.Equal(t, wantStates, j["checkStates"], "failed only where a check ran and failed")
			require.Equal(t, wantBools, j["checks"], "the bools stay: true only when passed")
			require.Equal(t, false, j["acknowledged"])
			require.Contains(t, j["error"], tc.errMsg)
			require.Contains(t, errOut, tc.errMsg)
			require.Contains(t, errOut, "not acknowledged")
			require.Zero(t, s.sim.RequestCount(partnersim.EndpointAcknowledge, ""), "no acknowledge sent")
			require.Empty(t, s.deliveryFiles(t), "nothing stored")

			code, _, _ = s.run(t, "", "fetch", id, "--ack")
			if tc.name != "claim conflict" {
				require.Equal(t, exitAPI, code, "still leased: not listed")
			}

			id2 := s.add(t, "ORDRSP", data, tc.fault) // the human output of the same failure
			if tc.ep != nil {
				s.sim.InjectFault(*tc.ep)
			}
			code, out, _ = s.run(t, "", "fetch", id2, "--ack")
			require.Equal(t, tc.code, code)
			words := map[string]string{ok: "ok", bad: "FAILED", no: "not run"}
			var line []string
			for _, st := range tc.states {
				line = append(line, words[st])
			}
			require.Contains(t, out, checksLine(line...))
			require.Contains(t, out, "acknowledged  no")
		})
	}
}

func TestFetchStorageFailures(t *testing.T) {
	data := ediPayload(32 << 10)
	t.Run("data dir is a file", func(t *testing.T) {
		s := newSimEnv(t)
		id := s.add(t, "ORDRSP", data, partnersim.PayloadFault{})
		require.NoError(t, os.WriteFile(s.dataDir, nil, 0o600))
		code, _, errOut := s.run(t, "", "fetch", id, "--ack")
		require.Equal(t, exitStorage, code, errOut)
		require.Zero(t, s.sim.RequestCount(partnersim.EndpointClaim, ""), "nothing claimed")
	})
	t.Run("different bytes already stored under the id", func(t *testing.T) {
		s := newSimEnv(t)
		id := s.add(t, "ORDRSP", data, partnersim.PayloadFault{})
		st, err := spool.Open(s.dataDir)
		require.NoError(t, err)
		w, err := st.Begin(cliConn, id)
		require.NoError(t, err)
		_, _ = w.Write([]byte("other"))
		_, err = w.Commit(spool.Meta{Size: 5, SHA256: sha([]byte("other"))})
		require.NoError(t, err)

		code, out, errOut := s.run(t, "", "fetch", id, "--ack", "--json")
		require.Equal(t, exitStorage, code, errOut)
		j := decodeJSON[map[string]any](t, out)
		require.Equal(t, "store", j["failedStep"])
		require.Equal(t, true, j["checks"].(map[string]any)["hashHeader"], "the download itself verified")
		require.Contains(t, errOut, "stored copy is kept")
		require.Zero(t, s.sim.RequestCount(partnersim.EndpointAcknowledge, ""))

		id2 := s.add(t, "ORDRSP", data, partnersim.PayloadFault{}) // the human output of a real store failure
		w, err = st.Begin(cliConn, id2)
		require.NoError(t, err)
		_, _ = w.Write([]byte("other"))
		_, err = w.Commit(spool.Meta{Size: 5, SHA256: sha([]byte("other"))})
		require.NoError(t, err)
		code, out, _ = s.run(t, "", "fetch", id2, "--ack")
		require.Equal(t, exitStorage, code)
		require.Contains(t, out, checksLine("ok", "ok", "ok", "ok", "ok", "FAILED"))
	})
	t.Run("out dir unusable", func(t *testing.T) {
		s := newSimEnv(t)
		id := s.add(t, "ORDRSP", data, partnersim.PayloadFault{})
		bad := filepath.Join(t.TempDir(), "file")
		require.NoError(t, os.WriteFile(bad, nil, 0o600))
		code, out, errOut := s.run(t, "", "fetch", id, "--ack", "--out", bad, "--json")
		require.Equal(t, exitStorage, code, errOut)
		require.Equal(t, "export", decodeJSON[map[string]any](t, out)["failedStep"])
		require.Contains(t, errOut, "choose another --out directory")
		require.Contains(t, errOut, "no lease or attempt was spent")
		require.Zero(t, s.sim.RequestCount(partnersim.EndpointClaim, ""), "checked before claiming")
		st, _ := s.sim.Entry(cliConn, id)
		require.Zero(t, st.Attempts)
	})
}

// TestFetchPassesOverBadEntries: entries the client refuses (a bad hash,
// the ID "..", a size above 16 MiB) are reported and passed over by fetch
// --next and fetch ID alike; the valid ones are fetched and acknowledged.
func TestFetchPassesOverBadEntries(t *testing.T) {
	s := newSimEnv(t)
	bad, err := s.sim.AddEntry(cliConn, partnersim.Delivery{MessageType: "ORDRSP", Payload: []byte("x"), Fault: partnersim.PayloadFault{MalformedListingHash: true}})
	require.NoError(t, err)
	_, err = s.sim.AddEntry(cliConn, partnersim.Delivery{ID: "..", MessageType: "ORDRSP", Payload: []byte("x")})
	require.NoError(t, err)
	big, err := s.sim.AddEntry(cliConn, partnersim.Delivery{MessageType: "ORDRSP", Payload: []byte("x"), Fault: partnersim.PayloadFault{AnnounceSize: apiclient.MaxPayloadSize + 1}})
	require.NoError(t, err)
	good := s.add(t, "ORDRSP", ediPayload(4096), partnersim.PayloadFault{})
	good2 := s.add(t, "ORDRSP", ediPayload(4096), partnersim.PayloadFault{})
	reported := func(t *testing.T, errOut string) {
		t.Helper()
		require.Contains(t, errOut, "3 listed deliveries cannot be processed safely and are left out")
		require.Contains(t, errOut, bad+": ")
		require.Contains(t, errOut, "..: ")
		require.Contains(t, errOut, big+": ")
		require.Contains(t, errOut, "16 MiB")
	}

	code, out, errOut := s.run(t, "", "fetch", "--next", "--ack", "--json")
	require.Equal(t, exitOK, code, errOut)
	j := decodeJSON[map[string]any](t, out)
	require.Equal(t, good, j["deliveryAttemptId"], "the valid entry is fetched despite the bad ones before it")
	require.Equal(t, true, j["acknowledged"])
	require.Len(t, j["skipped"], 3)
	reported(t, errOut)

	code, out, errOut = s.run(t, "", "fetch", good2, "--ack")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "acknowledged  receipt ", "fetch ID processes a valid entry listed after bad ones")
	reported(t, errOut)

	code, _, errOut = s.run(t, "", "fetch", big, "--ack")
	require.Equal(t, exitAPI, code)
	require.Contains(t, errOut, "cannot process it safely")
	require.Contains(t, errOut, "16 MiB")
	require.NotContains(t, errOut, "not in the mailbox listing")
	require.Zero(t, s.sim.RequestCount(partnersim.EndpointClaim, big), "no lease spent on it")
	require.Zero(t, s.sim.RequestCount(partnersim.EndpointClaim, bad))
	require.Zero(t, s.sim.RequestCount(partnersim.EndpointClaim, ".."))
	require.Equal(t, 2, s.sim.RequestCount(partnersim.EndpointClaim, ""), "only the valid entries were claimed")

	code, out, _ = s.run(t, "", "fetch", "--next", "--json")
	require.Equal(t, exitOK, code)
	e := decodeJSON[map[string]any](t, out)
	require.Equal(t, true, e["empty"], "only refused entries are left")
	require.Len(t, e["skipped"], 3)
}

// TestFetchJSONEscapesDEL: fetch --json escapes DEL (0x7f) in server
// strings as \u007f like every other control; the human output drops it.
func TestFetchJSONEscapesDEL(t *testing.T) {
	s := newSimEnv(t)
	id, err := s.sim.AddEntry(cliConn, partnersim.Delivery{ID: "da-\x7f-del", MessageType: "ORD\x7fRSP", Payload: ediPayload(1024)})
	require.NoError(t, err)
	code, out, errOut := s.run(t, "", "fetch", id, "--json")
	require.Equal(t, exitOK, code, errOut)
	require.NotContains(t, out, "\x7f")
	require.Contains(t, out, `"deliveryAttemptId": "da-\u007f-del"`)
	require.Contains(t, out, `"messageType": "ORD\u007fRSP"`)
	j := decodeJSON[fetchJSON](t, out)
	require.Equal(t, id, j.DeliveryAttemptID, "JSON keeps the exact value")

	id2, err := s.sim.AddEntry(cliConn, partnersim.Delivery{ID: "db-\x7f-del", MessageType: "ORD\x7fRSP", Payload: ediPayload(1024)})
	require.NoError(t, err)
	code, out, errOut = s.run(t, "", "fetch", id2)
	require.Equal(t, exitOK, code, errOut)
	require.NotContains(t, out+errOut, "\x7f")
}

// TestFetchStopsWhenRetryWouldOutliveLease: the payload answers 503 with
// Retry-After: 3600 during a five-minute lease. fetch does not wait an
// hour: it stops at once, says the entry becomes due again, and
// acknowledges nothing.
func TestFetchStopsWhenRetryWouldOutliveLease(t *testing.T) {
	s := newSimEnv(t)
	cliRetry = apiclient.RetryPolicy{} // the contract schedule
	id := s.add(t, "ORDRSP", ediPayload(4096), partnersim.PayloadFault{})
	s.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointPayload, Status: 503, RetryAfter: time.Hour})
	// --timeout only bounds the test: without the lease rule the deadline
	// would refuse the hour instead, with another message.
	code, out, errOut := s.run(t, "", "fetch", id, "--ack", "--json", "--timeout", "2m")
	require.Equal(t, exitAPI, code, errOut)
	require.NotContains(t, errOut, "next attempt at", "no retry announced")
	for _, w := range []string{"not retrying: the next attempt in 1h0m0s", "would end after the claim's lease", "nothing was acknowledged", "becomes due again"} {
		require.Contains(t, errOut, w)
	}
	j := decodeJSON[fetchJSON](t, out)
	require.False(t, j.Acknowledged)
	require.Equal(t, "download", j.FailedStep)
	for name, st := range j.CheckStates {
		require.Equal(t, "not run", string(st), name)
	}
	require.Equal(t, 1, s.sim.RequestCount(partnersim.EndpointPayload, id), "one attempt")
	require.Zero(t, s.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
	require.Empty(t, s.deliveryFiles(t), "nothing stored")
	require.NotContains(t, out+errOut, cliCanarySecret)
	require.NotContains(t, out+errOut, cliCanaryToken)
}

// TestFetchStopsEndlessPaging: fetch ID pages through the mailbox to find
// the entry; a server whose paging never ends stops it with a clear
// message (it looped forever), and nothing is claimed.
func TestFetchStopsEndlessPaging(t *testing.T) {
	s := newSimEnv(t)
	unlimited(t)
	s.add(t, "ORDRSP", ediPayload(1024), partnersim.PayloadFault{})
	s.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointList, Paging: partnersim.PagingEndless})
	code, _, errOut := s.run(t, "", "fetch", "not-listed", "--ack")
	require.Equal(t, exitAPI, code, errOut)
	require.Contains(t, errOut, "mailbox paging does not end: stopped after 1000 pages")
	require.Equal(t, apiclient.MaxPages, s.sim.RequestCount(partnersim.EndpointList, ""))
	require.Zero(t, s.sim.RequestCount(partnersim.EndpointClaim, ""))
}

func TestFetchOut(t *testing.T) {
	s := newSimEnv(t)
	data := ediPayload(10 << 10)
	id := s.add(t, "APERAK", data, partnersim.PayloadFault{})
	outDir := filepath.Join(t.TempDir(), "inbox")
	code, out, errOut := s.run(t, "", "fetch", "--next", "--ack", "--out", outDir, "--json")
	require.Equal(t, exitOK, code, errOut)
	j := decodeJSON[map[string]any](t, out)
	require.Equal(t, filepath.Join(outDir, id+".edi"), j["out"])
	got, err := os.ReadFile(j["out"].(string))
	require.NoError(t, err)
	require.Equal(t, data, got)
	require.NotEqual(t, j["out"], j["path"], "a copy, the spool keeps its own")
}

func TestFetchUsage(t *testing.T) {
	s := newSimEnv(t)
	for _, args := range [][]string{{"fetch"}, {"fetch", "a", "--next"}, {"fetch", "a", "b"}} {
		code, _, errOut := s.run(t, "", args...)
		require.Equal(t, exitUsage, code, args)
		require.Contains(t, errOut, "exactly one delivery ID, or --next")
	}
	code, _, _ := s.run(t, "", "fetch", "-h")
	require.Equal(t, exitOK, code)
}
