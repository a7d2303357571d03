package events

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

var errTrailingJSON = errors.New("data after the end of the JSON array")

// Stream is the ordering state of one sender+subject after the set was
// processed.
type Stream struct {
	Sender  string `json:"sender"`
	Subject string `json:"subject"`
	// First is the sequence the stream was assumed to start at.
	First int64 `json:"first"`
	// LastProcessed is the highest sequence processed without a gap.
	LastProcessed int64 `json:"lastProcessed"`
	// Parked are sequences still waiting for a gap to fill (NB-E006).
	Parked []int64 `json:"parked"`
	// Missing are the sequences the sender must (re)send, as ranges
	// "3-5", "7": the holes below the highest parked sequence, and up to
	// the last sequence a HEARTBEAT reported.
	Missing []string `json:"missing"`
	// Heartbeat is the highest last sequence a processed HEARTBEAT of the
	// sender reported for this subject (data.last_sequences); 0: none.
	Heartbeat int64 `json:"heartbeat,omitempty"`
}

type streamKey struct{ sender, subject string }

// eventRef names an event the ledger remembers after the event itself is
// gone (a live receiver keeps no bodies): its index, its delivery, its id
// and its receiver+key.
type eventRef struct {
	event    int
	delivery int
	id       string
	key      [2]string
	// name is the delivery's name (a live receiver's parked events).
	name string
}

func refOf(ev *Event) eventRef {
	return eventRef{event: ev.Index, delivery: ev.Delivery, id: ev.ID, key: [2]string{ev.Receiver, ev.IdempotencyKey}}
}

// stub is the Event a finding about a remembered event is attached to.
func (r eventRef) stub() *Event { return &Event{Index: r.event, Delivery: r.delivery, ID: r.id} }

type streamState struct {
	Stream
	parked   map[int64]eventRef // sequence -> the event parked with it
	rejected map[int64]int      // sequence -> first event with it rejected for its own errors
	unread   map[int64]int      // sequence -> first event with it rejected with its delivery
	// beat is the HEARTBEAT that reported Heartbeat (event -1: none).
	beat  eventRef
	order int
}

func newStreamState(sender, subject string, first int64, order int) *streamState {
	return &streamState{Stream: Stream{Sender: sender, Subject: subject, First: first},
		parked: map[int64]eventRef{}, rejected: map[int64]int{}, unread: map[int64]int{}, beat: eventRef{event: -1}, order: order}
}

// firstOf records event i for sequence s unless one is recorded.
func firstOf(m map[int64]int, s int64, i int) {
	if _, seen := m[s]; !seen {
		m[s] = i
	}
}

// keyRecord is what the ledger remembers of the first event with an
// idempotency key: enough to answer a repeat with the original result.
type keyRecord struct {
	event    int
	delivery int
	outcome  Outcome
	// code is the first error of a rejected original (live answers).
	code Code
	// digest is the SHA-256 of the original's raw bytes: an identical
	// repeat needs no comparison member by member.
	digest [32]byte
	// name and position locate the original in its captured delivery.
	name     string
	position int
	// at is when the key was first seen (Unix seconds): a receiver keeps
	// it for the retention from then.
	at int64
}

type idRecord struct {
	event int
	key   string
	at    int64 // first seen (Unix seconds)
}

// ledger is what a receiver remembers between events: the idempotency
// keys and event ids it has seen and the ordering state of every
// sender+subject. Inspect keeps one for a set of captures; a Receiver
// keeps one per batch of deliveries over its StateStore (src loads what
// the maps do not hold yet).
type ledger struct {
	streams map[streamKey]*streamState
	keys    map[[2]string]*keyRecord
	ids     map[string]idRecord
	// src, when set, loads the records the maps do not hold.
	src ledgerSource
	// created counts the streams created (their first-seen order).
	created int
	// live: a receiver's ledger, which prunes what no message reads.
	live bool
	// maxParked bounds the parked sequences of one stream; 0: no bound.
	maxParked int
	// startAtOne: a stream created on first sight starts at sequence 1.
	startAtOne bool
	// members returns the members of a remembered original, for
	// comparing a changed repeat with it (nil when it cannot be read).
	members func(rec *keyRecord) map[string]json.RawMessage
}

// ledgerSource loads a live receiver's records from its StateStore.
type ledgerSource interface {
	loadKey(rk [2]string) *keyRecord
	loadID(id string) (idRecord, bool)
	loadStream(k streamKey) *streamState
}

func newLedger() *ledger {
	return &ledger{streams: map[streamKey]*streamState{}, keys: map[[2]string]*keyRecord{}, ids: map[string]idRecord{}}
}

// key returns the record of an idempotency key (nil: never seen).
func (l *ledger) key(rk [2]string) *keyRecord {
	if rec, ok := l.keys[rk]; ok || l.src == nil {
		return rec
	}
	rec := l.src.loadKey(rk)
	if rec != nil {
		l.keys[rk] = rec
	}
	return rec
}

func (l *ledger) id(id string) (idRecord, bool) {
	if r, ok := l.ids[id]; ok || l.src == nil {
		return r, ok
	}
	r, ok := l.src.loadID(id)
	if ok {
		l.ids[id] = r
	}
	return r, ok
}

// streamOf returns the state of one sender+subject (nil: none yet).
func (l *ledger) streamOf(k streamKey) *streamState {
	if st, ok := l.streams[k]; ok || l.src == nil {
		return st
	}
	st := l.src.loadStream(k)
	if st != nil {
		l.streams[k] = st
	}
	return st
}

// newStream starts a stream at sequence 1.
func (l *ledger) newStream(k streamKey) *streamState {
	st := newStreamState(k.sender, k.subject, 1, l.created)
	l.created++
	l.streams[k] = st
	return st
}

// stream returns the state of ev's sender+subject; with create, a stream
// seen for the first time starts (at 1).
func (l *ledger) stream(ev *Event, create bool) *streamState {
	if ev.Sequence == 0 || ev.Sender == "" || ev.Subject == "" {
		return nil
	}
	k := streamKey{ev.Sender, ev.Subject}
	st := l.streamOf(k)
	if st == nil && create {
		st = l.newStream(k)
	}
	return st
}

// note records a rejected sequence for the gap messages; a live
// receiver keeps at most maxParked of them per stream.
func (l *ledger) note(m map[int64]int, s int64, i int) {
	if l.maxParked > 0 && len(m) >= l.maxParked {
		return
	}
	firstOf(m, s, i)
}

// simulate replays the events through a receiver: idempotency keys per
// receiver, then ordering per sender+subject. It sets each Outcome.
func (c *checker) simulate(evs []Event, startAtOne bool) []Stream {
	l := newLedger()
	l.streams = c.newStreams(evs, startAtOne)
	l.created = len(l.streams)
	l.members = func(rec *keyRecord) map[string]json.RawMessage { return evs[rec.event].members }
	for i := range evs {
		for _, r := range l.accept(c, &evs[i], false) {
			evs[r.event].Outcome = OutcomeReleased
		}
	}
	c.applyHeartbeats(evs, l, startAtOne)
	return c.finishStreams(l.streams)
}

// accept applies one event to the ledger, in the receiver's order:
// idempotency key, event id, the event's own errors, then its stream.
// It sets ev.Outcome and returns the parked events it released. With
// create, a stream seen for the first time is started (a live receiver);
// Inspect creates every stream beforehand.
func (l *ledger) accept(c *checker, ev *Event, create bool) []eventRef {
	if ev.unread {
		// Rejected before it was read (signature, size, unreadable
		// body): the receiver recorded neither its key nor its
		// sequence, and unauthenticated content must not change what
		// it remembers. The sender gets no ACK and retries; the retry
		// is processed as new.
		ev.Outcome = OutcomeRejected
		if st := l.stream(ev, false); st != nil {
			l.note(st.unread, ev.Sequence, ev.Index)
		}
		return nil
	}
	var rec *keyRecord
	if ev.IdempotencyKey != "" {
		rk := [2]string{ev.Receiver, ev.IdempotencyKey}
		if first := l.key(rk); first != nil {
			c.duplicate(ev, first, l.members)
			return nil
		}
		rec = &keyRecord{event: ev.Index, delivery: ev.Delivery, digest: sha256.Sum256(ev.raw), position: ev.Position, at: ev.at}
		l.keys[rk] = rec
	}
	prev, ok := idRecord{}, false
	if ev.ID != "" {
		prev, ok = l.id(ev.ID)
	}
	if ok && prev.key != ev.IdempotencyKey {
		c.add(SevWarning, CodeDuplicateID, ev.Delivery, ev, "id",
			"event id %q was already sent as event #%d under another idempotency key, so a receiver processes both (idempotency is by key): a redelivery must reuse the original key", clip(ev.ID, 80), prev.event)
	} else if !ok && ev.ID != "" {
		l.ids[ev.ID] = idRecord{event: ev.Index, key: ev.IdempotencyKey, at: ev.at}
	}
	var released []eventRef
	switch st := l.stream(ev, create && !ev.hasErr); {
	case ev.hasErr:
		ev.Outcome = OutcomeRejected
		if st := l.stream(ev, false); st != nil {
			l.note(st.rejected, ev.Sequence, ev.Index)
		}
		if rec != nil {
			rec.code = c.firstError(ev.Index)
		}
	case st == nil:
		ev.Outcome = OutcomeProcessed
	default:
		released = l.order(c, st, ev)
	}
	if rec != nil {
		rec.outcome = ev.Outcome
	}
	return released
}

// firstError is the code of the first error finding about event i.
func (c *checker) firstError(i int) Code { return c.firstErr[i] }

// newStreams finds every sender+subject with a valid sequence and its
// starting point.
func (c *checker) newStreams(evs []Event, startAtOne bool) map[streamKey]*streamState {
	streams := map[streamKey]*streamState{}
	for _, ev := range evs {
		if ev.Sequence == 0 || ev.Sender == "" || ev.Subject == "" {
			continue
		}
		k := streamKey{ev.Sender, ev.Subject}
		st := streams[k]
		if st == nil {
			st = newStreamState(ev.Sender, ev.Subject, ev.Sequence, len(streams))
			streams[k] = st
		}
		st.First = min(st.First, ev.Sequence)
	}
	for _, st := range streams {
		if startAtOne {
			st.First = 1
		}
		st.LastProcessed = st.First - 1
	}
	return streams
}

// order applies one accepted event to its stream: process, park or
// reject. It returns the parked events the event released.
func (l *ledger) order(c *checker, st *streamState, ev *Event) []eventRef {
	s := ev.Sequence
	if j, ok := st.parked[s]; ok || s <= st.LastProcessed {
		ev.Outcome = OutcomeRejected
		why := fmt.Sprintf("not above the last processed sequence %d", st.LastProcessed)
		if ok {
			why = fmt.Sprintf("already parked as event #%d", j.event)
		}
		c.add(SevError, CodeRegression, ev.Delivery, ev, "sequence",
			"sequence %d for sender %s, subject %s is %s: the receiver rejects it (a lower sequence than already processed); if it is a new event it needs the next sequence, if it is a redelivery it must keep its original idempotency key",
			s, clip(st.Sender, 40), clip(st.Subject, 60), why)
		return nil
	}
	if s > st.LastProcessed+1 {
		if l.maxParked > 0 && len(st.parked) >= l.maxParked {
			ev.Outcome = OutcomeRejected
			c.add(SevError, CodeSequenceGap, ev.Delivery, ev, "sequence",
				"sequence %d for sender %s, subject %s: %d events of this stream are already parked waiting for sequence %d, the most this receiver holds: send the missing sequences first, then this one again",
				s, clip(st.Sender, 40), clip(st.Subject, 60), len(st.parked), st.LastProcessed+1)
			return nil
		}
		ev.Outcome = OutcomeParked
		st.parked[s] = refOf(ev)
		return nil
	}
	ev.Outcome = OutcomeProcessed
	st.LastProcessed = s
	var released []eventRef
	for {
		j, ok := st.parked[st.LastProcessed+1]
		if !ok {
			break
		}
		delete(st.parked, st.LastProcessed+1)
		st.LastProcessed++
		released = append(released, j)
		if rec := l.key(j.key); rec != nil && rec.event == j.event {
			rec.outcome = OutcomeReleased
		}
		c.add(SevInfo, CodeOutOfOrder, j.delivery, j.stub(), "sequence",
			"sequence %d arrived before %d: the receiver parked it (%s) and processed it once event #%d filled the gap; nothing to do",
			st.LastProcessed, s, NBParked, ev.Index)
	}
	if l.live {
		st.prune()
	}
	return released
}

// prune forgets the rejection notes at or below the last processed
// sequence (no message reads them any more): a live receiver's memory.
func (st *streamState) prune() {
	for _, m := range []map[int64]int{st.rejected, st.unread} {
		for s := range m {
			if s <= st.LastProcessed {
				delete(m, s)
			}
		}
	}
}

// finishStreams reports what is still parked and what the sender must
// replay.
func (c *checker) finishStreams(streams map[streamKey]*streamState) []Stream {
	list := make([]*streamState, 0, len(streams))
	for _, st := range streams {
		list = append(list, st)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].order < list[j].order })
	out := make([]Stream, 0, len(list))
	for _, st := range list {
		if st.First > 1 {
			c.add(SevInfo, CodeSequenceStart, -1, nil, "", "sender %s, subject %s: the first sequence in this set is %d; sequences %s are assumed processed before (use --from-start if the set should start at 1)",
				clip(st.Sender, 40), clip(st.Subject, 60), st.First, rangeText(1, st.First-1))
		}
		upTo := st.settle()
		if len(st.Missing) > 0 {
			c.reportGap(st, upTo, SevError)
		}
		out = append(out, st.snapshot())
	}
	return out
}

// settle fills Parked and Missing from the state and returns the last
// sequence the receiver knows of (parked or reported by a HEARTBEAT).
func (st *streamState) settle() int64 {
	st.Parked = make([]int64, 0, len(st.parked))
	for s := range st.parked {
		st.Parked = append(st.Parked, s)
	}
	slices64(st.Parked)
	upTo := st.Heartbeat
	if n := len(st.Parked); n > 0 {
		upTo = max(upTo, st.Parked[n-1])
	}
	st.Missing = missingRanges(st.LastProcessed, st.Parked, upTo)
	return upTo
}

// snapshot is the stream's public state (Missing never nil).
func (st *streamState) snapshot() Stream {
	out := st.Stream
	if out.Missing == nil {
		out.Missing = []string{}
	}
	return out
}

// reportGap says what the receiver is waiting for in one stream: what is
// parked, what a HEARTBEAT reported beyond it, and what the sender must
// replay (sequences after the last processed one, up to upTo).
func (c *checker) reportGap(st *streamState, upTo int64, sev Severity) {
	parked := make([]string, 0, len(st.Parked))
	for i, s := range st.Parked {
		if i == 10 {
			parked = append(parked, fmt.Sprintf("and %d more", len(st.Parked)-10))
			break
		}
		parked = append(parked, fmt.Sprintf("%d (event #%d)", s, st.parked[s].event))
	}
	stillMissing := func(m map[int64]int) string {
		var seqs []int64
		for s := range m {
			if _, isParked := st.parked[s]; s > st.LastProcessed && s <= upTo && !isParked {
				seqs = append(seqs, s)
			}
		}
		slices64(seqs)
		out := make([]string, 0, len(seqs))
		for _, s := range seqs {
			out = append(out, fmt.Sprintf("%d (event #%d)", s, m[s]))
		}
		return strings.Join(out, ", ")
	}
	msg := fmt.Sprintf("sender %s, subject %s: processed up to sequence %d", clip(st.Sender, 40), clip(st.Subject, 60), st.LastProcessed)
	if len(st.Parked) > 0 {
		msg += fmt.Sprintf("; parked (%s), waiting for the gap: %s", NBParked, strings.Join(parked, ", "))
	}
	if st.beat.event >= 0 && (len(st.Parked) == 0 || st.Heartbeat > st.Parked[len(st.Parked)-1]) {
		msg += fmt.Sprintf("; HEARTBEAT #%d reports last sequence %d, beyond what the receiver processed", st.beat.event, st.Heartbeat)
	}
	msg += fmt.Sprintf(". The sender must replay sequence %s unchanged (same idempotency key); receivers detect the gap through HEARTBEAT last_sequences",
		strings.Join(st.Missing, ", "))
	if r := stillMissing(st.rejected); r != "" {
		msg += fmt.Sprintf(". Rejected, so still missing: %s: fix and send them with a new idempotency key and the same sequence", r)
	}
	if r := stillMissing(st.unread); r != "" {
		msg += fmt.Sprintf(". Rejected with their delivery before it was read (signature, size or body; %s for a signature), so still missing: %s: send them again in a delivery that passes; the receiver recorded neither their keys nor their sequences", NBSignature, r)
	}
	if len(st.Parked) > 0 {
		first := st.parked[st.Parked[0]]
		c.add(sev, CodeSequenceGap, first.delivery, first.stub(), "sequence", "%s", msg)
		return
	}
	c.add(sev, CodeSequenceMissing, st.beat.delivery, st.beat.stub(), "data.last_sequences", "%s", msg)
}

func slices64(s []int64) { sort.Slice(s, func(i, j int) bool { return s[i] < s[j] }) }

// missingRanges lists the sequences after last up to upTo that are not
// parked (sorted), as ranges.
func missingRanges(last int64, parked []int64, upTo int64) []string {
	var out []string
	next := last + 1
	for _, p := range parked {
		if p > next {
			out = append(out, rangeText(next, p-1))
			if len(out) == 20 {
				return append(out, "…")
			}
		}
		next = p + 1
	}
	if next <= upTo {
		out = append(out, rangeText(next, upTo))
	}
	return out
}

func rangeText(a, b int64) string {
	if a == b {
		return strconv.FormatInt(a, 10)
	}
	return strconv.FormatInt(a, 10) + "-" + strconv.FormatInt(b, 10)
}
