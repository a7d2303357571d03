package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
)

// DefaultSchedule is the rules' retry schedule: immediately, then after
// 30 s, 2 min, 10 min, 1 h, 6 h and 24 h; after these 7 attempts the
// event goes to the dead-letter queue.
var DefaultSchedule = []time.Duration{0, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}

// ScaledSchedule is DefaultSchedule divided by div (the demo uses 300:
// 0, 100 ms, 400 ms, 2 s, 12 s, 72 s, 288 s).
func ScaledSchedule(div int) []time.Duration {
	out := make([]time.Duration, len(DefaultSchedule))
	for i, d := range DefaultSchedule {
		out[i] = d / time.Duration(max(div, 1))
	}
	return out
}

// Sender delivers signed bodies to a webhook URL, retrying transient
// failures (no answer, 408, 429, 5xx) on its schedule and honouring
// Retry-After; any other 4xx is final (the rules: never retry a
// rejection unchanged). Each attempt is signed afresh with the current
// time over the unchanged body.
type Sender struct {
	URL    string
	Secret events.Secret
	// Client is the HTTP client (one with a 30 s timeout when nil).
	Client *http.Client
	// Schedule is the delay before each attempt (DefaultSchedule when
	// nil); its length is the attempt limit.
	Schedule []time.Duration
	// Now is the sender's clock for t (time.Now when nil).
	Now func() time.Time
}

// SendOptions change one send, for the faults of a demo.
type SendOptions struct {
	// SignWith signs the first attempt with another secret (a bad
	// signature).
	SignWith *events.Secret
	// T, when not 0, is the first attempt's timestamp (a stale one).
	T int64
}

// Attempt is one try of a send.
type Attempt struct {
	N      int           `json:"n"`
	Status int           `json:"status"`
	Answer events.Answer `json:"answer"`
	Err    string        `json:"error,omitempty"`
}

// Result is the outcome of a send: every attempt, and whether the body
// went to the dead-letter queue (the attempts ran out).
type Result struct {
	Attempts   []Attempt `json:"attempts"`
	DeadLetter bool      `json:"deadLetter"`
}

// Last is the final attempt.
func (r Result) Last() Attempt {
	if len(r.Attempts) == 0 {
		return Attempt{}
	}
	return r.Attempts[len(r.Attempts)-1]
}

// Delivered reports whether the receiver took the body (2xx).
func (r Result) Delivered() bool { s := r.Last().Status; return s >= 200 && s < 300 }

// maxAnswer bounds how much of an answer is read.
const maxAnswer = 1 << 20

// Send delivers body, retrying as the schedule says; it stops early when
// ctx ends. onAttempt, when set, sees each attempt as it completes.
func (s *Sender) Send(ctx context.Context, body []byte, opt SendOptions, onAttempt func(Attempt)) Result {
	sched := s.Schedule
	if sched == nil {
		sched = DefaultSchedule
	}
	client := s.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	now := s.Now
	if now == nil {
		now = time.Now
	}
	var res Result
	var wait time.Duration
	for i := range sched {
		wait = max(wait, sched[i])
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return res
			case <-t.C:
			}
		}
		sec, ts := s.Secret, now().Unix()
		if i == 0 && opt.SignWith != nil {
			sec = *opt.SignWith
		}
		if i == 0 && opt.T != 0 {
			ts = opt.T
		}
		a, retryAfter := s.attempt(ctx, client, body, sec, ts)
		a.N = i + 1
		res.Attempts = append(res.Attempts, a)
		if onAttempt != nil {
			onAttempt(a)
		}
		if !transient(a.Status) || ctx.Err() != nil {
			return res
		}
		wait = retryAfter
	}
	res.DeadLetter = true
	return res
}

func transient(status int) bool {
	return status == 0 || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
}

func (s *Sender) attempt(ctx context.Context, client *http.Client, body []byte, sec events.Secret, t int64) (Attempt, time.Duration) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(body))
	if err != nil {
		return Attempt{Err: err.Error()}, 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(events.SignatureHeader, events.Sign(sec, t, body))
	resp, err := client.Do(req)
	if err != nil {
		return Attempt{Err: redactURL(err)}, 0
	}
	defer resp.Body.Close()
	a := Attempt{Status: resp.StatusCode}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err == nil {
		if json.Unmarshal(raw, &a.Answer) != nil {
			a.Err = fmt.Sprintf("the answer (%d bytes) is not the receiver's JSON", len(raw))
		}
	}
	var retry time.Duration
	if v, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && v >= 0 && v <= 3600 {
		retry = time.Duration(v) * time.Second
	}
	return a, retry
}

// redactURL drops the URL from a client error (a webhook URL may carry
// a token in its query).
func redactURL(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && ue.Unwrap() != nil {
		return ue.Unwrap().Error()
	}
	return err.Error()
}
