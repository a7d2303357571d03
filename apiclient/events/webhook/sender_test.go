package webhook

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// statusServer answers with the given statuses in turn and records the
// signature timestamps it saw.
func statusServer(t *testing.T, statuses ...int) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	i := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.Header.Get(events.SignatureHeader))
		st := statuses[min(i, len(statuses)-1)]
		i++
		if st == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "0")
		}
		w.WriteHeader(st)
		_, _ = w.Write([]byte(`{"result":"x"}`))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), seen...) }
}

func TestSenderRetriesTransientFailuresOnly(t *testing.T) {
	sched := []time.Duration{0, time.Millisecond, time.Millisecond, time.Millisecond}
	for _, tc := range []struct {
		name     string
		statuses []int
		attempts int
		dead     bool
	}{
		{"503 then 200", []int{503, 200}, 2, false},
		{"429 then 200", []int{429, 200}, 2, false},
		{"408 then 202", []int{408, 202}, 2, false},
		{"400 is final", []int{400, 200}, 1, false},
		{"401 is final", []int{401, 200}, 1, false},
		{"always 500: dead letter", []int{500}, 4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, seen := statusServer(t, tc.statuses...)
			s := &Sender{URL: srv.URL, Secret: secret.New(canarySecret), Schedule: sched}
			res := s.Send(t.Context(), []byte(`{}`), SendOptions{}, nil)
			if len(res.Attempts) != tc.attempts || res.DeadLetter != tc.dead || len(seen()) != tc.attempts {
				t.Fatalf("attempts %d (server saw %d), dead letter %v", len(res.Attempts), len(seen()), res.DeadLetter)
			}
		})
	}
}

func TestSenderSignsEachAttemptAndTheFaults(t *testing.T) {
	srv, seen := statusServer(t, 503, 200)
	wrong := secret.New("other")
	s := &Sender{URL: srv.URL, Secret: secret.New(canarySecret), Schedule: []time.Duration{0, time.Millisecond}}
	body := []byte(`{"a":1}`)
	res := s.Send(t.Context(), body, SendOptions{SignWith: &wrong, T: 1700000000}, nil)
	if !res.Delivered() {
		t.Fatalf("%+v", res)
	}
	got := seen()
	if got[0] != events.Sign(wrong, 1700000000, body) {
		t.Fatalf("the first attempt is not signed with the fault's secret and t: %s", got[0])
	}
	r, _ := events.Verify(got[1], body, []events.Secret{secret.New(canarySecret)}, time.Now())
	if !r.Valid {
		t.Fatalf("the retry is not signed afresh with the secret: %s", r.Explain())
	}
}

func TestSenderErrorsNameNoURL(t *testing.T) {
	s := &Sender{URL: "http://127.0.0.1:1/hook?token=CANARY-url-token", Secret: secret.New(canarySecret), Schedule: []time.Duration{0}}
	res := s.Send(t.Context(), []byte(`{}`), SendOptions{}, nil)
	if res.Delivered() || res.Last().Err == "" || strings.Contains(res.Last().Err, "CANARY-url-token") {
		t.Fatalf("%+v", res.Last())
	}
}
