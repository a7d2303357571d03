package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"
)

// Receiver limits.
const (
	// DefaultMaxKeys bounds how many idempotency keys (and event ids) a
	// Receiver remembers; the oldest is forgotten first. A repeat of a
	// forgotten key is still never processed twice: its sequence is at or
	// below the last processed one, so it is rejected as a regression.
	DefaultMaxKeys = 100_000
	// DefaultMaxParked bounds the parked events of one stream.
	DefaultMaxParked = 10_000
)

// Results a Receiver answers with, per event and per delivery.
const (
	ResultACK       = "ACK"       // processed (or released)
	ResultParked    = "PARKED"    // NB-E006: held until the gap fills; do not resend
	ResultDuplicate = "DUPLICATE" // NB-E005: the original result is in Original
	ResultRejected  = "REJECTED"  // an error: do not resend unchanged
	ResultRetry     = "RETRY"     // NB-E012 or a storage failure: resend later, unchanged
)

// ReceiverOptions configure a Receiver.
type ReceiverOptions struct {
	// Secrets are the webhook secrets (several during a rotation);
	// at least one.
	Secrets []Secret
	// Tolerance is the signature timestamp window (DefaultTolerance).
	Tolerance time.Duration
	// JWKS, when set, verifies every envelope.signature.
	JWKS *JWKS
	// RateLimit is the events per second per sender (DefaultRateLimit
	// when 0; below 0 no limit).
	RateLimit int
	// MaxKeys bounds the remembered keys (DefaultMaxKeys when 0).
	MaxKeys int
	// MaxParked bounds the parked events per stream (DefaultMaxParked
	// when 0).
	MaxParked int
	// Original reads the raw bytes of the event at position (-1: the
	// whole body) of a committed delivery, to tell a changed repeat of
	// an idempotency key from a redelivery. Nil: a changed repeat is
	// reported without naming the members that differ.
	Original func(name string, position int) ([]byte, error)
}

// Receiver is a webhook receiver's state and rules: the checks of
// Inspect applied one delivery at a time, with the ledger (keys, ids,
// streams) kept between deliveries. It does no IO: Deliver takes a
// commit function that stores the delivery durably before any state
// changes, and Replay rebuilds the state from the committed deliveries
// after a restart. Safe for concurrent use; deliveries are decided one at
// a time, in commit order.
type Receiver struct {
	opts ReceiverOptions

	mu         sync.Mutex
	l          *ledger
	rate       rateCounter
	events     int                      // events committed so far: the next event's index
	deliveries int                      // deliveries committed so far
	beats      map[int]heartbeatPending // parked HEARTBEATs by event index
}

type heartbeatPending struct {
	sender string
	claims []heartbeatClaim
}

// ErrReceiverOptions is returned by NewReceiver for unusable options.
var ErrReceiverOptions = errors.New("receiver options")

// NewReceiver returns a Receiver with an empty state.
func NewReceiver(opts ReceiverOptions) (*Receiver, error) {
	if err := checkSecrets(opts.Secrets); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReceiverOptions, err)
	}
	if opts.RateLimit == 0 {
		opts.RateLimit = DefaultRateLimit
	}
	if opts.MaxKeys <= 0 {
		opts.MaxKeys = DefaultMaxKeys
	}
	if opts.MaxParked <= 0 {
		opts.MaxParked = DefaultMaxParked
	}
	r := &Receiver{opts: opts, l: newLedger(), beats: map[int]heartbeatPending{}}
	r.l.maxKeys, r.l.maxParked, r.l.startAtOne = opts.MaxKeys, opts.MaxParked, true
	r.l.members = r.originalMembers
	return r, nil
}

// Answer is a Receiver's decision on one delivery: the HTTP status and
// body it answers with, and what it found.
type Answer struct {
	// Status is the HTTP status: 200 ACK or DUPLICATE, 202 with a parked
	// event, 400 a rejected event or body, 401 NB-E008, 409 a lower
	// sequence, 413 an event over 1 MiB, 429 NB-E012, 500 not stored.
	Status int `json:"status"`
	// Result is the delivery's result: that of its one event, or for a
	// batch REJECTED when any event was rejected, else ACK.
	Result string `json:"result"`
	// Code is the platform or finding code that explains Result.
	Code string `json:"code,omitempty"`
	// Message says what happened and what the sender should do.
	Message string `json:"message"`
	// RetryAfter is the seconds to wait before resending (NB-E012).
	RetryAfter int `json:"retryAfter,omitempty"`
	// Delivery is the committed delivery's name ("" when not committed).
	Delivery string `json:"delivery,omitempty"`
	// Events are the delivery's events in body order.
	Events []EventAnswer `json:"events"`
	// Released are earlier parked events this delivery released.
	Released []Released `json:"released,omitempty"`
	// Streams are the streams this delivery touched, after it.
	Streams []Stream `json:"streams,omitempty"`
	// Findings are what the checks found, for this delivery (and the
	// events it released).
	Findings []Finding `json:"findings"`
	// Signature is the verdict on X-NB2B-Signature (nil on a replay,
	// whose signature passed when it arrived).
	Signature *Result `json:"signature,omitempty"`
	// Committed is true when the delivery was stored and decided.
	Committed bool `json:"committed"`
}

// EventAnswer is the result for one event of a delivery.
type EventAnswer struct {
	Index          int     `json:"index"`
	Position       int     `json:"position"`
	ID             string  `json:"id,omitempty"`
	Type           string  `json:"type,omitempty"`
	Sender         string  `json:"sender,omitempty"`
	Subject        string  `json:"subject,omitempty"`
	IdempotencyKey string  `json:"idempotencykey,omitempty"`
	Sequence       int64   `json:"sequence,omitempty"`
	Receiver       string  `json:"receiver,omitempty"`
	Source         string  `json:"source,omitempty"`
	Time           string  `json:"time,omitempty"`
	CorrelationID  string  `json:"correlationid,omitempty"`
	CausationID    string  `json:"causationid,omitempty"`
	Env            string  `json:"env,omitempty"`
	Bytes          int     `json:"bytes"`
	Result         string  `json:"result"`
	Outcome        Outcome `json:"outcome"`
	Code           string  `json:"code,omitempty"`
	// Original is the first event with the same key (DUPLICATE).
	Original *Original `json:"original,omitempty"`
}

// Original is the result a key was first answered with.
type Original struct {
	Event    int     `json:"event"`
	Delivery string  `json:"delivery,omitempty"`
	Result   string  `json:"result"`
	Outcome  Outcome `json:"outcome"`
	Code     string  `json:"code,omitempty"`
}

// Released is a parked event processed once its gap filled.
type Released struct {
	Event    int    `json:"event"`
	ID       string `json:"id,omitempty"`
	Delivery string `json:"delivery,omitempty"`
}

// CommitFunc stores a delivery durably and returns its name; the
// Receiver decides only after it returned without error.
type CommitFunc func(d Delivery) (string, error)

// Deliver checks one delivery received at now, in the order of the
// delivery rules: signature over the raw body (NB-E008), envelope v2,
// the rate (NB-E012), then, once commit stored it, idempotency keys and
// ordering. A delivery refused before commit (signature, rate) changes
// no state; the caller may keep it elsewhere.
func (r *Receiver) Deliver(d Delivery, now time.Time, commit CommitFunc) Answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.deliver(d, now, commit, false)
}

// Replay applies a delivery committed before a restart, with the name
// it was committed under: as Deliver did, but without checking its
// signature again (it passed when it arrived; the secret may have been
// rotated since) or the rate.
func (r *Receiver) Replay(d Delivery) Answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.deliver(d, time.Time{}, func(d Delivery) (string, error) { return d.Name, nil }, true)
}

func (r *Receiver) deliver(d Delivery, now time.Time, commit CommitFunc, replay bool) Answer {
	c := &checker{base: r.events}
	di := r.deliveries
	dr := DeliveryReport{Index: di, Name: d.Name, Bytes: len(d.Body), HasHeaders: d.Header != nil}
	if !replay {
		c.checkSignature(&dr, d, Options{Secrets: r.opts.Secrets, Now: now, Tolerance: r.opts.Tolerance})
		if dr.Rejected {
			a := r.refuse(c, http.StatusUnauthorized, NBSignature, "the signature was rejected ("+NBSignature+"): nothing was processed; sign the exact raw body with the shared secret and a current t")
			a.Signature = dr.Signature
			return a
		}
	}
	var rep Report
	c.readBody(&rep, &dr, d)
	for i := range rep.Events {
		if !dr.Rejected && rep.Events[i].members != nil {
			c.checkJWS(&rep.Events[i], r.opts.JWKS)
		}
	}
	if !replay && !dr.Rejected {
		if a, over := r.checkRate(c, rep.Events, now); over {
			a.Signature = dr.Signature
			return a
		}
	}
	name, err := commit(d)
	if err != nil {
		a := r.refuse(c, http.StatusInternalServerError, "", "the receiver could not store the delivery durably, so nothing was processed: resend it unchanged later")
		a.Result = ResultRetry
		return a
	}
	r.deliveries++
	r.events += len(rep.Events)
	if !replay {
		r.countRate(rep.Events, now)
	}
	a := Answer{Delivery: name, Committed: true, Signature: dr.Signature}
	if dr.Rejected {
		for i := range rep.Events {
			rep.Events[i].hasErr, rep.Events[i].unread = true, true
		}
	}
	touched := map[*streamState]bool{}
	for i := range rep.Events {
		ev := &rep.Events[i]
		released := r.l.accept(c, ev, true)
		if rec := r.l.keys[[2]string{ev.Receiver, ev.IdempotencyKey}]; rec != nil && rec.event == ev.Index {
			rec.name = name
		}
		st := r.l.stream(ev, false)
		if st != nil {
			touched[st] = true
		}
		beat := isHeartbeat(ev) && ev.Sender != ""
		switch {
		case ev.Outcome == OutcomeParked:
			ref := st.parked[ev.Sequence]
			ref.name = name
			st.parked[ev.Sequence] = ref
			if beat {
				r.beats[ev.Index] = heartbeatPending{sender: ev.Sender, claims: c.heartbeatClaims(ev)}
			}
		case ev.Outcome == OutcomeProcessed && beat:
			for _, st := range c.applyHeartbeat(refOf(ev), ev.Sender, c.heartbeatClaims(ev), r.l.streams, true) {
				touched[st] = true
			}
		}
		for _, rel := range released {
			a.Released = append(a.Released, Released{Event: rel.event, ID: rel.id, Delivery: rel.name})
			if hb, ok := r.beats[rel.event]; ok {
				delete(r.beats, rel.event)
				for _, st := range c.applyHeartbeat(rel, hb.sender, hb.claims, r.l.streams, true) {
					touched[st] = true
				}
			}
		}
	}
	r.answerEvents(c, &a, &dr, rep.Events)
	a.Streams = r.streamsAfter(c, touched)
	a.Findings = sortFindings(c.findings)
	return a
}

// refuse answers a delivery that is not committed: no state changed.
func (r *Receiver) refuse(c *checker, status int, code, msg string) Answer {
	return Answer{Status: status, Result: ResultRejected, Code: code, Message: msg, Events: []EventAnswer{}, Findings: sortFindings(c.findings)}
}

// checkRate refuses a delivery whose events would take a sender over the
// rate limit in the current second (NB-E012 with Retry-After).
func (r *Receiver) checkRate(c *checker, evs []Event, now time.Time) (Answer, bool) {
	if r.opts.RateLimit < 0 {
		return Answer{}, false
	}
	sec := now.Unix()
	r.rate.forgetBefore(sec)
	per := map[string]int{}
	var order []string
	for i := range evs {
		if s := evs[i].Sender; s != "" {
			if per[s] == 0 {
				order = append(order, s)
			}
			per[s]++
		}
	}
	for _, s := range order {
		had := r.rate.count(rateSlot{s, sec})
		if had+per[s] <= r.opts.RateLimit {
			continue
		}
		wait := 1
		msg := fmt.Sprintf("sender %s already delivered %d events in this second; %d more would exceed the limit of %d events/s per partner (%s): nothing was processed; resend this delivery unchanged after Retry-After (%d s)",
			clip(s, 40), had, per[s], r.opts.RateLimit, NBRateLimit, wait)
		if per[s] > r.opts.RateLimit {
			msg = fmt.Sprintf("the delivery holds %d events of sender %s, more than the limit of %d events/s per partner (%s): split it into batches of at most %d events",
				per[s], clip(s, 40), r.opts.RateLimit, NBRateLimit, r.opts.RateLimit)
			wait = 0
		}
		c.add(SevError, CodeRateLimit, r.deliveries, nil, "", "%s", msg)
		a := r.refuse(c, http.StatusTooManyRequests, NBRateLimit, msg)
		a.Result, a.RetryAfter = ResultRetry, wait
		if wait == 0 {
			a.Result = ResultRejected
		}
		return a, true
	}
	return Answer{}, false
}

func (r *Receiver) countRate(evs []Event, now time.Time) {
	if r.opts.RateLimit < 0 {
		return
	}
	for i := range evs {
		if s := evs[i].Sender; s != "" {
			r.rate.add(rateSlot{s, now.Unix()}, 1)
		}
	}
}

// Streams returns the ordering state of every stream, in first-seen
// order.
func (r *Receiver) Streams() []Stream {
	r.mu.Lock()
	defer r.mu.Unlock()
	list := make([]*streamState, 0, len(r.l.streams))
	for _, st := range r.l.streams {
		list = append(list, st)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].order < list[j].order })
	out := make([]Stream, 0, len(list))
	for _, st := range list {
		st.settle()
		s := st.snapshot()
		s.Parked = append(make([]int64, 0, len(s.Parked)), s.Parked...)
		out = append(out, s)
	}
	return out
}

// Counts reports the committed deliveries and events, and how many keys
// the Receiver remembers.
func (r *Receiver) Counts() (deliveries, events, keys int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.deliveries, r.events, len(r.l.keys)
}

// originalMembers reads a remembered original back from its delivery.
func (r *Receiver) originalMembers(rec *keyRecord) map[string]json.RawMessage {
	if r.opts.Original == nil || rec.name == "" {
		return nil
	}
	raw, err := r.opts.Original(rec.name, rec.position)
	if err != nil {
		return nil
	}
	m, _, err := decodeMembers(raw)
	if err != nil {
		return nil
	}
	return m
}

// EventAt returns the raw bytes of the event at position (-1: a single
// event, the whole body) of a delivery body: what ReceiverOptions.Original
// needs from a stored capture.
func EventAt(body []byte, position int) ([]byte, error) {
	if position < 0 {
		return body, nil
	}
	elems, err := splitArray(trimJSONSpace(body))
	if err != nil {
		return nil, err
	}
	if position >= len(elems) {
		return nil, fmt.Errorf("the batch has %d events, not %d", len(elems), position+1)
	}
	return elems[position], nil
}

func trimJSONSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	return b
}
