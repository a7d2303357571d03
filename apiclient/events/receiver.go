package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Receiver limits.
const (
	// DefaultMaxKeys bounds how many idempotency keys (and event ids) a
	// Receiver without a StateStore remembers; the oldest is forgotten
	// first. A repeat of a forgotten key is still never processed twice:
	// its sequence is at or below the last processed one, so it is
	// rejected as a regression. With a StateStore keys are kept for the
	// store's retention instead.
	DefaultMaxKeys = 100_000
	// DefaultMaxParked bounds the parked events of one stream.
	DefaultMaxParked = 10_000
	// ReceivedHeader is the capture header with the receipt time (RFC
	// 3339): a replayed key's retention counts from it.
	ReceivedHeader = "X-B2bx-Received"
	// replayFlush is how many replayed deliveries are stored at once.
	replayFlush = 256
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
	// KeySets, when set, returns the key set of a sender's events (nil:
	// that sender has none; JWKS applies then). An event of a sender
	// with a key set must carry an envelope.signature that verifies:
	// a missing or bad one rejects the event (JWS_MISSING, JWS_INVALID).
	KeySets func(sender string) *JWKS
	// RateLimit is the events per second per sender (DefaultRateLimit
	// when 0; below 0 no limit).
	RateLimit int
	// MaxKeys bounds the remembered keys without a State
	// (DefaultMaxKeys when 0).
	MaxKeys int
	// MaxParked bounds the parked events per stream (DefaultMaxParked
	// when 0).
	MaxParked int
	// State keeps the ledger (nil: in memory, bounded by MaxKeys). The
	// Receiver goes on from the state it holds.
	State StateStore
	// Original reads the raw bytes of the event at position (-1: the
	// whole body) of a committed delivery, to tell a changed repeat of
	// an idempotency key from a redelivery. Nil: a changed repeat is
	// reported without naming the members that differ.
	Original func(name string, position int) ([]byte, error)
}

// Receiver is a webhook receiver's state and rules: the checks of
// Inspect applied one delivery at a time, with the ledger (keys, ids,
// streams) kept between deliveries in its StateStore. It does no IO of
// its own: DeliverAll takes a Committer that stores the deliveries
// durably before any answer stands, and Replay applies the committed
// deliveries the state does not hold yet after a restart. Safe for
// concurrent use; deliveries are decided one at a time, in commit order.
type Receiver struct {
	opts ReceiverOptions
	st   StateStore

	mu sync.Mutex
	// l and beats are the records of the current batch over st: loaded
	// on first use, written back by flush (nil beat: released).
	l     *ledger
	beats map[int]*heartbeatPending
	// pmu guards rate and peers, and nothing else: the checks made before
	// a body is read (CheckHeader, CheckPeerRate) and NoteSenders after
	// an answer take only it, never mu, which the committer holds while a
	// batch is stored (fsyncs). Taking mu there made every delivery wait
	// for the batch before it to be stored, so the batches stayed small
	// (issue 24 §3b). Order: mu, then pmu.
	pmu        sync.Mutex
	rate       rateCounter
	peers      map[string][]string // peer address → senders it delivered for (NoteSenders)
	events     int                 // events committed so far: the next event's index
	deliveries int                 // deliveries committed so far
	// seen mirrors deliveries for the checks that do not take mu (the
	// index a refusal's report shows).
	seen  atomic.Int64
	last  string // the last committed delivery's name
	clock time.Time
	// dirty: the batch's records are not stored yet (a failed flush).
	dirty    bool
	replayed int
	// loadErr is the first failure to read the state in this batch.
	loadErr  error
	flushErr error
}

type heartbeatPending struct {
	sender string
	claims []heartbeatClaim
}

// ErrReceiverOptions is returned by NewReceiver for unusable options.
var ErrReceiverOptions = errors.New("receiver options")

// ErrState matches a failure to read or store a Receiver's state.
var ErrState = errors.New("receiver state")

// NewReceiver returns a Receiver over opts.State (an empty state in
// memory when nil).
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
	st := opts.State
	if st == nil {
		st = newMemState(opts.MaxKeys)
	}
	meta, err := st.Meta()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrState, err)
	}
	r := &Receiver{opts: opts, st: st, events: meta.Events, deliveries: meta.Deliveries, last: meta.Last}
	r.seen.Store(int64(meta.Deliveries))
	r.reset(meta.Streams)
	return r, nil
}

// CommitFunc stores a delivery durably and returns its name; the
// Receiver decides only after it returned without error.
type CommitFunc func(d Delivery) (string, error)

// Committer stores a batch of deliveries durably, all or none: what
// DeliverAll needs.
type Committer interface {
	// Names returns the names the next n deliveries are stored under.
	Names(n int) ([]string, error)
	// CommitAll stores ds durably under names (the first len(ds) of the
	// last Names), in order; at[k] is the index of ds[k] among the
	// arrivals given to DeliverAll (a committer that began writing them
	// before the decisions finds its work by it). An error means none
	// is kept.
	CommitAll(ds []Delivery, at []int, names []string) error
}

// Arrival is a delivery and when it arrived.
type Arrival struct {
	Delivery Delivery
	Now      time.Time
}

var errStateBroken = "the receiver could not keep its state (%s), so nothing was processed: resend it unchanged later"

// Deliver checks one delivery received at now, in the order of the
// delivery rules: signature over the raw body (NB-E008), envelope v2,
// the rate (NB-E012), then, once commit stored it, idempotency keys and
// ordering. A delivery refused before commit (signature, rate) changes
// no state; the caller may keep it elsewhere.
func (r *Receiver) Deliver(d Delivery, now time.Time, commit CommitFunc) Answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, broken := r.unflushed(); broken {
		return a
	}
	p, refused := r.precheck(d, now, false)
	if refused != nil {
		return *refused
	}
	name, err := commit(d)
	if err != nil {
		return notStored(p.c)
	}
	sv := r.save()
	a := r.apply(p, name)
	if r.loadErr != nil {
		err := r.loadErr
		r.restore(sv)
		return stateAnswer(p.c, err)
	}
	_ = r.flush() // on failure the batch stays in memory and is stored with the next
	return a
}

// DeliverAll decides a batch of deliveries in order, as Deliver each,
// and stores the accepted ones with one CommitAll: a sender gets an
// answer only after its delivery is durable, and when the commit fails
// every accepted delivery is answered 500 RETRY and nothing changed.
// Call Flush after answering to store the batch's state (the next
// DeliverAll does it otherwise).
func (r *Receiver) DeliverAll(in []Arrival, c Committer) []Answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Answer, len(in))
	if a, broken := r.unflushed(); broken {
		for i := range out {
			out[i] = a
		}
		return out
	}
	names, err := c.Names(len(in))
	if err != nil || len(names) < len(in) {
		for i := range out {
			out[i] = notStored(&checker{})
		}
		return out
	}
	sv := r.save()
	var accepted []int
	var ds []Delivery
	var checkers []*checker
	for i, a := range in {
		if !a.Now.IsZero() && a.Now.After(r.clock) {
			r.clock = a.Now
		}
		p, refused := r.precheck(a.Delivery, a.Now, false)
		if refused != nil {
			out[i] = *refused
			continue
		}
		out[i] = r.apply(p, names[len(accepted)])
		accepted = append(accepted, i)
		ds = append(ds, a.Delivery)
		checkers = append(checkers, p.c)
	}
	if len(accepted) == 0 {
		return out
	}
	fail := func(a func(c *checker) Answer) []Answer {
		r.restore(sv)
		for k, i := range accepted {
			out[i] = a(checkers[k])
		}
		return out
	}
	if err := r.loadErr; err != nil {
		return fail(func(c *checker) Answer { return stateAnswer(c, err) })
	}
	if err := c.CommitAll(ds, accepted, names[:len(accepted)]); err != nil {
		return fail(notStored)
	}
	// The captures are durable: the answers stand. The batch's records
	// are stored by Flush (the caller's, once it answered) or at the
	// latest before the next batch is decided.
	r.dirty = true
	return out
}

// Authentic reports whether d passes the signature check that deciding
// it begins with, at now: false means DeliverAll refuses it (401
// NB-E008). It changes nothing and takes no lock; a caller uses it to
// spend a durable write only on a delivery that can be committed.
func (r *Receiver) Authentic(d Delivery, now time.Time) bool {
	var dr DeliveryReport
	(&checker{}).checkSignature(&dr, d, Options{Secrets: r.opts.Secrets, Now: now, Tolerance: r.opts.Tolerance})
	return !dr.Rejected
}

// unflushed retries storing a batch whose flush failed; while that
// fails, nothing is decided (the state would lag the answers).
func (r *Receiver) unflushed() (Answer, bool) {
	if !r.dirty || r.flush() == nil {
		return Answer{}, false
	}
	return stateAnswer(&checker{}, r.flushErr), true
}

func notStored(c *checker) Answer {
	a := refuseWith(c, http.StatusInternalServerError, "", "the receiver could not store the delivery durably, so nothing was processed: resend it unchanged later")
	a.Result = ResultRetry
	return a
}

func stateAnswer(c *checker, err error) Answer {
	a := refuseWith(c, http.StatusInternalServerError, "", fmt.Sprintf(errStateBroken, err))
	a.Result = ResultRetry
	return a
}

// Replay applies a delivery committed before a restart, with the name
// it was committed under: as Deliver did, but without checking its
// signature again (it passed when it arrived; the secret may have been
// rotated since) or the rate. What it applied is stored every few
// hundred deliveries and by Flush.
func (r *Receiver) Replay(d Delivery) Answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, _ := r.precheck(d, time.Time{}, true)
	a := r.apply(p, d.Name)
	if r.replayed++; r.replayed >= replayFlush {
		_ = r.flush()
	}
	return a
}

// prepared is a delivery that passed the checks before its commit.
type prepared struct {
	c      *checker
	dr     DeliveryReport
	evs    []Event
	now    time.Time
	replay bool
}

// precheck runs the checks before the commit: signature (not on a
// replay), body and envelopes, envelope.signature, rate. A refused
// delivery gets its answer; nothing changed.
func (r *Receiver) precheck(d Delivery, now time.Time, replay bool) (*prepared, *Answer) {
	c := &checker{base: r.events}
	dr := DeliveryReport{Index: r.deliveries, Name: d.Name, Bytes: len(d.Body), HasHeaders: d.Header != nil}
	if !replay {
		c.checkSignature(&dr, d, Options{Secrets: r.opts.Secrets, Now: now, Tolerance: r.opts.Tolerance})
		if dr.Rejected {
			a := r.refuse(c, http.StatusUnauthorized, NBSignature, "the signature was rejected ("+NBSignature+"): nothing was processed; sign the exact raw body with the shared secret and a current t")
			a.Signature = dr.Signature
			return nil, &a
		}
	}
	var rep Report
	c.readBody(&rep, &dr, d)
	for i := range rep.Events {
		if !dr.Rejected && rep.Events[i].members != nil {
			jwks, required := r.keySet(rep.Events[i].Sender)
			c.checkJWS(&rep.Events[i], jwks, required)
		}
	}
	if !replay && !dr.Rejected {
		if a, over := r.checkRate(c, rep.Events, now); over {
			a.Signature = dr.Signature
			return nil, &a
		}
	}
	at := now
	if replay {
		at = receivedAt(d)
	}
	for i := range rep.Events {
		rep.Events[i].at = at.Unix()
	}
	return &prepared{c: c, dr: dr, evs: rep.Events, now: now, replay: replay}, nil
}

// keySet is the JWKS for a sender's events, and whether its events must
// be signed.
func (r *Receiver) keySet(sender string) (*JWKS, bool) {
	if r.opts.KeySets != nil {
		if k := r.opts.KeySets(sender); k != nil {
			return k, true
		}
	}
	return r.opts.JWKS, false
}

// receivedAt is when a committed delivery arrived (its capture's
// receipt header; now when it has none).
func receivedAt(d Delivery) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, d.Header.Get(ReceivedHeader)); err == nil {
		return t
	}
	if t, err := http.ParseTime(d.Header.Get("Date")); err == nil {
		return t
	}
	return time.Now()
}

// apply decides a delivery stored (or about to be stored) under name:
// idempotency keys, ordering, HEARTBEATs.
func (r *Receiver) apply(p *prepared, name string) Answer {
	c, dr, evs := p.c, &p.dr, p.evs
	r.deliveries++
	r.seen.Store(int64(r.deliveries))
	r.events += len(evs)
	r.last = name
	if !p.replay {
		r.countRate(evs, p.now)
	}
	a := Answer{Delivery: name, Committed: true, Signature: dr.Signature}
	if dr.Rejected {
		for i := range evs {
			evs[i].hasErr, evs[i].unread = true, true
		}
	}
	touched := map[*streamState]bool{}
	for i := range evs {
		ev := &evs[i]
		released := r.l.accept(c, ev, true)
		if rec := r.l.key([2]string{ev.Receiver, ev.IdempotencyKey}); rec != nil && rec.event == ev.Index {
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
				r.beats[ev.Index] = &heartbeatPending{sender: ev.Sender, claims: c.heartbeatClaims(ev)}
			}
		case ev.Outcome == OutcomeProcessed && beat:
			for _, st := range c.applyHeartbeat(refOf(ev), ev.Sender, c.heartbeatClaims(ev), r.l, true) {
				touched[st] = true
			}
		}
		for _, rel := range released {
			a.Released = append(a.Released, Released{Event: rel.event, ID: rel.id, Delivery: rel.name})
			if hb, ok := r.takeBeat(rel.event); ok {
				for _, st := range c.applyHeartbeat(rel, hb.sender, hb.claims, r.l, true) {
					touched[st] = true
				}
			}
		}
	}
	r.answerEvents(c, &a, dr, evs)
	a.Streams = r.streamsAfter(c, touched)
	a.Findings = sortFindings(c.findings)
	return a
}

// Streams returns the ordering state of every stream, in first-seen
// order (all of them: for tests and small receivers).
func (r *Receiver) Streams() []Stream {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.flush()
	var list []*streamState
	_ = r.st.Each(StateStream, func(_ string, v []byte) error {
		if st, err := decodeStream(v); err == nil {
			list = append(list, st)
		}
		return nil
	})
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
	_ = r.flush()
	keys, _ = r.st.Count(StateKey)
	return r.deliveries, r.events, keys
}

// Delivered reports the committed deliveries and events (Counts without
// counting the keys, which takes long in a large state).
func (r *Receiver) Delivered() (deliveries, events int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.deliveries, r.events
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
