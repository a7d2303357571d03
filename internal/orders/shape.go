package orders

import (
	"cmp"
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

// LoadHistory reads the newest MaxHistory distinct payloads of the
// connection's uploads with their answers (load, from the tracking index:
// the conversations of those uploads only; nil reads the store) and the
// shape of each upload whose bytes the store still has (from the shape
// cache when it was parsed before). An upload without a CONTRL yet counts
// as neither.
func LoadHistory(ctx context.Context, store *spool.Store, connectionID string, load SelectLoader) (*Accepted, error) {
	var sel Selection
	want := map[string]bool{} // SHA-256 of the newest accepted payloads
	newest := func(recs []spool.UploadRecord) bool {
		sel, want = Selection{}, map[string]bool{}
		atts := spool.Attempts(recs)
		for i := len(atts) - 1; i >= 0 && len(want) < MaxHistory; i-- {
			r := atts[i]
			sha := strings.ToLower(r.SHA256)
			if r.Outcome != spool.OutcomeAccepted || sha == "" || want[sha] {
				continue
			}
			want[sha] = true
			sel.SHAs = append(sel.SHAs, sha)
			if t := cmp.Or(r.Started, r.Time); sel.Since.IsZero() || t.Before(sel.Since) {
				sel.Since = t
			}
		}
		return len(want) >= MaxHistory
	}
	recs, err := store.RecentUploads(connectionID, newest)
	if err != nil {
		return nil, err
	}
	newest(recs)
	// the index dates uploads on the server's clock: a day's margin covers
	// any clock difference the link rule trusts
	sel.Since = sel.Since.Add(-24 * time.Hour)
	h := &Accepted{accepted: map[string]int{}, rejected: map[string]int{}}
	if len(want) == 0 {
		return h, nil
	}
	var l *Linked
	if load != nil {
		l, err = load(ctx, store, connectionID, sel)
	} else {
		l, err = LoadLinked(ctx, store, connectionID, nil)
	}
	if err != nil {
		return nil, err
	}
	rejected := map[string]bool{}
	for _, r := range Rejections(l) {
		rejected[strings.ToLower(r.Upload.SHA256)] = true
	}
	cache := openShapeCache(store, connectionID)
	defer cache.close()
	seen := map[string]bool{}
	for i := len(l.Uploads) - 1; i >= 0; i-- {
		rec := l.Uploads[i]
		sha := strings.ToLower(rec.SHA256)
		if !want[sha] || seen[sha] || ctx.Err() != nil {
			continue
		}
		bad := rejected[sha]
		if !bad && !hasContrl(l, i) {
			continue
		}
		shape, ok := cache.get(sha)
		if !ok {
			if shape, ok = sentShape(ctx, store, rec); !ok {
				continue
			}
			cache.put(sha, shape)
		}
		seen[sha] = true
		into := h.accepted
		if bad {
			into, h.Rejected = h.rejected, h.Rejected+1
		} else {
			h.Accepted++
		}
		for f := range shape {
			into[f]++
		}
	}
	return h, ctx.Err()
}

// hasContrl reports whether upload i of l has a CONTRL (which, as it is
// not among the rejections, accepted it).
func hasContrl(l *Linked, i int) bool {
	for _, j := range l.Index.AnswersOf(i) {
		if l.Index.Answers[j].Type == "CONTRL" {
			return true
		}
	}
	return false
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
