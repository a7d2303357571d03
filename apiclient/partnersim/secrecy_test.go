package partnersim

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/nutrab2b/b2bx/internal/syncbuf"

	"github.com/stretchr/testify/require"
)

// TestLogsAndAuditHoldNoSecrets runs every endpoint (with successes,
// failures and faults) and then searches the request log, the audit log and
// the slog output for secrets, claim tokens, payload bytes and hashes.
func TestLogsAndAuditHoldNoSecrets(t *testing.T) {
	var logs syncbuf.Buffer
	f := newFixture(t, HTTP2TLS, WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	p := []byte("UNB+UNOC:3+CANARY-PAYLOAD-TEXT'")
	id := f.addEntry(t, connA, p, PayloadFault{})
	bad := f.addEntry(t, connA, payload(1000), PayloadFault{Reset: true, ResetAt: 10})

	f.list(t, connA, "?limit=1")
	cr := f.claim(t, connA, id)
	d := f.fetch(t, context.Background(), connA, id, cr.ClaimToken)
	require.Equal(t, p, d.body)
	code, _ := f.ack(t, connA, id, cr.ClaimToken)
	require.Equal(t, http.StatusOK, code)
	f.ack(t, connA, id, cr.ClaimToken)
	crBad := f.claim(t, connA, bad)
	f.fetch(t, context.Background(), connA, bad, crBad.ClaimToken)
	f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox"), auth: bearer(keyAll, secretAll+"WRONG")})
	f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox", id, "payload"), auth: authAll, token: cr.ClaimToken + "-stale"})
	f.upload(t, connA, "key-1", "application/edifact", strings.NewReader(sampleOrders))
	f.upload(t, connA, "key-1", "application/edifact", strings.NewReader(sampleOrders+"x"))

	var dump strings.Builder
	fmt.Fprintf(&dump, "%+v\n%#v\n", f.sim.Audit(), f.sim.Requests())
	for _, v := range []any{f.sim.Audit(), f.sim.Requests(), f.sim.Entries(connA)} {
		j, err := json.Marshal(v)
		require.NoError(t, err)
		dump.Write(j)
	}
	dump.WriteString(logs.String())
	all := dump.String()
	require.Contains(t, all, id, "sanity: the dump holds the entry id")
	require.Contains(t, logs.String(), `"path":"/api/v1/b2b-exchange/partner/connections/conn-a/mailbox"`)
	for _, canary := range []string{
		secretAll, "WRONG", tokenPrefix, cr.ClaimToken, crBad.ClaimToken,
		"CANARY-PAYLOAD-TEXT", hexSum(p), hexSum(payload(1000)), hexSum([]byte(sampleOrders)), "LIN+1",
	} {
		require.NotContains(t, all, canary)
	}
	require.Equal(t, 2, countAudit(f.sim, AuditPayloadOpened))
}

func countAudit(s *Sim, action string) int {
	n := 0
	for _, ev := range s.Audit() {
		if ev.Action == action {
			n++
		}
	}
	return n
}

func TestCorrelationIDEchoedAndLogged(t *testing.T) {
	f := newFixture(t, HTTP1)
	for _, tc := range []struct{ sent, want string }{
		{"op-1234", "op-1234"},
		{"has space", ""},
		{"caf\u00e9", ""},
		{strings.Repeat("x", 129), ""},
	} {
		resp, _ := f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox"), auth: authAll,
			header: map[string]string{"X-Correlation-ID": tc.sent}})
		require.Equal(t, tc.want, resp.Header.Get("X-Correlation-ID"))
		recs := f.sim.Requests()
		require.Equal(t, tc.want, recs[len(recs)-1].CorrelationID)
	}
	f.sim.ResetLogs()
	require.Empty(t, f.sim.Requests())
	require.Empty(t, f.sim.Audit())
}

// TestServerKeepsOnlyHashes: after claims and uploads, neither a claim
// token nor an API secret is anywhere in the simulator's own state.
func TestServerKeepsOnlyHashes(t *testing.T) {
	f := newFixture(t, HTTP1)
	id := f.addEntry(t, connA, payload(10), PayloadFault{})
	cr := f.claim(t, connA, id)
	code, _ := f.ack(t, connA, id, cr.ClaimToken)
	require.Equal(t, http.StatusOK, code)
	f.sim.mu.Lock()
	var state strings.Builder
	for _, c := range f.sim.conns {
		for _, e := range c.entries {
			fmt.Fprintf(&state, "%#v\n", *e)
		}
	}
	for _, k := range f.sim.keys {
		fmt.Fprintf(&state, "%#v\n", *k)
	}
	f.sim.mu.Unlock()
	require.NotContains(t, state.String(), cr.ClaimToken)
	require.NotContains(t, state.String(), tokenPrefix)
	for _, s := range []string{secretAll, secretInbox, secretMbox, secretB, secretOnlyA2} {
		require.NotContains(t, state.String(), s)
	}
	require.Contains(t, state.String(), id, "sanity: the dump is of the right state")
}

func TestConcurrentClaimsOneWins(t *testing.T) {
	f := newFixture(t, HTTP2TLS)
	id := f.addEntry(t, connA, payload(10), PayloadFault{})
	const n = 8
	codes := make(chan int, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			hr, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, f.url(connA, "mailbox", id, "claim"), nil)
			hr.Header.Set("Authorization", authAll)
			resp, err := f.hc.Do(hr)
			if err != nil {
				codes <- -1
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		})
	}
	wg.Wait()
	close(codes)
	count := map[int]int{}
	for c := range codes {
		count[c]++
	}
	require.Equal(t, map[int]int{http.StatusOK: 1, http.StatusConflict: n - 1}, count)
}
