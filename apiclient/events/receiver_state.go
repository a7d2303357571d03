package events

import (
	"fmt"
	"strconv"
)

// reset starts an empty batch over the store.
func (r *Receiver) reset(streams int) {
	r.l = newLedger()
	r.l.src, r.l.live, r.l.created = r, true, streams
	r.l.maxParked, r.l.startAtOne = r.opts.MaxParked, true
	r.l.members = r.originalMembers
	r.beats = map[int]*heartbeatPending{}
	r.loadErr = nil
}

// StateStore is the store the Receiver keeps its state in.
func (r *Receiver) StateStore() StateStore { return r.st }

// Last is the name of the last delivery the state holds ("" for none):
// a restart replays the captures after it.
func (r *Receiver) Last() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

func (r *Receiver) loadFailed(err error) {
	if r.loadErr == nil {
		r.loadErr = fmt.Errorf("%w: %w", ErrState, err)
	}
}

func (r *Receiver) loadKey(rk [2]string) *keyRecord {
	raw, ok, err := r.st.Get(StateKey, pairKey(rk[0], rk[1]))
	if err == nil && ok {
		var rec *keyRecord
		if rec, err = decodeKey(raw); err == nil {
			return rec
		}
	}
	if err != nil {
		r.loadFailed(err)
	}
	return nil
}

func (r *Receiver) loadID(id string) (idRecord, bool) {
	raw, ok, err := r.st.Get(StateID, id)
	if err == nil && ok {
		var rec idRecord
		if rec, err = decodeID(raw); err == nil {
			return rec, true
		}
	}
	if err != nil {
		r.loadFailed(err)
	}
	return idRecord{}, false
}

func (r *Receiver) loadStream(k streamKey) *streamState {
	raw, ok, err := r.st.Get(StateStream, streamKeyString(k))
	if err == nil && ok {
		var st *streamState
		if st, err = decodeStream(raw); err == nil {
			return st
		}
	}
	if err != nil {
		r.loadFailed(err)
	}
	return nil
}

// beat returns (and takes out of the state) the parked HEARTBEAT of event.
func (r *Receiver) takeBeat(event int) (heartbeatPending, bool) {
	if hb, ok := r.beats[event]; ok {
		if hb == nil {
			return heartbeatPending{}, false
		}
		r.beats[event] = nil
		return *hb, true
	}
	raw, ok, err := r.st.Get(StateBeat, strconv.Itoa(event))
	if err == nil && ok {
		var hb heartbeatPending
		if hb, err = decodeBeat(raw); err == nil {
			r.beats[event] = nil
			return hb, true
		}
	}
	if err != nil {
		r.loadFailed(err)
	}
	return heartbeatPending{}, false
}

// flush stores the batch's records and counters and starts a new batch.
func (r *Receiver) flush() error {
	var entries []StateEntry
	for rk, rec := range r.l.keys {
		entries = append(entries, StateEntry{Kind: StateKey, Key: pairKey(rk[0], rk[1]), Value: encodeKey(rec), At: rec.at})
	}
	for id, rec := range r.l.ids {
		entries = append(entries, StateEntry{Kind: StateID, Key: id, Value: encodeID(rec), At: rec.at})
	}
	for k, st := range r.l.streams {
		entries = append(entries, StateEntry{Kind: StateStream, Key: streamKeyString(k), Value: encodeStream(st)})
	}
	for ev, hb := range r.beats {
		e := StateEntry{Kind: StateBeat, Key: strconv.Itoa(ev)}
		if hb != nil {
			e.Value = encodeBeat(*hb)
		}
		entries = append(entries, e)
	}
	now := r.clock // zero before the first live delivery: nothing expires
	meta := StateMeta{Deliveries: r.deliveries, Events: r.events, Streams: r.l.created, Last: r.last}
	if err := r.st.Apply(entries, meta, now); err != nil {
		r.dirty, r.flushErr = true, fmt.Errorf("%w: %w", ErrState, err)
		return r.flushErr
	}
	r.dirty, r.flushErr, r.replayed = false, nil, 0
	r.reset(r.l.created)
	return nil
}

// Flush stores what DeliverAll or Replay applied and not yet stored
// (Replay stores every few hundred deliveries by itself).
func (r *Receiver) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flush()
}

// saved is what a batch rolls back to when its commit fails.
type saved struct {
	events, deliveries, streams int
	last                        string
	rate                        map[rateSlot]int
}

func (r *Receiver) save() saved {
	s := saved{events: r.events, deliveries: r.deliveries, streams: r.l.created, last: r.last, rate: map[rateSlot]int{}}
	r.pmu.Lock()
	for k, v := range r.rate.counts {
		s.rate[k] = v
	}
	r.pmu.Unlock()
	return s
}

func (r *Receiver) restore(s saved) {
	r.events, r.deliveries, r.last = s.events, s.deliveries, s.last
	r.seen.Store(int64(s.deliveries))
	r.pmu.Lock()
	r.rate.counts = s.rate
	r.pmu.Unlock()
	r.reset(s.streams)
}
