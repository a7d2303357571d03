package events

import (
	"encoding/json"
	"fmt"
	"time"
)

// StateKind names what a StateStore entry holds.
type StateKind uint8

// The kinds of a Receiver's state. Keys and ids expire after the
// retention; streams and parked HEARTBEATs never do.
const (
	StateKey    StateKind = 1 // an idempotency key and its original result
	StateID     StateKind = 2 // an event id and the key it came with
	StateStream StateKind = 3 // the ordering state of one sender+subject
	StateBeat   StateKind = 4 // a parked HEARTBEAT's claims
)

// Expires reports whether entries of the kind are forgotten after the
// retention.
func (k StateKind) Expires() bool { return k == StateKey || k == StateID }

// StateEntry is one record of a Receiver's state: its value is opaque
// (the Receiver encodes it); a nil Value deletes the entry. At is when
// the record was first made, in Unix seconds (retention counts from it).
type StateEntry struct {
	Kind  StateKind
	Key   string
	Value []byte
	At    int64
}

// StateMeta is the Receiver's counters, stored with its entries.
type StateMeta struct {
	Deliveries int `json:"deliveries"`
	Events     int `json:"events"`
	Streams    int `json:"streams"`
	// Last is the name of the last delivery whose decision is stored: a
	// restart replays the captures after it.
	Last string `json:"last"`
}

// StateStore keeps a Receiver's ledger (keys, ids, streams, parked
// HEARTBEATs) outside its memory, so that a receiver remembers every key
// for the whole retry window and every stream for good with bounded
// memory, and a restart goes on without replaying every capture.
// Apply must store a batch atomically and may forget keys and ids first
// seen more than its retention before now (nothing when now is zero).
// The Receiver calls it from one goroutine at a time.
type StateStore interface {
	Get(kind StateKind, key string) (value []byte, ok bool, err error)
	Apply(entries []StateEntry, meta StateMeta, now time.Time) error
	Meta() (StateMeta, error)
	Each(kind StateKind, fn func(key string, value []byte) error) error
	Count(kind StateKind) (int, error)
}

// memState is the StateStore of a Receiver without one: in memory, keys
// and ids bounded by maxKeys (the oldest forgotten first; a late repeat
// of a forgotten key is still rejected by its sequence).
type memState struct {
	maxKeys int
	m       map[StateKind]map[string][]byte
	order   map[StateKind][]string
	meta    StateMeta
}

func newMemState(maxKeys int) *memState {
	return &memState{maxKeys: maxKeys, m: map[StateKind]map[string][]byte{}, order: map[StateKind][]string{}}
}

func (s *memState) Get(kind StateKind, key string) ([]byte, bool, error) {
	v, ok := s.m[kind][key]
	return v, ok, nil
}

func (s *memState) Apply(entries []StateEntry, meta StateMeta, _ time.Time) error {
	for _, e := range entries {
		m := s.m[e.Kind]
		if m == nil {
			m = map[string][]byte{}
			s.m[e.Kind] = m
		}
		if e.Value == nil {
			delete(m, e.Key)
			continue
		}
		_, had := m[e.Key]
		m[e.Key] = e.Value
		if !e.Kind.Expires() || had || s.maxKeys <= 0 {
			continue
		}
		o := append(s.order[e.Kind], e.Key)
		if len(o) > s.maxKeys {
			delete(m, o[0])
			o[0] = ""
			o = o[1:]
		}
		s.order[e.Kind] = o
	}
	s.meta = meta
	return nil
}

func (s *memState) Meta() (StateMeta, error) { return s.meta, nil }

func (s *memState) Each(kind StateKind, fn func(string, []byte) error) error {
	for k, v := range s.m[kind] {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

func (s *memState) Count(kind StateKind) (int, error) { return len(s.m[kind]), nil }

// The encoded records: short member names, since a store holds millions.

type keyDTO struct {
	E  int     `json:"e"`
	D  int     `json:"d"`
	O  Outcome `json:"o"`
	C  Code    `json:"c,omitempty"`
	H  []byte  `json:"h"`
	N  string  `json:"n,omitempty"`
	P  int     `json:"p"`
	At int64   `json:"t"`
}

type refDTO struct {
	E  int    `json:"e"`
	D  int    `json:"d"`
	ID string `json:"i,omitempty"`
	R  string `json:"r,omitempty"`
	K  string `json:"k,omitempty"`
	N  string `json:"n,omitempty"`
}

type parkedDTO struct {
	S int64 `json:"s"`
	refDTO
}

type streamDTO struct {
	Sender    string      `json:"a"`
	Subject   string      `json:"b"`
	First     int64       `json:"f"`
	Last      int64       `json:"l"`
	Heartbeat int64       `json:"h,omitempty"`
	Beat      refDTO      `json:"hb"`
	Order     int         `json:"o"`
	Parked    []parkedDTO `json:"p,omitempty"`
	Rejected  [][2]int64  `json:"x,omitempty"`
	Unread    [][2]int64  `json:"u,omitempty"`
}

type claimDTO struct {
	S     string `json:"s"`
	Seq   int64  `json:"n"`
	Field string `json:"f"`
}

type beatDTO struct {
	Sender string     `json:"s"`
	Claims []claimDTO `json:"c"`
}

func toRef(r eventRef) refDTO {
	return refDTO{E: r.event, D: r.delivery, ID: r.id, R: r.key[0], K: r.key[1], N: r.name}
}

func fromRef(d refDTO) eventRef {
	return eventRef{event: d.E, delivery: d.D, id: d.ID, key: [2]string{d.R, d.K}, name: d.N}
}

func encodeKey(rec *keyRecord) []byte {
	b, _ := json.Marshal(keyDTO{E: rec.event, D: rec.delivery, O: rec.outcome, C: rec.code, H: rec.digest[:], N: rec.name, P: rec.position, At: rec.at})
	return b
}

func decodeKey(raw []byte) (*keyRecord, error) {
	var d keyDTO
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("a stored key: %w", err)
	}
	rec := &keyRecord{event: d.E, delivery: d.D, outcome: d.O, code: d.C, name: d.N, position: d.P, at: d.At}
	copy(rec.digest[:], d.H)
	return rec, nil
}

func encodeID(r idRecord) []byte {
	b, _ := json.Marshal(struct {
		E int    `json:"e"`
		K string `json:"k"`
		T int64  `json:"t"`
	}{r.event, r.key, r.at})
	return b
}

func decodeID(raw []byte) (idRecord, error) {
	var d struct {
		E int    `json:"e"`
		K string `json:"k"`
		T int64  `json:"t"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return idRecord{}, fmt.Errorf("a stored event id: %w", err)
	}
	return idRecord{event: d.E, key: d.K, at: d.T}, nil
}

func encodeStream(st *streamState) []byte {
	d := streamDTO{Sender: st.Sender, Subject: st.Subject, First: st.First, Last: st.LastProcessed, Heartbeat: st.Heartbeat,
		Beat: toRef(st.beat), Order: st.order}
	for s, r := range st.parked {
		d.Parked = append(d.Parked, parkedDTO{S: s, refDTO: toRef(r)})
	}
	for s, i := range st.rejected {
		d.Rejected = append(d.Rejected, [2]int64{s, int64(i)})
	}
	for s, i := range st.unread {
		d.Unread = append(d.Unread, [2]int64{s, int64(i)})
	}
	b, _ := json.Marshal(d)
	return b
}

func decodeStream(raw []byte) (*streamState, error) {
	var d streamDTO
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("a stored stream: %w", err)
	}
	st := newStreamState(d.Sender, d.Subject, d.First, d.Order)
	st.LastProcessed, st.Heartbeat, st.beat = d.Last, d.Heartbeat, fromRef(d.Beat)
	for _, p := range d.Parked {
		st.parked[p.S] = fromRef(p.refDTO)
	}
	for _, x := range d.Rejected {
		st.rejected[x[0]] = int(x[1])
	}
	for _, x := range d.Unread {
		st.unread[x[0]] = int(x[1])
	}
	return st, nil
}

func encodeBeat(hb heartbeatPending) []byte {
	d := beatDTO{Sender: hb.sender, Claims: make([]claimDTO, 0, len(hb.claims))}
	for _, c := range hb.claims {
		d.Claims = append(d.Claims, claimDTO{S: c.subject, Seq: c.seq, Field: c.field})
	}
	b, _ := json.Marshal(d)
	return b
}

func decodeBeat(raw []byte) (heartbeatPending, error) {
	var d beatDTO
	if err := json.Unmarshal(raw, &d); err != nil {
		return heartbeatPending{}, fmt.Errorf("a stored HEARTBEAT: %w", err)
	}
	hb := heartbeatPending{sender: d.Sender}
	for _, c := range d.Claims {
		hb.claims = append(hb.claims, heartbeatClaim{subject: c.S, seq: c.Seq, field: c.Field})
	}
	return hb, nil
}

// streamKeyString and pairKey are the stored keys of a stream and of a
// receiver+idempotency key: the first part length-prefixed, so no
// content of either part can make two pairs collide.
func streamKeyString(k streamKey) string { return pairKey(k.sender, k.subject) }

func pairKey(a, b string) string { return fmt.Sprintf("%d:%s:%s", len(a), a, b) }
