package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
)

// Limits of the handler. The body limit is the batch limit; the 1 MiB
// event limit is checked per event by the receiver (EVENT_TOO_LARGE).
const (
	MaxBody = events.MaxBatchBytes
	// DefaultBodyTimeout bounds reading one body (a slow sender, or
	// slowloris, gets 408 and the listener goes on).
	DefaultBodyTimeout = 15 * time.Second
	// MaxInFlight bounds the bodies read at once (so memory stays below
	// MaxInFlight × MaxBody); a delivery beyond waits up to slotWait for
	// a slot, then gets 503 with Retry-After.
	MaxInFlight = 32
	slotWait    = 2 * time.Second
)

// Record is what the handler reports of one delivery: the line the
// CLI prints and the app shows. It holds no secret and no body.
type Record struct {
	Time     time.Time     `json:"time"`
	Remote   string        `json:"remote,omitempty"`
	Bytes    int           `json:"bytes"`
	Latency  time.Duration `json:"-"`
	LatencyS float64       `json:"latencySeconds"`
	// Senders and Types are the distinct senders and event types of the
	// delivery's events (untrusted text: sanitise before showing).
	Senders []string `json:"senders"`
	Types   []string `json:"types"`
	events.Answer
}

// Handler is the webhook receiver as an http.Handler: it reads each
// delivery (at most MaxBody), hands it to the Receiver with the Store's
// Commit, answers with the Receiver's Answer as JSON, and reports a
// Record to OnRecord. Refused deliveries go to the Store's refused/.
type Handler struct {
	Receiver *events.Receiver
	Store    *Store
	// Now is the receiver's clock (time.Now when nil).
	Now func() time.Time
	// BodyTimeout bounds reading a body (DefaultBodyTimeout when 0).
	BodyTimeout time.Duration
	// OnRecord, when set, is called once per delivery, after the answer
	// was decided (synchronously: it must not block).
	OnRecord func(Record)

	// InFlight and SlotWait override MaxInFlight and the wait for a slot
	// (tests).
	InFlight int
	SlotWait time.Duration

	slotsOnce sync.Once
	slots     chan struct{}
}

func (h *Handler) initSlots() {
	h.slotsOnce.Do(func() {
		n := h.InFlight
		if n <= 0 {
			n = MaxInFlight
		}
		h.slots = make(chan struct{}, n)
	})
}

// inFlight is how many bodies are being read now.
func (h *Handler) inFlight() int {
	h.initSlots()
	return len(h.slots)
}

// acquire takes a body slot, waiting at most slotWait.
func (h *Handler) acquire(r *http.Request) bool {
	h.initSlots()
	wait := h.SlotWait
	if wait <= 0 {
		wait = slotWait
	}
	select {
	case h.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case h.slots <- struct{}{}:
		return true
	case <-t.C:
	case <-r.Context().Done():
	}
	return false
}

func (h *Handler) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// ServeHTTP handles one delivery.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := h.now()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.answer(w, r, start, nil, plain(http.StatusMethodNotAllowed, "METHOD", "deliver events with POST"))
		return
	}
	hdr := captureHeader(r, start)
	if r.ContentLength > MaxBody {
		a := plain(http.StatusRequestEntityTooLarge, string(events.CodeBatchTooLarge),
			fmt.Sprintf("the body announces %d bytes, more than the 10 MiB (%d) a delivery may have: nothing was read; split it into smaller batches", r.ContentLength, MaxBody))
		h.Store.Refuse(events.Delivery{Header: hdr}, string(events.CodeBatchTooLarge))
		w.Header().Set("Connection", "close")
		h.answer(w, r, start, nil, a)
		return
	}
	if !h.acquire(r) {
		w.Header().Set("Retry-After", "1")
		h.answer(w, r, start, nil, plain(http.StatusServiceUnavailable, "BUSY",
			fmt.Sprintf("%d deliveries are being read already: nothing was read; resend it unchanged after Retry-After", cap(h.slots))))
		return
	}
	defer func() { <-h.slots }()
	timeout := h.BodyTimeout
	if timeout <= 0 {
		timeout = DefaultBodyTimeout
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(timeout)) // real time: the deadline is the network's
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		a := plain(http.StatusRequestEntityTooLarge, string(events.CodeBatchTooLarge),
			fmt.Sprintf("the body has more than the 10 MiB (%d) a delivery may have: nothing was processed; split it into smaller batches", MaxBody))
		h.Store.Refuse(events.Delivery{Header: hdr}, string(events.CodeBatchTooLarge))
		h.answer(w, r, start, nil, a)
		return
	case err != nil:
		a := plain(http.StatusRequestTimeout, "BODY_INCOMPLETE",
			fmt.Sprintf("the body could not be read in full within %s: nothing was processed; send it again", timeout))
		h.Store.Refuse(events.Delivery{Header: hdr, Body: body}, "BODY_INCOMPLETE")
		w.Header().Set("Connection", "close")
		h.answer(w, r, start, nil, a)
		return
	}
	d := events.Delivery{Name: "", Header: hdr, Body: body}
	a := h.Receiver.Deliver(d, start, h.Store.Commit)
	if !a.Committed {
		h.Store.Refuse(d, a.Code)
	}
	h.answer(w, r, start, body, a)
}

// plain is an answer about the request itself, before any event was read.
func plain(status int, code, msg string) events.Answer {
	return events.Answer{Status: status, Result: events.ResultRejected, Code: code, Message: msg, Events: []events.EventAnswer{}, Findings: []events.Finding{}}
}

func (h *Handler) answer(w http.ResponseWriter, r *http.Request, start time.Time, body []byte, a events.Answer) {
	if a.Status == http.StatusTooManyRequests && a.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(a.RetryAfter))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(a.Status)
	_ = json.NewEncoder(w).Encode(a)
	if h.OnRecord == nil {
		return
	}
	rec := Record{Time: start, Remote: r.RemoteAddr, Bytes: len(body), Answer: a, Senders: []string{}, Types: []string{}}
	rec.Latency = h.now().Sub(start)
	rec.LatencyS = rec.Latency.Seconds()
	seenS, seenT := map[string]bool{}, map[string]bool{}
	for _, e := range a.Events {
		if e.Sender != "" && !seenS[e.Sender] {
			seenS[e.Sender] = true
			rec.Senders = append(rec.Senders, e.Sender)
		}
		if e.Type != "" && !seenT[e.Type] {
			seenT[e.Type] = true
			rec.Types = append(rec.Types, e.Type)
		}
	}
	h.OnRecord(rec)
}

// captureHeader is the request's header as captured: Date is the
// receiver's clock at arrival (what `event inspect` checks the signature
// timestamp against), the sender's own Date is kept as X-B2bx-Sender-Date.
func captureHeader(r *http.Request, now time.Time) http.Header {
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	if v := h.Get("Date"); v != "" {
		h.Set("X-B2bx-Sender-Date", v)
	}
	h.Set("Date", now.UTC().Format(http.TimeFormat))
	h.Set(HeaderReceived, now.UTC().Format(time.RFC3339Nano))
	if r.RemoteAddr != "" {
		h.Set(HeaderRemote, r.RemoteAddr)
	}
	return h
}
