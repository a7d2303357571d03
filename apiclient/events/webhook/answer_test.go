package webhook

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// hookState is an events.StateStore in memory whose Get and Apply call
// hooks first (nil: none).
type hookState struct {
	mu      sync.Mutex
	m       map[events.StateKind]map[string][]byte
	meta    events.StateMeta
	onGet   func()
	onApply func()
}

func (s *hookState) Get(kind events.StateKind, key string) ([]byte, bool, error) {
	if s.onGet != nil {
		s.onGet()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[kind][key]
	return v, ok, nil
}

func (s *hookState) Apply(entries []events.StateEntry, meta events.StateMeta, _ time.Time) error {
	if s.onApply != nil {
		s.onApply()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[events.StateKind]map[string][]byte{}
	}
	for _, e := range entries {
		if s.m[e.Kind] == nil {
			s.m[e.Kind] = map[string][]byte{}
		}
		if e.Value == nil {
			delete(s.m[e.Kind], e.Key)
		} else {
			s.m[e.Kind][e.Key] = e.Value
		}
	}
	s.meta = meta
	return nil
}

func (s *hookState) Meta() (events.StateMeta, error) { return s.meta, nil }

func (s *hookState) Each(kind events.StateKind, fn func(string, []byte) error) error {
	s.mu.Lock()
	kv := s.m[kind]
	s.mu.Unlock()
	for k, v := range kv {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

func (s *hookState) Count(kind events.StateKind) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m[kind]), nil
}

// hookedHandler is a Handler over dir whose Receiver keeps its state in st.
func hookedHandler(t *testing.T, dir string, st *hookState) *Handler {
	t.Helper()
	store, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := events.NewReceiver(events.ReceiverOptions{Secrets: []events.Secret{secret.New(canarySecret)}, State: st, Original: store.Original})
	if err != nil {
		t.Fatal(err)
	}
	store.prepare()
	return &Handler{Receiver: rc, Store: store, closers: []func() error{store.Close}}
}

// The committer stores a batch's state only once every delivery of the
// batch took its answer: the state write (CPU-bound) does not compete
// with the goroutines answering the senders.
func TestStateIsStoredAfterTheAnswersAreTaken(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		var applied atomic.Int32
		h := hookedHandler(t, dir, &hookState{onApply: func() { applied.Add(1) }})
		h.init()
		j := testJob(ev{seq: 1}.json())
		defer func() { j.take(); h.Close() }() // on a failure too: the bubble ends with no goroutine left
		h.jobs <- j
		if a := <-j.done; a.Result != events.ResultACK {
			t.Fatalf("answer %+v", a)
		}
		synctest.Wait() // the committer is blocked: on what?
		if n := applied.Load(); n != 0 {
			t.Fatalf("the state was stored (%d) before the answer was taken", n)
		}
		j.take()
		synctest.Wait()
		if n := applied.Load(); n != 1 {
			t.Fatalf("the state was stored %d times after the answer was taken, want 1", n)
		}
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// testJob is a job for body as the handler queues it (its capture not
// staged: the committer writes it), signed now.
func testJob(body []byte) *job {
	hdr := http.Header{}
	hdr.Set(events.SignatureHeader, events.Sign(secret.New(canarySecret), time.Now().Unix(), body))
	return &job{a: events.Arrival{Delivery: events.Delivery{Header: hdr, Body: body}, Now: time.Now()},
		done: make(chan events.Answer, 1), taken: make(chan struct{})}
}

// With deliveries queued behind a batch, the committer does not wait for
// the batch's answers to be taken: it stores the state and goes on.
func TestStateIsStoredAtOnceWhenDeliveriesAreQueued(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		var applied atomic.Int32
		deciding, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		st := &hookState{onApply: func() { applied.Add(1) }, onGet: func() { once.Do(func() { close(deciding); <-release }) }}
		h := hookedHandler(t, dir, st)
		h.init()
		j1, j2 := testJob(ev{seq: 1}.json()), testJob(ev{subject: "PO-2", seq: 1}.json())
		defer func() { j1.take(); j2.take(); h.Close() }()
		h.jobs <- j1
		<-deciding
		h.jobs <- j2 // queued while the first is decided
		close(release)
		if a := <-j1.done; a.Result != events.ResultACK {
			t.Fatalf("answer %+v", a)
		}
		synctest.Wait()
		if n := applied.Load(); n != 1 {
			t.Fatalf("the first batch's state was stored %d times before its answer was taken, want 1 (a delivery was queued)", n)
		}
		if a := <-j2.done; a.Result != events.ResultACK {
			t.Fatalf("answer %+v", a)
		}
	})
}

// The answer is sent with its length and flushed before the handler
// goes on (keeping a refused delivery, making a spare): the sender does
// not wait for those.
func TestAnswerIsFlushedWithItsLength(t *testing.T) {
	r := newRig(t, "")
	body := ev{seq: 1}.json()
	req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
	req.Header.Set(events.SignatureHeader, events.Sign(secret.New(canarySecret), r.clock.Now().Unix(), body))
	rec := httptest.NewRecorder()
	r.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !rec.Flushed {
		t.Fatalf("status %d, flushed %v", rec.Code, rec.Flushed)
	}
	if got := rec.Header().Get("Content-Length"); got != strconv.Itoa(rec.Body.Len()) {
		t.Fatalf("Content-Length %q for %d bytes", got, rec.Body.Len())
	}
}
