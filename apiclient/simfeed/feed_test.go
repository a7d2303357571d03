package simfeed

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/events/webhook"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

const testSecret = "whsec_feed-CANARY-31c"

// run plays the feed against a real receiver until stop reports true for
// a Sent, and returns every Sent.
func run(t *testing.T, o Options, after func(*partnersim.Sim), stop func(Sent) bool) ([]Sent, *webhook.Handler) {
	t.Helper()
	return runWith(t, o, nil, after, stop)
}

// runWith is run with the receiver's handler wrapped by wrap (nil: as is).
func runWith(t *testing.T, o Options, wrap func(*webhook.Handler) http.Handler, after func(*partnersim.Sim), stop func(Sent) bool) ([]Sent, *webhook.Handler) {
	t.Helper()
	h, _, err := webhook.Open(webhook.Config{Dir: t.TempDir(), Receiver: events.ReceiverOptions{Secrets: []events.Secret{secret.New(testSecret)}}})
	if err != nil {
		t.Fatal(err)
	}
	var served http.Handler = h
	if wrap != nil {
		served = wrap(h)
	}
	srv := httptest.NewServer(served)
	defer srv.Close()
	sim := partnersim.New()
	if err := sim.AddConnection(partnersim.Connection{ID: "conn-1", Tenant: "t1"}); err != nil {
		t.Fatal(err)
	}
	o.Sim = sim
	o.Sender = &webhook.Sender{URL: srv.URL, Secret: secret.New(testSecret), Schedule: webhook.ScaledSchedule(300)}
	sent := make(chan Sent, 1000)
	o.Log = func(s Sent) { sent <- s }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = New(o).Run(ctx) }()
	defer func() { cancel(); <-done }()
	var out []Sent
	timeout := time.After(60 * time.Second)
	first := true
	for {
		select {
		case s := <-sent:
			out = append(out, s)
			if first && after != nil {
				first = false
				after(sim)
			}
			if stop(s) {
				return out, h
			}
		case <-timeout:
			t.Fatalf("the feed did not finish; sent so far: %+v", out)
		}
	}
}

func find(t *testing.T, ss []Sent, what string) Sent {
	t.Helper()
	for _, s := range ss {
		if strings.HasPrefix(s.What, what) {
			return s
		}
	}
	t.Fatalf("nothing sent as %q", what)
	return Sent{}
}

// burstClock is the receiver's clock in TestEveryFaultShowsItsFinding.
// The feed sends its three burst batches right after a second begins, so
// that the third takes the sender over 100 events/s; on a loaded machine
// the first two deliveries (each committed with fsync) can take longer
// than the rest of that second, and the third then rightly passes. The
// clock stops at the first burst delivery's arrival until the receiver
// answers one 429, so the three arrive in one second of the receiver's
// time whatever the machine's speed; the sender's retry after
// Retry-After then meets the real clock again.
type burstClock struct {
	mu     sync.Mutex
	frozen time.Time
	done   bool
}

func (c *burstClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.frozen.IsZero() {
		return c.frozen
	}
	return time.Now()
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (c *burstClock) wrap(h *webhook.Handler) http.Handler {
	h.Now = c.now
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		c.mu.Lock()
		if !c.done && c.frozen.IsZero() && bytes.Contains(body, []byte("fault/burst")) {
			c.frozen = time.Now()
		}
		c.mu.Unlock()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		if sw.status == http.StatusTooManyRequests {
			c.mu.Lock()
			c.done, c.frozen = true, time.Time{}
			c.mu.Unlock()
		}
	})
}

func TestEveryFaultShowsItsFinding(t *testing.T) {
	clock := &burstClock{}
	ss, h := runWith(t, Options{Faults: AllFaults, Heartbeat: time.Hour}, clock.wrap, nil, func(s Sent) bool { return s.What == "fault burst: batch 3 of 50 events" })
	check := func(what string, status int, outcome string, code events.Code) {
		t.Helper()
		s := find(t, ss, what)
		if s.Status != status || s.Outcome != outcome || code != "" && !slices.Contains(s.Codes, code) {
			t.Errorf("%s: status %d outcome %s codes %v; want %d %s %s", what, s.Status, s.Outcome, s.Codes, status, outcome, code)
		}
	}
	check("fault duplicate: first", http.StatusOK, events.ResultACK, "")
	check("fault duplicate: the same", http.StatusOK, events.ResultDuplicate, events.CodeDuplicate)
	check("fault out-of-order: the second", http.StatusAccepted, events.ResultParked, events.CodeSequenceGap)
	check("fault out-of-order: then", http.StatusOK, events.ResultACK, events.CodeOutOfOrder)
	check("fault gap: replay", http.StatusOK, events.ResultACK, "")
	check("fault bad-signature: signed with", http.StatusUnauthorized, events.ResultRejected, events.CodeSignatureInvalid)
	check("fault bad-signature: signed right", http.StatusOK, events.ResultACK, "")
	check("fault stale-timestamp: t 10", http.StatusUnauthorized, events.ResultRejected, events.CodeSignatureInvalid)
	check("fault stale-timestamp: t now", http.StatusOK, events.ResultACK, "")
	check("fault oversized: an event", http.StatusRequestEntityTooLarge, events.ResultRejected, events.CodeEventTooLarge)
	check("fault oversized: fixed", http.StatusOK, events.ResultACK, "")
	check("fault burst: batch 1", http.StatusOK, events.ResultACK, "")
	// The heartbeat after the lost sequence reports it missing.
	var beat *Sent
	for i, s := range ss {
		if s.What == "HEARTBEAT" && slices.Contains(s.Codes, events.CodeSequenceMissing) {
			beat = &ss[i]
		}
	}
	if beat == nil || !strings.Contains(beat.Answer.Findings[0].Message, "fault/gap") {
		t.Errorf("no HEARTBEAT revealed the gap: %+v", ss)
	}
	burst := find(t, ss, "fault burst: batch 3")
	if len(burst.Result.Attempts) < 2 || burst.Result.Attempts[0].Status != http.StatusTooManyRequests || !burst.Result.Delivered() {
		t.Errorf("burst: attempts %+v", burst.Result.Attempts)
	}
	// Everything ends processed: no stream is left with a gap.
	for _, st := range h.Receiver.Streams() {
		if len(st.Parked) > 0 || len(st.Missing) > 0 {
			t.Errorf("stream %s left with parked %v missing %v", st.Subject, st.Parked, st.Missing)
		}
	}
}

func TestSimulatorActivityBecomesEvents(t *testing.T) {
	ss, _ := run(t, Options{Poll: 10 * time.Millisecond, Heartbeat: time.Hour}, func(sim *partnersim.Sim) {
		if _, err := sim.AddEntry("conn-1", partnersim.Delivery{MessageType: "ORDRSP", Payload: []byte("UNB+UNOC:3'")}); err != nil {
			t.Error(err)
		}
	}, func(s Sent) bool { return s.What == "delivery_due" })
	ap := find(t, ss, "answer_produced")
	dd := find(t, ss, "delivery_due")
	if ap.Status != http.StatusOK || dd.Status != http.StatusOK || !strings.HasPrefix(ap.Subject, "connection/conn-1@") || dd.Sequence != ap.Sequence+1 {
		t.Fatalf("answer_produced %+v delivery_due %+v", ap, dd)
	}
}

func TestUploadAcceptedBecomesAnEvent(t *testing.T) {
	ss, _ := run(t, Options{Poll: 10 * time.Millisecond, Heartbeat: time.Hour}, func(sim *partnersim.Sim) {
		if err := sim.AddKey(partnersim.Key{ID: "k1", Secret: "sk_feed", Tenant: "t1", Scopes: partnersim.AllScopes}); err != nil {
			t.Error(err)
			return
		}
		req := httptest.NewRequest(http.MethodPost, partnersim.BasePath+"/conn-1/inbox", strings.NewReader("UNB+UNOC:3+SENDER+RECEIVER+250612:1000+REF1'UNZ+0+REF1'"))
		req.Header.Set("Authorization", "Bearer k1:sk_feed")
		req.Header.Set("Content-Type", "application/edifact")
		req.Header.Set("Idempotency-Key", "feed-1")
		rec := httptest.NewRecorder()
		sim.ServeHTTP(rec, req)
		if rec.Code != http.StatusAccepted {
			t.Errorf("upload: %d %s", rec.Code, rec.Body)
		}
	}, func(s Sent) bool { return s.What == "upload_accepted" })
	up := find(t, ss, "upload_accepted")
	if up.Status != http.StatusOK || up.Outcome != events.ResultACK || !strings.HasPrefix(up.Subject, "connection/conn-1@") {
		t.Fatalf("upload_accepted %+v", up)
	}
}

// A second run against the same receiver starts new streams: its events
// are processed, not answered DUPLICATE or rejected as regressions.
func TestASecondRunIsNotARepeat(t *testing.T) {
	h, _, err := webhook.Open(webhook.Config{Dir: t.TempDir(), Receiver: events.ReceiverOptions{Secrets: []events.Secret{secret.New(testSecret)}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for run := range 2 {
		var got []Sent
		f := New(Options{Sim: partnersim.New(), Sender: &webhook.Sender{URL: srv.URL, Secret: secret.New(testSecret), Schedule: []time.Duration{0}},
			Log: func(s Sent) { got = append(got, s) }})
		f.heartbeat(t.Context())
		f.playFault(t.Context(), FaultOutOfOrder)
		if len(got) != 3 || got[0].Outcome != events.ResultACK || got[1].Outcome != events.ResultParked || got[2].Outcome != events.ResultACK {
			t.Fatalf("run %d: %+v", run+1, got)
		}
	}
}
