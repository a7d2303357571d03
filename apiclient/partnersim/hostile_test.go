package partnersim

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPagingFaults: each paging fault breaks the cursor contract the way
// its name says, with the real entries on the page.
func TestPagingFaults(t *testing.T) {
	f := newFixture(t, HTTP1)
	var ids []string
	for range 3 {
		ids = append(ids, f.addEntry(t, connA, payload(10), PayloadFault{}))
	}
	listed := func(lr listResp) []string {
		var out []string
		for _, d := range lr.Data {
			out = append(out, d.DeliveryAttemptID)
		}
		return out
	}

	t.Run("endless", func(t *testing.T) {
		f.sim.InjectFault(EndpointFault{Endpoint: EndpointList, Paging: PagingEndless})
		defer f.sim.ClearFaults()
		seen := map[string]bool{}
		var got []string
		cursor := ""
		for range 7 {
			lr := f.list(t, connA, "?limit=2"+cursor)
			require.True(t, lr.Meta.HasMore)
			require.NotEmpty(t, lr.Meta.NextCursor)
			require.False(t, seen[lr.Meta.NextCursor], "every cursor is new")
			seen[lr.Meta.NextCursor] = true
			got = append(got, listed(lr)...)
			cursor = "&cursor=" + lr.Meta.NextCursor
		}
		// Pages of 2 over 3 entries: [0 1] [2] [0 1] [2] ...
		require.Equal(t, []string{ids[0], ids[1], ids[2], ids[0], ids[1], ids[2], ids[0], ids[1], ids[2], ids[0], ids[1]}, got)
		f.sim.ClearFaults()
		lr := f.list(t, connA, "?limit=2"+cursor)
		require.False(t, lr.Meta.HasMore, "without the fault the endless cursor ends the listing")
	})
	t.Run("repeat cursor", func(t *testing.T) {
		f.sim.InjectFault(EndpointFault{Endpoint: EndpointList, Paging: PagingRepeatCursor})
		defer f.sim.ClearFaults()
		first := f.list(t, connA, "?limit=1")
		second := f.list(t, connA, "?limit=1&cursor="+first.Meta.NextCursor)
		require.True(t, second.Meta.HasMore)
		require.Equal(t, first.Meta.NextCursor, second.Meta.NextCursor)
		require.Equal(t, []string{ids[0]}, listed(second))
	})
	t.Run("no cursor", func(t *testing.T) {
		f.sim.InjectFault(EndpointFault{Endpoint: EndpointList, Paging: PagingNoCursor, Times: 1})
		resp, body := f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox"), auth: authAll})
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.JSONEq(t, `{"hasMore":true,"nextCursor":""}`, string(mustMember(t, body, "meta")))
		require.False(t, f.list(t, connA, "").Meta.HasMore, "Times: 1")
	})
}

func mustMember(t *testing.T, body []byte, name string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &m))
	return m[name]
}

// TestHostileListingFaults: hostile IDs and listing values are sent as
// given, and an announced size reaches the payload header too.
func TestHostileListingFaults(t *testing.T) {
	f := newFixture(t, HTTP1)
	_, err := f.sim.AddEntry(connA, Delivery{ID: "..", MessageType: "ORDRSP", Payload: payload(5)})
	require.NoError(t, err)
	huge := f.addEntry(t, connA, payload(10), PayloadFault{AnnounceSize: 1e15})
	neg := f.addEntry(t, connA, payload(10), PayloadFault{AnnounceSize: -3})
	f.addEntry(t, connA, payload(10), PayloadFault{OmitListingSize: true})
	f.addEntry(t, connA, payload(10), PayloadFault{MalformedListingHash: true})

	resp, body := f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox"), auth: authAll})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var raw struct {
		Data []map[string]any `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &raw))
	require.Len(t, raw.Data, 5)
	require.Equal(t, "..", raw.Data[0]["deliveryAttemptId"])
	require.Equal(t, 1e15, raw.Data[1]["payloadSize"])
	require.Equal(t, -3.0, raw.Data[2]["payloadSize"])
	require.NotContains(t, raw.Data[3], "payloadSize")
	require.Len(t, raw.Data[4]["payloadSha256"], 64)
	require.Equal(t, "zz", raw.Data[4]["payloadSha256"].(string)[:2])

	for id, want := range map[string]string{huge: "1000000000000000", neg: "-3"} {
		cr := f.claim(t, connA, id)
		resp, body := f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox", id, "payload"), auth: authAll, token: cr.ClaimToken})
		require.Equal(t, want, resp.Header.Get("X-B2B-Payload-Size"))
		require.Equal(t, payload(10), body, "the body itself is unchanged")
		require.Equal(t, "verified", resp.Trailer.Get(TrailerIntegrity))
	}
}

// TestEndlessPayload: the body goes on well past the payload, repeating
// it, until the client hangs up; the server audits a failed read.
func TestEndlessPayload(t *testing.T) {
	inEachMode(t, func(t *testing.T, f *fixture) {
		p := payload(1000)
		id := f.addEntry(t, connA, p, PayloadFault{Endless: true, AnnounceSize: 1e15})
		cr := f.claim(t, connA, id)
		hr, err := http.NewRequest(http.MethodGet, f.url(connA, "mailbox", id, "payload"), nil)
		require.NoError(t, err)
		hr.Header.Set("Authorization", authAll)
		hr.Header.Set("X-B2B-Claim-Token", cr.ClaimToken)
		resp, err := f.hc.Do(hr)
		require.NoError(t, err)
		want := int64(4 << 20) // far past the 1000-byte payload
		buf := make([]byte, 2*len(p))
		br := bufio.NewReader(io.LimitReader(resp.Body, want))
		var n int64
		for {
			k, err := io.ReadFull(br, buf)
			m := min(k, len(p))
			require.Equal(t, p[:m], buf[:m], "offset %d", n)
			n += int64(k)
			if err != nil {
				break
			}
		}
		require.Equal(t, want, n)
		require.NoError(t, resp.Body.Close())
		require.Eventually(t, func() bool {
			for _, ev := range f.sim.Audit() {
				if ev.Action == AuditPayloadDone {
					return ev.Outcome == "failed"
				}
			}
			return false
		}, 5*time.Second, time.Millisecond)
	})
}

// TestRetryAfterHeaderRaw: the raw Retry-After goes out as given, on any
// endpoint.
func TestRetryAfterHeaderRaw(t *testing.T) {
	f := newFixture(t, HTTP1)
	id := f.addEntry(t, connA, payload(10), PayloadFault{})
	for _, v := range []string{"Wed, 21 Oct 2099 07:28:00 GMT", "99999999999", "soon"} {
		f.sim.InjectFault(EndpointFault{Endpoint: EndpointClaim, Times: 1, Status: 503, RetryAfter: 5 * time.Second, RetryAfterHeader: v})
		resp, body := f.send(t, req{method: http.MethodPost, url: f.url(connA, "mailbox", id, "claim"), auth: authAll})
		requireError(t, resp, body, http.StatusServiceUnavailable, CodeUnavailable)
		require.Equal(t, v, resp.Header.Get("Retry-After"))
	}
}

// TestAddBulk: n entries, listed in order after the existing ones, with
// fresh ids, verifiable payloads and deterministic content.
func TestAddBulk(t *testing.T) {
	f := newFixture(t, HTTP1)
	first := f.addEntry(t, connA, payload(10), PayloadFault{})
	ids, err := f.sim.AddBulk(connA, 250, 7)
	require.NoError(t, err)
	require.Len(t, ids, 250)
	uniq := map[string]bool{first: true}
	for _, id := range ids {
		require.False(t, uniq[id])
		uniq[id] = true
	}
	var listed []string
	cursor := ""
	for {
		lr := f.list(t, connA, "?limit=100"+cursor)
		for _, d := range lr.Data {
			listed = append(listed, d.DeliveryAttemptID)
		}
		if !lr.Meta.HasMore {
			break
		}
		cursor = "&cursor=" + lr.Meta.NextCursor
	}
	require.Equal(t, append([]string{first}, ids...), listed)
	st := f.sim.Entries(connA)
	require.Equal(t, f.clock.Now().UTC().Truncate(time.Second), st[len(st)-1].CreatedAt, "the newest ends now")
	require.True(t, st[1].CreatedAt.Before(st[2].CreatedAt))

	cr := f.claim(t, connA, ids[100])
	resp, body := f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox", ids[100], "payload"), auth: authAll, token: cr.ClaimToken})
	require.Equal(t, strconv.Itoa(len(body)), resp.Header.Get("X-B2B-Payload-Size"))
	require.Equal(t, "verified", resp.Trailer.Get(TrailerIntegrity))
	require.Equal(t, "UNA", string(body[:3]))

	// Same seed and clock: same ids and bytes.
	g := newFixture(t, HTTP1)
	g.addEntry(t, connA, payload(10), PayloadFault{})
	again, err := g.sim.AddBulk(connA, 250, 7)
	require.NoError(t, err)
	require.Equal(t, ids, again)

	_, err = f.sim.AddBulk(connA, MaxBulk+1, 1)
	require.ErrorIs(t, err, ErrInvalid)
	_, err = f.sim.AddBulk("nope", 1, 1)
	require.ErrorIs(t, err, ErrUnknownConnection)
}
