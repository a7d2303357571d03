package track

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/answers"
)

// payloadFacts is what a delivery's items take from its payload, none of
// it from its sidecar: the same for every sidecar of the same bytes, so
// one parse serves the local index and a team store's push (sharedParses).
type payloadFacts struct {
	err       error  // why the payload could not be parsed (the facts before it, if any)
	firstType string // the first message's type
	versions  []edi.MessageVersion
	answers   []answers.Answer // ID, At and Received are the sidecar's: set per use (answersFor)
	xKeys     []Key            // the interchanges' (UNB)
	msgKeys   [][]Key          // each message's
	msgTypes  []string         // each message's type
	wide      bool             // more than wideConvs conversations: a head and its parts
}

// factsOf reads the facts of a parsed payload.
func factsOf(doc *edi.Document) payloadFacts {
	var f payloadFacts
	if len(doc.Messages) > 0 {
		f.firstType = doc.Messages[0].Type
	}
	f.versions = edi.DistinctVersions(doc)
	sums := make([]*edi.Summary, len(doc.Messages)) // computed once: the answers and the keys read them
	for i := range doc.Messages {
		sums[i] = doc.Messages[i].Summary()
	}
	f.answers = answers.FromSummaries(doc, sums, "", time.Time{})
	// each message's keys, once (the summaries are the costly part)
	f.msgKeys = make([][]Key, len(doc.Messages))
	f.msgTypes = make([]string, len(doc.Messages))
	convs := map[string]bool{}
	for i := range doc.Messages {
		var mk keySet
		messageKeys(&mk, &doc.Messages[i], sums[i])
		f.msgKeys[i], f.msgTypes[i] = mk.keys, doc.Messages[i].Type
		for _, key := range mk.keys {
			if key.Kind == KeyConv && len(convs) <= wideConvs {
				convs[key.Value] = true
			}
		}
	}
	f.wide = len(convs) > wideConvs
	var xk keySet
	interchangeKeys(&xk, doc)
	f.xKeys = xk.keys
	return f
}

// factParses counts parseFacts's parses of payloads of shareMin bytes
// or more (PayloadParses).
var factParses atomic.Int64

// parseFacts parses data for its facts.
func parseFacts(ctx context.Context, data []byte) payloadFacts {
	if len(data) >= shareMin {
		factParses.Add(1)
	}
	var f payloadFacts
	f.err = parseDoc(ctx, data, func(doc *edi.Document) error {
		f = factsOf(doc)
		return nil
	})
	return f
}

// answersFor is the payload's answers as a delivery with that handle,
// creation and receipt time has them (a copy: the facts may be shared).
func (f *payloadFacts) answersFor(id string, at, received time.Time) []answers.Answer {
	if len(f.answers) == 0 {
		return nil
	}
	as := make([]answers.Answer, len(f.answers))
	for i, a := range f.answers {
		a.ID, a.At, a.Received = id, at, received
		as[i] = a
	}
	return as
}

// The parses a process shares (sharedParses): payloads from shareMin
// bytes (below it a parse costs less than the SHA-256 that keys it), the
// shareKeep newest, as long as their facts hold less than shareBudget
// bytes together (a delivery's facts are a few kilobytes; those of an
// interchange of 100,000 orders some megabytes). A `fetch --all` of a
// backlog pushes while it downloads and indexes its deliveries at its
// end: each of its big deliveries is parsed once up to shareKeep of them.
const (
	shareMin    = 1 << 20
	shareKeep   = 16
	shareBudget = 32 << 20
)

// cost is about how many bytes f holds.
func (f *payloadFacts) cost() int {
	n := 512 + 256*len(f.answers) + 48*len(f.msgTypes) + 16*len(f.versions)
	for _, ks := range f.msgKeys {
		n += 24
		for _, k := range ks {
			n += 40 + len(k.Value)
		}
	}
	for _, k := range f.xKeys {
		n += 40 + len(k.Value)
	}
	return n
}

// sharedParses shares the facts of big payloads in this process. A
// delivery stored here is parsed by the local index (IndexStored, after
// the acknowledge) and by its push to a team store (and again by the
// push of its acknowledgement); a 16 MiB one takes ~50 ms of CPU each
// time. With sharing on (SharePayloadParses: a team store is open here)
// the first parse of some bytes is the only one while they are among the
// newest kept; a parse running is waited for, not repeated.
// Facts are keyed by the SHA-256 and size of the bytes parsed, checked
// before they are stored or used: bytes that no longer match their
// sidecar are parsed on their own and shared with nobody.
var sharedParses = newParseShare(shareKeep, shareBudget)

func newParseShare(keep, budget int) *parseShare {
	return &parseShare{entries: map[shareKey]*shareEntry{}, keep: keep, budget: budget}
}

// SharePayloadParses turns sharedParses on or off for this process
// (teamstore.NewRemote and Connect turn it on); off, every parse is its
// own and the facts kept are dropped.
func SharePayloadParses(on bool) { sharedParses.setOn(on) }

// setOn turns s on or off; off drops every parsed entry (a parse still
// running stays for its waiters and is evicted as usual later).
func (s *parseShare) setOn(on bool) {
	s.on.Store(on)
	if on {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, key := range append([]shareKey(nil), s.order...) {
		select {
		case <-s.entries[key].done:
			s.forget(key)
		default:
		}
	}
}

// SharesPayloadParses says whether sharedParses is on.
func SharesPayloadParses() bool { return sharedParses.on.Load() }

// PayloadParses is how many payloads of 1 MiB or more this process
// parsed for index items so far (what sharing saves shows in it).
func PayloadParses() int64 { return factParses.Load() }

type shareKey struct {
	sha  string // lower-case hex
	size int
}

type shareEntry struct {
	done  chan struct{} // closed when facts, ok and cost are set
	facts payloadFacts
	ok    bool // parsed without error: usable by others
	cost  int  // facts.cost(), counted in parseShare.held
}

type parseShare struct {
	on           atomic.Bool
	keep, budget int // at most keep entries, holding budget bytes (the newest is kept whatever it holds)
	mu           sync.Mutex
	entries      map[shareKey]*shareEntry
	order        []shareKey // oldest first
	held         int        // the cost of the entries parsed
}

// facts is the facts of data, whose sidecar names SHA-256 sha. verified:
// the caller has checked that data has that SHA-256; else facts checks
// it beside the parse (on another goroutine: the parse's time, not the
// sum of both) and before anything is shared or used. data is not read
// after facts returns.
func (s *parseShare) facts(ctx context.Context, data []byte, sha string, verified bool) payloadFacts {
	if !s.on.Load() || len(data) < shareMin || len(sha) != sha256.Size*2 {
		return parseFacts(ctx, data)
	}
	sha = strings.ToLower(sha)
	matches := func() bool { return true }
	if !verified {
		sum := make(chan string, 1)
		go func() {
			var got string // "": the bytes faulted (a mapped file was shortened), which matches nothing
			_ = edi.Guard(data, func() error {
				h := sha256.Sum256(data)
				got = hex.EncodeToString(h[:])
				return nil
			})
			sum <- got
		}()
		matches = sync.OnceValue(func() bool { return <-sum == sha })
		defer matches() // the sum is done before data may go away
	}
	key := shareKey{sha, len(data)}
	s.mu.Lock()
	e, found := s.entries[key]
	if !found {
		e = &shareEntry{done: make(chan struct{})}
		s.entries[key] = e
		s.order = append(s.order, key)
	}
	s.mu.Unlock()
	if found {
		select {
		case <-e.done:
			if e.ok && matches() {
				return e.facts
			}
		case <-ctx.Done():
		}
		// its parse failed, ctx ended, or these are other bytes than
		// their sidecar names: this one's own
		return parseFacts(ctx, data)
	}
	f := parseFacts(ctx, data)
	ok := f.err == nil && matches() // other bytes' facts are nobody's
	s.mu.Lock()
	e.facts, e.ok = f, ok
	if ok {
		e.cost = f.cost()
		s.held += e.cost
	}
	close(e.done)
	if !ok {
		s.forget(key)
	}
	s.evict(key)
	s.mu.Unlock()
	return f
}

// forget drops key; s.mu is held.
func (s *parseShare) forget(key shareKey) {
	if e := s.entries[key]; e != nil {
		s.held -= e.cost
	}
	delete(s.entries, key)
	for i, k := range s.order {
		if k == key {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

// evict drops the oldest parsed entries beyond keep, or beyond budget,
// but not newest (just parsed) nor a parse still running (its waiters
// need it); s.mu is held.
func (s *parseShare) evict(newest shareKey) {
	for i := 0; (len(s.entries) > s.keep || s.held > s.budget) && i < len(s.order); {
		key := s.order[i]
		select {
		case <-s.entries[key].done:
			if key != newest {
				s.forget(key)
				continue
			}
		default:
		}
		i++
	}
}
