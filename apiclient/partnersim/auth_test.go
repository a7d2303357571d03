package partnersim

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAuthMatrix: every authentication or authorization failure on every
// endpoint answers the identical 404 body, so nothing tells a caller
// whether another connection, key or entry exists.
func TestAuthMatrix(t *testing.T) {
	f := newFixture(t, HTTP1)
	id := f.addEntry(t, connA, payload(100), PayloadFault{})
	ref := []byte(`{"error":{"code":"ERR_B2B_EXCHANGE_NOT_FOUND","message":"The requested resource was not found."}}` + "\n")

	endpoints := []struct {
		ep     Endpoint
		method string
		url    string
	}{
		{EndpointInbox, http.MethodPost, f.url(connA, "inbox")},
		{EndpointList, http.MethodGet, f.url(connA, "mailbox")},
		{EndpointClaim, http.MethodPost, f.url(connA, "mailbox", id, "claim")},
		{EndpointPayload, http.MethodGet, f.url(connA, "mailbox", id, "payload")},
		{EndpointAcknowledge, http.MethodPost, f.url(connA, "mailbox", id, "acknowledge")},
	}
	failures := []struct {
		name   string
		auth   string
		except Endpoint // the one endpoint this key may use
		only   Endpoint // the one endpoint where this key lacks the scope
	}{
		{name: "no header"},
		{name: "basic scheme", auth: "Basic " + keyAll + ":" + secretAll},
		{name: "bearer without colon", auth: "Bearer " + keyAll + secretAll},
		{name: "bearer empty secret", auth: "Bearer " + keyAll + ":"},
		{name: "bearer empty id", auth: "Bearer :" + secretAll},
		{name: "unknown key", auth: bearer("key-nobody", secretAll)},
		{name: "wrong secret", auth: bearer(keyAll, secretAll+"x")},
		{name: "secret of another key", auth: bearer(keyAll, secretInbox)},
		{name: "wrong tenant", auth: bearer(keyB, secretB)},
		{name: "foreign connection of same tenant", auth: bearer(keyOnlyA2, secretOnlyA2)},
		{name: "inbox-only key on mailbox", auth: bearer(keyInbox, secretInbox), except: EndpointInbox},
		{name: "mailbox-only key on inbox", auth: bearer(keyMailbox, secretMbox), only: EndpointInbox},
	}
	for _, e := range endpoints {
		for _, fl := range failures {
			if fl.except == e.ep || (fl.only != "" && fl.only != e.ep) {
				continue
			}
			t.Run(string(e.ep)+"/"+fl.name, func(t *testing.T) {
				resp, body := f.send(t, req{method: e.method, url: e.url, auth: fl.auth, token: "whatever",
					header: map[string]string{"Content-Type": "application/edifact", "Idempotency-Key": "k1"},
					body:   bytes.NewReader([]byte("UNB+UNOC:3'"))})
				requireError(t, resp, body, http.StatusNotFound, CodeNotFound)
				require.Equal(t, ref, body)
			})
		}
	}
	// The same 404 for a connection that does not exist at all, and for
	// an unknown entry, so probing learns nothing.
	for _, u := range []string{f.url("conn-nope", "mailbox"), f.url(connA, "mailbox", "no-such-entry", "claim")} {
		method := http.MethodGet
		if u != f.url("conn-nope", "mailbox") {
			method = http.MethodPost
		}
		resp, body := f.send(t, req{method: method, url: u, auth: authAll})
		require.Equal(t, http.StatusNotFound, resp.StatusCode)
		require.Equal(t, ref, body)
	}
	// Positive controls: the same requests with the right keys succeed.
	resp, _ := f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox"), auth: bearer(keyMailbox, secretMbox)})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	resp, _ = f.send(t, req{method: http.MethodGet, url: f.url(connA2, "mailbox"), auth: bearer(keyOnlyA2, secretOnlyA2)})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	resp, _ = f.send(t, req{method: http.MethodPost, url: f.url(connA, "inbox"), auth: bearer(keyInbox, secretInbox),
		header: map[string]string{"Content-Type": "application/edifact", "Idempotency-Key": "k1"}, body: bytes.NewReader([]byte("UNB+UNOC:3'"))})
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	resp, _ = f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox"), auth: "bEaReR " + keyAll + ":" + secretAll})
	require.Equal(t, http.StatusOK, resp.StatusCode, "the auth scheme is case-insensitive")
}

// TestClaimTokenMismatchIs404: payload and acknowledge need the current
// token; a wrong, missing, stale or foreign token is the same 404.
func TestClaimTokenMismatchIs404(t *testing.T) {
	f := newFixture(t, HTTP1)
	id := f.addEntry(t, connA, payload(100), PayloadFault{})
	other := f.addEntry(t, connA, payload(100), PayloadFault{})
	cr := f.claim(t, connA, id)
	cOther := f.claim(t, connA, other)
	for _, tok := range []string{"", "nope", cr.ClaimToken + "x", cOther.ClaimToken} {
		for _, p := range []struct{ method, part string }{{http.MethodGet, "payload"}, {http.MethodPost, "acknowledge"}} {
			resp, body := f.send(t, req{method: p.method, url: f.url(connA, "mailbox", id, p.part), auth: authAll, token: tok})
			requireError(t, resp, body, http.StatusNotFound, CodeNotFound)
		}
	}
	// An unclaimed entry has no token to match.
	due := f.addEntry(t, connA, payload(10), PayloadFault{})
	resp, body := f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox", due, "payload"), auth: authAll, token: cr.ClaimToken})
	requireError(t, resp, body, http.StatusNotFound, CodeNotFound)
	st, _ := f.sim.Entry(connA, id)
	require.Equal(t, StatusClaimed, st.Status, "failed attempts change nothing")
	require.Zero(t, st.PayloadReads)
}

func TestUnknownRoutesAndMethods(t *testing.T) {
	f := newFixture(t, HTTP1)
	id := f.addEntry(t, connA, payload(10), PayloadFault{})
	for _, r := range []req{
		{method: http.MethodGet, url: f.srv.URL + "/"},
		{method: http.MethodGet, url: f.url(connA, "outbox")},
		{method: http.MethodPost, url: f.url(connA, "mailbox")},
		{method: http.MethodGet, url: f.url(connA, "mailbox", id, "claim")},
		{method: http.MethodDelete, url: f.url(connA, "mailbox", id, "acknowledge")},
		{method: http.MethodGet, url: f.url(connA, "mailbox", id, "payload", "extra")},
	} {
		r.auth = authAll
		resp, body := f.send(t, r)
		requireError(t, resp, body, http.StatusNotFound, CodeNotFound)
	}
}
