package orders

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/human"
)

// MinAccepted is how many accepted uploads a connection needs before the
// pre-flight compares a file's shape with them: with fewer, "never
// accepted" says too little.
const MinAccepted = 5

// ShapeOf is what an ORDERS interchange uses, as features: each segment
// of its ORDERS messages by tag and, when its first element has one, by
// qualifier ("NAD+IV", "QTY+21", "DTM+2"). The qualifier is the code
// value partners accept or reject most often.
func ShapeOf(doc *edi.Document) map[string]bool {
	out := map[string]bool{}
	for k := range doc.Messages {
		m := &doc.Messages[k]
		if m.Type != "ORDERS" {
			continue
		}
		var buf [7]byte
		for i := m.First + 1; i < m.Last; i++ {
			s := doc.Segment(i)
			raw := s.Raw()
			if !s.TagValid() || len(raw) < 3 {
				continue
			}
			k := feature(&buf, raw[:3], s.Bytes(1, 1))
			if !out[string(k)] { // a lookup with string(k) does not allocate
				out[string(k)] = true
			}
		}
	}
	return out
}

// feature writes "TAG" or "TAG+QUAL" into buf: the qualifier when it is
// a code (1-3 digits or capitals).
func feature(buf *[7]byte, tag, q []byte) []byte {
	n := copy(buf[:], tag)
	if len(q) == 0 || len(q) > 3 {
		return buf[:n]
	}
	for _, c := range q {
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return buf[:n]
		}
	}
	buf[n] = '+'
	n++
	n += copy(buf[n:], q)
	return buf[:n]
}

// Accepted is what a connection's partner accepted and rejected before:
// the shapes of the uploads a CONTRL accepted and of those an answer
// rejected (each distinct payload once).
type Accepted struct {
	Accepted, Rejected int
	accepted, rejected map[string]int // feature → how many uploads have it
}

// MaxHistory bounds how many of a connection's uploads LoadHistory
// compares with: the newest distinct payloads a CONTRL accepted or an
// answer rejected. What a partner accepted lately is what it accepts now,
// and the pre-flight's cost stays the same however long the history is.
const MaxHistory = 200

// Verdict is what the partner's answers said of one payload (by its
// SHA-256), over every accepted upload of those bytes in a link input,
// and, when it counts, the payload's shape.
type Verdict struct {
	// Rejected: an answer linked to an upload of these bytes rejects it.
	Rejected bool
	// Contrl: a CONTRL is linked to an upload of these bytes. Without
	// Rejected that CONTRL accepted them.
	Contrl bool
	// Features is the payload's shape (ShapeOf's features, sorted), for a
	// verdict that counts; nil when its bytes could not be read.
	Features []string
}

// Counts reports whether the verdict says anything the pre-flight
// compares with: rejected, or accepted by a CONTRL. An upload without a
// CONTRL yet counts as neither.
func (v Verdict) Counts() bool { return v.Rejected || v.Contrl }

// VerdictsOf is the verdict on each payload of shas (SHA-256, any case;
// the map's keys are lower case) in the link input l, without features:
// one rule for the pre-flight's history, whether l was read fresh or a
// cache kept the answers (track's verdict cache compares with it).
func VerdictsOf(l *Linked, shas []string) map[string]Verdict {
	out := make(map[string]Verdict, len(shas))
	want := make(map[string]bool, len(shas))
	for _, s := range shas {
		want[strings.ToLower(s)] = true
	}
	if l == nil || l.Index == nil {
		return out
	}
	for i, rec := range l.Uploads {
		sha := strings.ToLower(rec.SHA256)
		if !want[sha] {
			continue
		}
		v := out[sha]
		for _, j := range l.Index.AnswersOf(i) {
			a := &l.Index.Answers[j]
			v.Rejected = v.Rejected || a.Rejects()
			v.Contrl = v.Contrl || a.Type == "CONTRL"
		}
		out[sha] = v
	}
	return out
}

// FeaturesFunc gives the shape of the payload sha (lower case): its
// features, sorted; ok false when its bytes cannot be read.
type FeaturesFunc func(sha string) (features []string, ok bool)

// VerdictLoader answers, for the payloads sel names by SHA-256 (sel.Since
// before the oldest of their uploads), the verdict on each (VerdictsOf
// over the connection's link input), with the features of those that
// count (from features); a payload it has no upload of may be left out.
// track.Linker keeps them in the index between runs.
type VerdictLoader func(ctx context.Context, store *spool.Store, connectionID string, sel Selection, features FeaturesFunc) (map[string]Verdict, error)

// VerdictsVia is the VerdictLoader that reads the link input of the
// selected uploads with load (nil: the store's files, LoadLinked) and
// asks VerdictsOf.
func VerdictsVia(load SelectLoader) VerdictLoader {
	return func(ctx context.Context, store *spool.Store, connectionID string, sel Selection, features FeaturesFunc) (map[string]Verdict, error) {
		var l *Linked
		var err error
		if load != nil {
			l, err = load(ctx, store, connectionID, sel)
		} else {
			l, err = LoadLinked(ctx, store, connectionID, nil)
		}
		if err != nil {
			return nil, err
		}
		vs := VerdictsOf(l, sel.SHAs)
		for h, v := range vs {
			if v.Counts() && features != nil {
				v.Features, _ = features(h)
				vs[h] = v
			}
		}
		return vs, nil
	}
}

// LoadHistory reads the newest MaxHistory distinct payloads of the
// connection's uploads with their answers (load, from the tracking index:
// the conversations of those uploads only; nil reads the store) and the
// shape of each upload whose bytes the store still has (from the shape
// cache when it was parsed before). An upload without a CONTRL yet counts
// as neither.
func LoadHistory(ctx context.Context, store *spool.Store, connectionID string, load SelectLoader) (*Accepted, error) {
	return LoadHistoryWith(ctx, store, connectionID, VerdictsVia(load))
}

// LoadHistoryWith is LoadHistory with the verdicts (and features) from
// verdicts.
func LoadHistoryWith(ctx context.Context, store *spool.Store, connectionID string, verdicts VerdictLoader) (*Accepted, error) {
	p, err := pickNewest(store, connectionID)
	if err != nil {
		return nil, err
	}
	sel, newest := p.selection()
	// the index dates uploads on the server's clock: a day's margin covers
	// any clock difference the link rule trusts
	sel.Since = sel.Since.Add(-24 * time.Hour)
	h := &Accepted{accepted: map[string]int{}, rejected: map[string]int{}}
	if len(newest) == 0 {
		return h, nil
	}
	// the shapes: from the shape cache, opened only when a verdict needs
	// one (a kept verdict has its features), else parsed from the copy
	var cache *shapeCache
	features := func(sha string) ([]string, bool) {
		if cache == nil {
			cache = openShapeCache(store, connectionID)
		}
		if fs, ok := cache.get(sha); ok {
			return fs, true
		}
		shape, ok := sentShape(ctx, store, newest[sha])
		if !ok {
			return nil, false
		}
		return cache.put(sha, shape), true
	}
	defer func() {
		if cache != nil {
			cache.close()
		}
	}()
	vs, err := verdicts(ctx, store, connectionID, sel, features)
	if err != nil {
		return nil, err
	}
	for _, sha := range sel.SHAs { // newest first
		v := vs[sha]
		if !v.Counts() || v.Features == nil || ctx.Err() != nil {
			continue
		}
		into := h.accepted
		if v.Rejected {
			into, h.Rejected = h.rejected, h.Rejected+1
		} else {
			h.Accepted++
		}
		for _, f := range v.Features {
			into[f]++
		}
	}
	return h, ctx.Err()
}

// sentShape is the shape of the bytes rec sent, when the store (or the
// unchanged file) still has them.
func sentShape(ctx context.Context, store *spool.Store, rec spool.UploadRecord) (map[string]bool, bool) {
	path, err := SentFileContext(ctx, store, rec)
	if err != nil {
		return nil, false
	}
	f, err := edi.OpenFileContext(ctx, path, MaxSize)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var shape map[string]bool
	err = edi.Guard(f.Bytes(), func() error {
		doc, err := edi.Parse(f.Bytes())
		if err == nil {
			shape = ShapeOf(doc)
		}
		return err
	})
	return shape, err == nil && shape != nil
}

// Features lists the features of the accepted uploads, sorted.
func (h *Accepted) Features() []string {
	if h == nil {
		return nil
	}
	out := make([]string, 0, len(h.accepted))
	for f := range h.accepted {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// AcceptedWith is how many accepted uploads had feature f.
func (h *Accepted) AcceptedWith(f string) int { return h.accepted[f] }

// Differences are the warnings for doc: one per feature it uses that
// none of the partner's accepted uploads had, with how many of the
// rejected ones had it. None with fewer than MinAccepted accepted
// uploads.
func (h *Accepted) Differences(doc *edi.Document) []string {
	if h == nil || h.Accepted < MinAccepted {
		return nil
	}
	shape := ShapeOf(doc)
	var fs []string
	for f := range shape {
		if h.accepted[f] == 0 {
			fs = append(fs, f)
		}
	}
	slices.Sort(fs)
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		text := fmt.Sprintf("this partner accepted %s, none with %s", human.Count(h.Accepted, "ORDERS", "ORDERS"), f)
		if h.Rejected > 0 {
			text += fmt.Sprintf("; %d of the %s had it", h.rejected[f], human.Count(h.Rejected, "rejected one", "rejected ones"))
		}
		out = append(out, text)
	}
	return out
}
