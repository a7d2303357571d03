package orders

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

const sendConn = "3c0394dd-136a-40b5-b0c2-1f3003083d8a"

func sendEnv(t *testing.T) *session.Conn {
	t.Helper()
	sim := partnersim.New(partnersim.WithResponseDelay(0))
	if err := sim.AddConnection(partnersim.Connection{ID: sendConn, Tenant: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := sim.AddKey(partnersim.Key{ID: "k", Secret: "CANARY-bulk-secret", Tenant: "t", Scopes: partnersim.AllScopes}); err != nil {
		t.Fatal(err)
	}
	srv, err := partnersim.Serve(sim, partnersim.HTTP1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cred := secret.Credential{KeyID: "k", Secret: secret.New("CANARY-bulk-secret")}
	conn, err := session.Open(session.Target{Name: "acme", BaseURL: srv.URL, ConnectionID: sendConn, StoreDir: t.TempDir(),
		Inbox: cred, Mailbox: cred}, session.Options{HTTPClient: srv.Client(), Limiter: rate.NewLimiter(rate.Inf, 0),
		Retry: apiclient.RetryPolicy{Schedule: []time.Duration{0}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

// TestSendStepAsPreviewed: a marked accepted upload replayed gets its
// key and 200 replay; resent it gets the next number and 202, as the
// preview said; a step previewed before another upload moved the
// numbering sends nothing.
func TestSendStepAsPreviewed(t *testing.T) {
	conn := sendEnv(t)
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", "orders_d96a.edi"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "po.edi")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(t.Context(), conn.Spool, sendConn, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Reserve(); err != nil {
		t.Fatal(err)
	}
	if o, err := Send(t.Context(), conn.Client, p); err != nil || !o.Accepted() {
		t.Fatalf("first upload: %+v %v", o, err)
	}
	hist, err := History(conn.Spool, sendConn)
	if err != nil {
		t.Fatal(err)
	}
	first := hist[len(hist)-1]

	replay := UploadPlan(hist[len(hist)-1:], UploadInput{History: hist}, Replay)[0]
	o, err := SendStep(t.Context(), conn.Spool, conn.Client, sendConn, replay)
	if err != nil || o.Record.HTTPStatus != 200 || !o.Record.Replay || o.Record.Key != first.Key {
		t.Fatalf("replay: %+v %v", o, err)
	}

	hist, _ = History(conn.Spool, sendConn)
	stale := UploadPlan([]spool.UploadRecord{first}, UploadInput{History: hist}, Resend)[0]
	resend := stale
	o, err = SendStep(t.Context(), conn.Spool, conn.Client, sendConn, resend)
	if err != nil || o.Record.HTTPStatus != 202 || o.Record.Key != resend.Key || o.Record.Key == first.Key {
		t.Fatalf("resend: %+v %v (planned %s)", o, err, resend.Key)
	}
	// The same step again: the numbering moved on, nothing is sent.
	if _, err := SendStep(t.Context(), conn.Spool, conn.Client, sendConn, stale); err == nil {
		t.Fatal("a stale step was sent")
	}

	refused := UploadStep{Record: first, Action: "refused", Why: "the partner rejected these bytes"}
	if _, err := SendStep(t.Context(), conn.Spool, conn.Client, sendConn, refused); err == nil {
		t.Fatal("a refused step was sent")
	}
}
