package partnersim

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func canarySecrets(id string) string { return "CANARY-DEMO-" + id }

func TestSeedDemo(t *testing.T) {
	sim := New(WithClock(NewFakeClock(timeZero)))
	d, err := SeedDemo(sim, DemoOptions{Secret: canarySecrets, LargeCopies: 3})
	require.NoError(t, err)
	require.Len(t, d.LargeAll, 3)
	require.Equal(t, d.Large, d.LargeAll[0])
	require.Same(t, &sim.conns[d.Large.ConnectionID].byID[d.LargeAll[0].DeliveryAttemptID].payload[0],
		&sim.conns[d.Large.ConnectionID].byID[d.LargeAll[2].DeliveryAttemptID].payload[0], "copies share one []byte")
	require.Len(t, d.Connections, 2)
	require.Equal(t, "acme-de", d.Connections[0].Name)
	require.Equal(t, "acme-at", d.Connections[1].Name)
	require.Equal(t, 128+3, d.Entries)

	types := map[string]int{}
	s009 := map[string]int{}
	unh := regexp.MustCompile(`UNH\+[^+]+\+([A-Z]+:[A-Z0-9]+:[A-Z0-9]+:UN)`)
	total := 0
	for _, c := range d.Connections {
		require.Equal(t, "CANARY-DEMO-"+c.Key.ID, c.Key.Secret)
		require.ElementsMatch(t, AllScopes, c.Key.Scopes)
		require.Equal(t, []string{ScopeInboxCreate}, c.InboxKey.Scopes)
		require.ElementsMatch(t, MailboxScopes, c.MailboxKey.Scopes)
		for _, st := range sim.Entries(c.ConnectionID) {
			total++
			types[st.MessageType]++
		}
		for _, e := range sim.conns[c.ConnectionID].entries {
			require.True(t, bytes.HasPrefix(e.payload, []byte("UNA")), e.id)
			m := unh.FindSubmatch(e.payload)
			require.NotNil(t, m, e.id)
			s009[string(m[1])]++
		}
	}
	require.Equal(t, d.Entries, total)
	require.Greater(t, types["ORDRSP"], 40)
	require.Greater(t, types["CONTRL"], 20)
	require.Greater(t, types["APERAK"], 20)
	for _, want := range []string{"ORDRSP:D:96A:UN", "ORDRSP:D:25A:UN", "APERAK:D:96A:UN", "APERAK:D:25A:UN", "CONTRL:2:2:UN", "CONTRL:4:1:UN"} {
		require.Greater(t, s009[want], 5, want)
	}
	require.Len(t, d.Faulty, 3)
	require.Equal(t, d.Connections[0].ConnectionID, d.Large.ConnectionID)
	large, ok := sim.Entry(d.Large.ConnectionID, d.Large.DeliveryAttemptID)
	require.True(t, ok)
	require.GreaterOrEqual(t, large.Size, int64(15<<20))
	require.Less(t, large.Size, int64(MaxPayloadSize))
	require.Equal(t, "ORDRSP", large.MessageType)

	// Deterministic content and ids apart from the secrets.
	sim2 := New(WithClock(NewFakeClock(timeZero)))
	d2, err := SeedDemo(sim2, DemoOptions{LargeSize: -1})
	require.NoError(t, err)
	require.Equal(t, d.Connections[0].ConnectionID, d2.Connections[0].ConnectionID)
	require.NotEqual(t, d.Connections[0].Key.Secret, d2.Connections[0].Key.Secret)
	require.Regexp(t, `^sk_[0-9a-f]{64}$`, d2.Connections[0].Key.Secret)
	require.Empty(t, d2.Large.DeliveryAttemptID)
	require.Equal(t, sim.conns[d.Connections[1].ConnectionID].entries[5].payload, sim2.conns[d2.Connections[1].ConnectionID].entries[5].payload)
}

// TestSeedDemoOverHTTP lists the demo mailbox with the demo keys and checks
// that the faulty deliveries misbehave as described.
func TestSeedDemoOverHTTP(t *testing.T) {
	sim := New(WithClock(NewFakeClock(timeZero)))
	d, err := SeedDemo(sim, DemoOptions{Secret: canarySecrets, LargeSize: -1})
	require.NoError(t, err)
	srv, err := Serve(sim, HTTP1)
	require.NoError(t, err)
	defer srv.Close()
	f := &fixture{sim: sim, srv: srv, hc: srv.Client()}
	c := d.Connections[0]
	auth := bearer(c.MailboxKey.ID, c.MailboxKey.Secret)
	resp, body := f.send(t, req{method: http.MethodGet, url: f.url(c.ConnectionID, "mailbox") + "?limit=100", auth: auth})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var lr listResp
	require.NoError(t, json.Unmarshal(body, &lr))
	require.Len(t, lr.Data, 64)
	for i := 1; i < len(lr.Data); i++ {
		require.Less(t, lr.Data[i-1].CreatedAt, lr.Data[i].CreatedAt, "oldest first")
	}
	// The inbox-only key cannot read this mailbox.
	resp, _ = f.send(t, req{method: http.MethodGet, url: f.url(c.ConnectionID, "mailbox"), auth: bearer(c.InboxKey.ID, c.InboxKey.Secret)})
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	for _, fe := range d.Faulty {
		resp, body := f.send(t, req{method: http.MethodPost, url: f.url(fe.ConnectionID, "mailbox", fe.DeliveryAttemptID, "claim"), auth: auth})
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var cr claimResp
		require.NoError(t, json.Unmarshal(body, &cr))
		hr, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, f.url(fe.ConnectionID, "mailbox", fe.DeliveryAttemptID, "payload"), nil)
		hr.Header.Set("Authorization", auth)
		hr.Header.Set("X-B2B-Claim-Token", cr.ClaimToken)
		dresp, err := f.hc.Do(hr)
		require.NoError(t, err)
		var buf bytes.Buffer
		_, err = buf.ReadFrom(dresp.Body)
		require.NoError(t, err)
		dresp.Body.Close()
		st, _ := sim.Entry(fe.ConnectionID, fe.DeliveryAttemptID)
		switch fe.What {
		case "hash mismatch":
			require.NotEqual(t, hexSum(buf.Bytes()), dresp.Header.Get("X-B2B-Payload-SHA256"))
		case "truncated":
			require.Less(t, int64(buf.Len()), st.Size)
			require.Equal(t, "failed", dresp.Trailer.Get(TrailerIntegrity))
		case "trailer failed":
			require.Equal(t, st.Size, int64(buf.Len()))
			require.Equal(t, "failed", dresp.Trailer.Get(TrailerIntegrity))
		default:
			t.Fatalf("unexpected fault %q", fe.What)
		}
	}
}

// TestSeedDemoIDsFollowContent: payloads carry clock dates, so a simulator
// started at another time must not reuse a delivery attempt id for other
// bytes (a client's spool refuses the second copy); the same clock gives
// the same ids and bytes.
func TestSeedDemoIDsFollowContent(t *testing.T) {
	seed := func(at time.Time) map[string]string {
		sim := New(WithClock(NewFakeClock(at)))
		d, err := SeedDemo(sim, DemoOptions{Secret: canarySecrets, LargeSize: -1})
		require.NoError(t, err)
		out := map[string]string{}
		for _, c := range d.Connections {
			for id, e := range sim.conns[c.ConnectionID].byID {
				out[id] = e.sha
			}
		}
		return out
	}
	first := seed(timeZero)
	require.Equal(t, first, seed(timeZero), "deterministic for the same clock")
	later := seed(timeZero.Add(26 * time.Hour))
	for id, sha := range later {
		if old, ok := first[id]; ok {
			require.Equal(t, old, sha, "id %s reused for different bytes", id)
		}
	}
}

// TestSeedDemoBulk: Bulk adds that many deliveries to the first connection
// only, before the big ORDRSP, and counts them.
func TestSeedDemoBulk(t *testing.T) {
	sim := New(WithClock(NewFakeClock(time.Time{})))
	d, err := SeedDemo(sim, DemoOptions{Secret: canarySecrets, PerConnection: 4, LargeSize: 1 << 10, Bulk: 10_000})
	require.NoError(t, err)
	require.Equal(t, 10_000, d.Bulk)
	require.Equal(t, 4+4+10_000+1, d.Entries)
	first := sim.Entries(d.Connections[0].ConnectionID)
	require.Len(t, first, 4+10_000+1)
	require.Equal(t, d.Large.DeliveryAttemptID, first[len(first)-1].DeliveryAttemptID, "the big ORDRSP stays the newest")
	require.Len(t, sim.Entries(d.Connections[1].ConnectionID), 4)
}
