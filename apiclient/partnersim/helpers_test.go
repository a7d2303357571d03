package partnersim

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Canary credentials: if these strings ever show up in a log, an audit
// record or an error text, a test fails.
const (
	tenantA      = "tenant-a"
	tenantB      = "tenant-b"
	connA        = "conn-a"
	connA2       = "conn-a2"
	connB        = "conn-b"
	keyAll       = "key-all"
	secretAll    = "CANARY-SECRET-all-9f8e7d"
	keyInbox     = "key-inbox"
	secretInbox  = "CANARY-SECRET-inbox-1a2b"
	keyMailbox   = "key-mailbox"
	secretMbox   = "CANARY-SECRET-mailbox-3c4d"
	keyB         = "key-b"
	secretB      = "CANARY-SECRET-b-5e6f"
	keyOnlyA2    = "key-only-a2"
	secretOnlyA2 = "CANARY-SECRET-a2-7a8b"
	tokenPrefix  = "CANARY-TOKEN-"
)

var modes = []struct {
	name string
	mode Mode
}{{"http1", HTTP1}, {"http2", HTTP2TLS}}

type fixture struct {
	sim   *Sim
	srv   *Server
	clock *FakeClock
	hc    *http.Client
}

// newFixture serves a Sim with two tenants: tenant-a owns conn-a and
// conn-a2, tenant-b owns conn-b. Claim tokens are canaries.
// inEachMode runs test once per transport (modes), each on its own
// simulator.
func inEachMode(t *testing.T, test func(t *testing.T, f *fixture)) {
	t.Helper()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) { test(t, newFixture(t, m.mode)) })
	}
}

func newFixture(t *testing.T, mode Mode, opts ...Option) *fixture {
	t.Helper()
	clock := NewFakeClock(time.Time{})
	opts = append([]Option{WithClock(clock), WithTokens(SequentialTokens(tokenPrefix)), WithResponder(nil)}, opts...)
	sim := New(opts...)
	for _, c := range []Connection{{ID: connA, Tenant: tenantA}, {ID: connA2, Tenant: tenantA}, {ID: connB, Tenant: tenantB}} {
		require.NoError(t, sim.AddConnection(c))
	}
	for _, k := range []Key{
		{ID: keyAll, Secret: secretAll, Tenant: tenantA, Scopes: AllScopes},
		{ID: keyInbox, Secret: secretInbox, Tenant: tenantA, Scopes: []string{ScopeInboxCreate}, Connections: []string{connA}},
		{ID: keyMailbox, Secret: secretMbox, Tenant: tenantA, Scopes: MailboxScopes, Connections: []string{connA}},
		{ID: keyB, Secret: secretB, Tenant: tenantB, Scopes: AllScopes},
		{ID: keyOnlyA2, Secret: secretOnlyA2, Tenant: tenantA, Scopes: AllScopes, Connections: []string{connA2}},
	} {
		require.NoError(t, sim.AddKey(k))
	}
	srv, err := Serve(sim, mode)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return &fixture{sim: sim, srv: srv, clock: clock, hc: srv.Client()}
}

func (f *fixture) url(conn string, parts ...string) string {
	return f.srv.URL + BasePath + "/" + conn + "/" + strings.Join(parts, "/")
}

type req struct {
	method, url string
	auth        string // full Authorization value; "" for none
	token       string
	header      map[string]string
	body        io.Reader
}

func bearer(id, sec string) string { return "Bearer " + id + ":" + sec }

var authAll = bearer(keyAll, secretAll)

// send performs r and returns the response with its body read to EOF.
func (f *fixture) send(t *testing.T, r req) (*http.Response, []byte) {
	t.Helper()
	hr, err := http.NewRequestWithContext(context.Background(), r.method, r.url, r.body)
	require.NoError(t, err)
	if r.auth != "" {
		hr.Header.Set("Authorization", r.auth)
	}
	if r.token != "" {
		hr.Header.Set("X-B2B-Claim-Token", r.token)
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	resp, err := f.hc.Do(hr)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

type listResp struct {
	Data []struct {
		DeliveryAttemptID string `json:"deliveryAttemptId"`
		InterchangeID     string `json:"interchangeId"`
		MessageType       string `json:"messageType"`
		PayloadSize       int64  `json:"payloadSize"`
		PayloadSHA256     string `json:"payloadSha256"`
		Status            string `json:"status"`
		CreatedAt         string `json:"createdAt"`
	} `json:"data"`
	Meta struct {
		HasMore    bool   `json:"hasMore"`
		NextCursor string `json:"nextCursor"`
	} `json:"meta"`
}

func (f *fixture) list(t *testing.T, conn, query string) listResp {
	t.Helper()
	resp, body := f.send(t, req{method: http.MethodGet, url: f.url(conn, "mailbox") + query, auth: authAll})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var lr listResp
	require.NoError(t, json.Unmarshal(body, &lr))
	return lr
}

type claimResp struct {
	DeliveryAttemptID string `json:"deliveryAttemptId"`
	ClaimToken        string `json:"claimToken"`
	ExpiresAt         string `json:"expiresAt"`
}

func (f *fixture) claim(t *testing.T, conn, id string) claimResp {
	t.Helper()
	resp, body := f.send(t, req{method: http.MethodPost, url: f.url(conn, "mailbox", id, "claim"), auth: authAll})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var cr claimResp
	require.NoError(t, json.Unmarshal(body, &cr))
	return cr
}

type ackResp struct {
	DeliveryAttemptID string `json:"deliveryAttemptId"`
	ReceiptID         string `json:"receiptId"`
	AcknowledgedAt    string `json:"acknowledgedAt"`
	Replay            bool   `json:"replay"`
}

func (f *fixture) ack(t *testing.T, conn, id, token string) (int, ackResp) {
	t.Helper()
	resp, body := f.send(t, req{method: http.MethodPost, url: f.url(conn, "mailbox", id, "acknowledge"), auth: authAll, token: token})
	var ar ackResp
	if resp.StatusCode == http.StatusOK {
		require.NoError(t, json.Unmarshal(body, &ar))
	}
	return resp.StatusCode, ar
}

// requireError asserts the contract error body.
func requireError(t *testing.T, resp *http.Response, body []byte, status int, code string) {
	t.Helper()
	require.Equal(t, status, resp.StatusCode, string(body))
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var eb struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&eb), string(body))
	require.Equal(t, code, eb.Error.Code)
	require.NotEmpty(t, eb.Error.Message)
}

// payload builds n deterministic bytes that look like EDIFACT segments.
func payload(n int) []byte {
	seg := []byte("LIN+1++4000862141404:SRS'QTY+21:48'")
	out := make([]byte, n)
	for i := range out {
		out[i] = seg[i%len(seg)]
	}
	return out
}

func (f *fixture) addEntry(t *testing.T, conn string, p []byte, fault PayloadFault) string {
	t.Helper()
	id, err := f.sim.AddEntry(conn, Delivery{MessageType: "ORDRSP", Payload: p, Fault: fault})
	require.NoError(t, err)
	return id
}

// timeZero makes NewFakeClock start at its fixed default.
var timeZero time.Time
