package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
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
	// MaxInFlight bounds the bodies read at once; a delivery beyond waits
	// up to slotWait for a slot, then gets 503 with Retry-After.
	MaxInFlight = 32
	// MaxPerPeer bounds the bodies one peer address has read at once, so
	// that one address cannot hold every slot.
	MaxPerPeer = 16
	// MaxBodyBytes bounds the bytes of all bodies held at once (read or
	// waiting for their commit): memory stays bounded whatever the
	// bodies announce; a body needing more waits, then gets 503.
	MaxBodyBytes = 48 << 20
	// FloorRate is the slowest a body may arrive, in bytes a second on
	// average, once FloorGrace has passed: a body that trickles in
	// below it (holding a slot for nothing) is cut with 408.
	FloorRate  = 8 << 10
	FloorGrace = 2 * time.Second
	slotWait   = 2 * time.Second
	// maxBatch and maxBatchBytes bound the deliveries committed together.
	maxBatch      = 256
	maxBatchBytes = 32 << 20
	firstChunk    = 64 << 10
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

// Committed is a delivery stored durably and decided: what a consumer
// of the captures (the tracking index) picks up.
type Committed struct {
	// Name is the capture's name, Path its file.
	Name, Path string
	// Answer is what the sender was answered.
	Answer events.Answer
}

// Handler is the webhook receiver as an http.Handler: it checks what it
// can before reading a body (the signature header's form and
// timestamp), admits the body within the slot, per-peer and byte limits,
// reads it (at least FloorRate after FloorGrace, at most BodyTimeout),
// and queues it for one committer that decides the queued deliveries
// in order with the Receiver and commits them together (renamed, one
// directory fsync), while each delivery's own goroutine writes and
// fsyncs its capture to a temporary file meanwhile (stage.go). It
// answers with the Receiver's Answer as JSON and reports a Record to
// OnRecord. Refused deliveries go to the Store's refused/.
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
	// OnCommitted, when set, is called once per delivery stored durably,
	// after its sender was answered, in commit order, from the committer
	// (it holds up the next batch: hand the work to another goroutine).
	OnCommitted func(Committed)
	// OnBatch, when set, is called after each batch that stored
	// deliveries, with how many it stored and how long deciding and
	// storing it took (from the committer: it must not block).
	OnBatch func(n int, took time.Duration)
	// Replayed is how many captures Open replayed (those the state did
	// not hold yet).
	Replayed int

	// InFlight, PerPeer, BodyBytes, SlotWait, Floor and Grace override
	// MaxInFlight, MaxPerPeer, MaxBodyBytes, the wait for a slot,
	// FloorRate and FloorGrace (tests).
	InFlight  int
	PerPeer   int
	BodyBytes int64
	SlotWait  time.Duration
	Floor     int64
	Grace     time.Duration

	initOnce sync.Once
	adm      *admission
	jobs     chan *job
	stop     chan struct{}
	stopped  chan struct{}
	closeMu  sync.Once
	closers  []func() error
}

// job is a delivery queued for the committer.
type job struct {
	a    events.Arrival
	done chan events.Answer
	// staged, when not nil, is closed once the delivery's goroutine
	// wrote its capture to tmp and fsynced it (or failed: err), or
	// decided not to (tmp empty: the committer writes it if need be).
	staged chan struct{}
	tmp    string
	err    error
	// taken is closed once the delivery's goroutine took its answer and
	// encoded it: the committer stores the batch's state after that, so
	// that the state write does not compete with the answers.
	taken     chan struct{}
	takenOnce sync.Once
}

// take tells the committer the answer was taken (once; nil-safe).
func (j *job) take() {
	if j != nil {
		j.takenOnce.Do(func() { close(j.taken) })
	}
}

func (h *Handler) init() {
	h.initOnce.Do(func() {
		n, per, bytes := h.InFlight, h.PerPeer, h.BodyBytes
		if n <= 0 {
			n = MaxInFlight
		}
		if per <= 0 {
			per = MaxPerPeer
		}
		if bytes <= 0 {
			bytes = MaxBodyBytes
		}
		h.adm = newAdmission(n, per, bytes)
		h.jobs = make(chan *job, 4*MaxInFlight)
		h.stop, h.stopped = make(chan struct{}), make(chan struct{})
		go h.commitLoop()
	})
}

// Close stops the committer (deliveries still arriving get 503) and
// closes the state file. Serve calls it after its shutdown.
func (h *Handler) Close() error {
	h.init()
	var err error
	h.closeMu.Do(func() {
		close(h.stop)
		<-h.stopped
		for _, c := range h.closers {
			if cerr := c(); err == nil {
				err = cerr
			}
		}
	})
	return err
}

// inFlight is how many bodies are being read or committed now.
func (h *Handler) inFlight() int {
	h.init()
	return h.adm.inFlight()
}

func (h *Handler) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

func (h *Handler) slotWait() time.Duration {
	if h.SlotWait > 0 {
		return h.SlotWait
	}
	return slotWait
}

// ServeHTTP handles one delivery.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.init()
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
	// What can be judged from the header is judged before a slot is
	// taken: a missing, malformed or stale signature never holds one.
	if a, ok := h.Receiver.CheckHeader(r.Header, start); !ok {
		h.Store.Refuse(events.Delivery{Header: hdr}, a.Code)
		w.Header().Set("Connection", "close")
		h.answer(w, r, start, nil, a)
		return
	}
	// The sender's rate too: a peer whose senders used up this second's
	// limit is answered 429 before its body holds a slot.
	peer := peerHost(r.RemoteAddr)
	if a, ok := h.Receiver.CheckPeerRate(peer, start); !ok {
		h.Store.Refuse(events.Delivery{Header: hdr}, a.Code)
		h.answer(w, r, start, nil, a)
		return
	}
	want := int64(firstChunk)
	if r.ContentLength >= 0 {
		want = r.ContentLength
	}
	t, why := h.adm.enter(peer, want, h.slotWait(), r.Context().Done())
	if t == nil {
		w.Header().Set("Retry-After", "1")
		h.answer(w, r, start, nil, plain(http.StatusServiceUnavailable, "BUSY", why+": nothing was read; resend it unchanged after Retry-After"))
		return
	}
	defer h.adm.leave(t)
	body, a, ok := h.readBody(w, r, t)
	if !ok {
		h.Store.Refuse(events.Delivery{Header: hdr, Body: body}, a.Code)
		w.Header().Set("Connection", "close")
		h.answer(w, r, start, nil, a)
		return
	}
	d := events.Delivery{Name: "", Header: hdr, Body: body}
	j, a := h.deliver(d, start)
	h.answerDelivery(w, r, start, peer, d, j, a)
}

// answerDelivery answers a delivery the committer decided (j nil: one it
// never got) and keeps it in refused/ when it was not committed.
func (h *Handler) answerDelivery(w http.ResponseWriter, r *http.Request, start time.Time, peer string, d events.Delivery, j *job, a events.Answer) {
	defer j.take() // whatever happens below, the committer does not wait for it
	if j == nil {
		w.Header().Set("Retry-After", "1")
	}
	if a.Committed {
		h.Receiver.NoteSenders(peer, answerSenders(a))
	}
	out := encodeAnswer(a)
	j.take()
	if !a.Committed {
		h.Store.Refuse(d, a.Code)
	}
	h.write(w, r, start, d.Body, a, out)
	if j != nil {
		if !a.Committed {
			h.Store.discard(j.tmp)
		}
		// The spare this delivery used is made again, after its answer
		// (before the handler returns: nothing is left running).
		h.Store.prepare()
	}
}

// deliver queues d for the committer and, while it is decided, stages
// its capture (written and fsynced to a spare temporary file, which the
// committer renames if d is committed); then it waits for the answer. A
// delivery whose signature fails is not staged (it is refused, and a
// durable write is not spent on it). The job is nil when the handler is
// stopping (nothing was queued).
func (h *Handler) deliver(d events.Delivery, start time.Time) (*job, events.Answer) {
	j := &job{a: events.Arrival{Delivery: d, Now: start}, done: make(chan events.Answer, 1),
		staged: make(chan struct{}), taken: make(chan struct{})}
	select {
	case h.jobs <- j:
	case <-h.stop:
		return nil, plain(http.StatusServiceUnavailable, "STOPPING", "the receiver is stopping: nothing was processed; resend it unchanged later")
	}
	func() {
		defer close(j.staged) // the committer never waits for it in vain
		if h.Receiver.Authentic(d, start) {
			j.tmp, j.err = h.Store.stage(d)
		}
	}()
	return j, <-j.done
}

// readBody reads the body within the byte budget, the body timeout and
// the floor rate; on failure it returns the answer to give.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, t *ticket) ([]byte, events.Answer, bool) {
	timeout := h.BodyTimeout
	if timeout <= 0 {
		timeout = DefaultBodyTimeout
	}
	rc := http.NewResponseController(w)
	began := time.Now() // real time: deadlines and rates are the network's
	_ = rc.SetReadDeadline(began.Add(timeout))
	src := &countingReader{r: http.MaxBytesReader(w, r.Body, MaxBody)}
	floor, grace := h.Floor, h.Grace
	if floor <= 0 {
		floor = FloorRate
	}
	if grace <= 0 {
		grace = FloorGrace
	}
	var slow atomic.Bool
	var watch *time.Timer
	var check func()
	var watchMu sync.Mutex
	stopped := false
	check = func() {
		watchMu.Lock()
		defer watchMu.Unlock()
		if stopped {
			return
		}
		el := time.Since(began)
		if float64(src.n.Load()) < float64(floor)*el.Seconds() {
			slow.Store(true)
			_ = rc.SetReadDeadline(time.Now())
			return
		}
		watch = time.AfterFunc(grace/4+time.Millisecond, check)
	}
	watch = time.AfterFunc(grace, check)
	defer func() {
		watchMu.Lock()
		stopped = true
		watch.Stop()
		watchMu.Unlock()
	}()
	var body []byte
	var err error
	if r.ContentLength >= 0 {
		body = make([]byte, r.ContentLength)
		var n int
		n, err = io.ReadFull(src, body)
		body = body[:n]
		if err == nil {
			// the announced length is all there is (the server frames by it)
			var one [1]byte
			if _, e := src.Read(one[:]); e != nil && !errors.Is(e, io.EOF) {
				err = e
			}
		}
	} else {
		body, err = h.readGrowing(src, t, r)
	}
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		return body, events.Answer{}, true
	case errors.As(err, &tooBig):
		return nil, plain(http.StatusRequestEntityTooLarge, string(events.CodeBatchTooLarge),
			fmt.Sprintf("the body has more than the 10 MiB (%d) a delivery may have: nothing was processed; split it into smaller batches", MaxBody)), false
	case errors.Is(err, errBudget):
		return body, plain(http.StatusServiceUnavailable, "BUSY",
			"the receiver is holding as many body bytes as it may: nothing was processed; resend it unchanged after Retry-After"), false
	case slow.Load():
		el := time.Since(began)
		return body, plain(http.StatusRequestTimeout, "BODY_TOO_SLOW",
			fmt.Sprintf("the body arrived at %.0f bytes/s (%d bytes in %s), below the %d bytes/s a delivery must keep after %s: nothing was processed; send it again on a faster connection",
				float64(src.n.Load())/el.Seconds(), src.n.Load(), el.Round(time.Millisecond), floor, grace)), false
	}
	return body, plain(http.StatusRequestTimeout, "BODY_INCOMPLETE",
		fmt.Sprintf("the body could not be read in full within %s: nothing was processed; send it again", timeout)), false
}

var errBudget = errors.New("body byte budget exhausted")

// readGrowing reads a body of unknown length (chunked), taking more of
// the byte budget as it grows.
func (h *Handler) readGrowing(src io.Reader, t *ticket, r *http.Request) ([]byte, error) {
	buf := make([]byte, 0, firstChunk)
	for {
		if len(buf) == cap(buf) {
			grow := int64(min(cap(buf), MaxBody+1-cap(buf)))
			if grow <= 0 {
				grow = 1
			}
			if !h.adm.grow(t, grow, h.slotWait(), r.Context().Done()) {
				return buf, errBudget
			}
			nb := make([]byte, len(buf), cap(buf)+int(grow))
			copy(nb, buf)
			buf = nb
		}
		n, err := src.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// countingReader counts the bytes read through it (the floor check reads
// the count from another goroutine).
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// answerSenders are the distinct senders of a's events.
func answerSenders(a events.Answer) []string {
	var out []string
	for _, e := range a.Events {
		if e.Sender != "" && !slices.Contains(out, e.Sender) {
			out = append(out, e.Sender)
		}
	}
	return out
}

// peerHost is the address part of a remote address.
func peerHost(remote string) string {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return host
	}
	return remote
}

// plain is an answer about the request itself, before any event was read.
func plain(status int, code, msg string) events.Answer {
	return events.Answer{Status: status, Result: events.ResultRejected, Code: code, Message: msg, Events: []events.EventAnswer{}, Findings: []events.Finding{}}
}

func (h *Handler) answer(w http.ResponseWriter, r *http.Request, start time.Time, body []byte, a events.Answer) {
	h.write(w, r, start, body, a, encodeAnswer(a))
}

// encodeAnswer is the answer's body.
func encodeAnswer(a events.Answer) []byte {
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(a)
	return b.Bytes()
}

// write sends the answer (out is its body) at once, and reports its
// Record.
func (h *Handler) write(w http.ResponseWriter, r *http.Request, start time.Time, body []byte, a events.Answer, out []byte) {
	if a.Status == http.StatusTooManyRequests && a.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(a.RetryAfter))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(a.Status)
	_, _ = w.Write(out)
	_ = http.NewResponseController(w).Flush() // the sender need not wait for what follows
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
