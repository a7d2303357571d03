package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/internal/fakeclock"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// canarySecret must never appear in an answer, a capture or a record.
const canarySecret = "whsec_CANARY-7f3a9c-never-print"

const (
	senderGLN   = "4012345000009"
	receiverGLN = "4098765000003"
)

// fakeClock is the receiver's clock in tests: the tests' one fake clock.
type fakeClock = fakeclock.Clock

// rig is a Handler over a temp directory behind httptest.
type rig struct {
	t       *testing.T
	dir     string
	clock   *fakeClock
	h       *Handler
	srv     *httptest.Server
	mu      sync.Mutex
	records []Record
}

func newRig(t *testing.T, dir string) *rig {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	r := &rig{t: t, dir: dir, clock: fakeclock.New(time.Date(2026, 3, 12, 10, 31, 0, 0, time.UTC))}
	h, _, err := Open(Config{Dir: dir, Receiver: events.ReceiverOptions{Secrets: []events.Secret{secret.New(canarySecret)}},
		Now: r.clock.Now, OnRecord: func(rec Record) { r.mu.Lock(); r.records = append(r.records, rec); r.mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	r.h = h
	r.srv = httptest.NewServer(h)
	t.Cleanup(r.srv.Close)
	return r
}

// ev is an envelope v2 event of the test sender.
type ev struct {
	subject string
	seq     int64
	n       int // the key's counter
	typ     string
	id      string
	data    any
}

func (e ev) json() []byte {
	typ := e.typ
	if typ == "" {
		typ = "confirmed"
	}
	subject := e.subject
	if subject == "" {
		subject = "PO-4711"
	}
	n := e.n
	if n == 0 {
		n = 1
	}
	id := e.id
	if id == "" {
		id = fmt.Sprintf("evt-%s-%d-%d", subject, e.seq, n)
	}
	data := e.data
	if data == nil {
		data = map[string]any{"status": "ok"}
	}
	m := map[string]any{"specversion": "2.0", "id": id, "type": "nutrab2b.orders." + typ + ".v2", "source": "/test",
		"subject": subject, "time": "2026-03-12T10:30:00Z", "sender": senderGLN, "receiver": receiverGLN,
		"correlationid": "corr-" + subject, "idempotencykey": fmt.Sprintf("%s:%s-%d:%s:%d", senderGLN, subject, e.seq, typ, n),
		"sequence": e.seq, "env": "test", "data": data}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func heartbeat(seq int64, last map[string]int64) ev {
	return ev{subject: "heartbeat", seq: seq, typ: "HEARTBEAT", data: map[string]any{"last_sequences": last}}
}

// post sends body signed at the rig's clock (t overrides it when not 0)
// with sec (the canary when empty).
func (r *rig) post(body []byte, sec string, t int64) (int, http.Header, events.Answer) {
	r.t.Helper()
	if sec == "" {
		sec = canarySecret
	}
	if t == 0 {
		t = r.clock.Now().Unix()
	}
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL+"/webhook", bytes.NewReader(body))
	req.Header.Set(events.SignatureHeader, events.Sign(secret.New(sec), t, body))
	req.Header.Set("Content-Type", "application/json")
	return r.do(req)
}

func (r *rig) do(req *http.Request) (int, http.Header, events.Answer) {
	r.t.Helper()
	resp, err := r.srv.Client().Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if strings.Contains(string(raw), canarySecret) {
		r.t.Fatalf("the answer holds the secret")
	}
	var a events.Answer
	if err := json.Unmarshal(raw, &a); err != nil {
		r.t.Fatalf("answer %d is not JSON: %v: %.200s", resp.StatusCode, err, raw)
	}
	return resp.StatusCode, resp.Header, a
}

func batch(evs ...ev) []byte {
	parts := make([][]byte, len(evs))
	for i, e := range evs {
		parts[i] = e.json()
	}
	return append(append([]byte("["), bytes.Join(parts, []byte(","))...), ']')
}

func hasFinding(a events.Answer, code events.Code) bool {
	for _, f := range a.Findings {
		if f.Code == code {
			return true
		}
	}
	return false
}

func codes(a events.Answer) []string {
	var out []string
	for _, f := range a.Findings {
		out = append(out, string(f.Code))
	}
	return out
}
