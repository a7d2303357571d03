package track

import (
	"context"

	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Query is a parsed find query.
type Query struct {
	Text   string    // as typed
	Value  string    // the value to match (normalised)
	Kinds  []KeyKind // empty: every key
	Type   string    // type: filter (upper case)
	Prefix bool      // the value ended in '*'
	Since  time.Time // zero: no bound
	Conn   string    // connection ID; "": every connection
}

// prefixes maps the query prefixes to key kinds.
var prefixes = map[string][]KeyKind{
	"po":  {KeyPO},
	"icr": {KeyICR},
	"gln": {KeyGLN},
	"key": {KeyKey},
	"id":  {KeyID, KeyMsg},
}

// MaxQuery bounds a query's text.
const MaxQuery = 1024

// ErrBadQuery wraps a query that cannot be run; its text says why.
var ErrBadQuery = errors.New("bad query")

// ParseQuery reads "po:PO-4711", "icr:604775876", "gln:4012345000009",
// "key:...", "id:...", "type:CONTRL" or a bare word (any key). A trailing
// '*' matches every value starting with the rest; every other character
// (quotes, ';', '%', '_') is matched as itself.
func ParseQuery(text string) (Query, error) {
	q := Query{Text: text}
	t := strings.TrimSpace(text)
	if t == "" {
		return q, fmt.Errorf("%w: give a business key: an order number (po:PO-4711), an interchange reference (icr:…), a GLN (gln:…), an idempotency key (key:…), an ID (id:…) or a message type (type:CONTRL)", ErrBadQuery)
	}
	if len(t) > MaxQuery {
		return q, fmt.Errorf("%w: the query has %d bytes; keys are at most %d (paste just the order number or ID)", ErrBadQuery, len(t), MaxQuery)
	}
	if i := strings.IndexByte(t, ':'); i > 0 {
		p := strings.ToLower(t[:i])
		if p == "type" {
			q.Type = strings.ToUpper(strings.TrimSpace(t[i+1:]))
			if q.Type == "" {
				return q, fmt.Errorf("%w: type: needs a message or event type, e.g. type:CONTRL", ErrBadQuery)
			}
			return q, nil
		}
		if kinds, ok := prefixes[p]; ok {
			q.Kinds, t = kinds, t[i+1:]
		}
	}
	if strings.HasSuffix(t, "*") {
		q.Prefix, t = true, strings.TrimSuffix(t, "*")
	}
	q.Value = norm(t)
	if q.Value == "" {
		return q, fmt.Errorf("%w: %q has no value to look for", ErrBadQuery, text)
	}
	return q, nil
}

// Conversation is one business conversation: the uploads, answers,
// mailbox states and events of one order (else one interchange).
type Conversation struct {
	Key     string    `json:"key"`   // "po:po-4711", "icr:<sender>:<ref>", ...
	Label   string    `json:"label"` // "order PO-4711"
	Conns   []string  `json:"connections"`
	First   time.Time `json:"first"`
	Last    time.Time `json:"last"`
	Items   []Item    `json:"items"` // oldest first
	Matched int       `json:"matched"`
	// State summarises the conversation: its latest upload's answers,
	// overdue or needs action.
	State UploadState `json:"state"`
}

// MaxConversations bounds one find's result.
const MaxConversations = 200

// Result is what Find found.
type Result struct {
	Query         Query          `json:"query"`
	Conversations []Conversation `json:"conversations"`
	// Truncated is true when more items matched than were read
	// (DefaultLimit) or more conversations than MaxConversations.
	Truncated bool `json:"truncated"`
}

// Find runs a query: the matching items, grouped by conversation with
// every other item of each conversation, newest conversation first.
func (x *Index) Find(ctx context.Context, q Query, sla SLAFunc) (Result, error) {
	res := Result{Query: q}
	matched, err := x.b.Match(ctx, Match{Value: q.Value, Kinds: q.Kinds, Prefix: q.Prefix, Type: q.Type, Since: q.Since, Conn: q.Conn, Limit: DefaultLimit})
	if err != nil {
		return res, err
	}
	res.Truncated = len(matched) >= DefaultLimit
	if len(matched) == 0 {
		return res, nil
	}
	isMatch := map[int64]bool{}
	var want []string
	seenConv := map[string]bool{}
	for _, it := range matched {
		// newest first: the conversations of the newest MaxConversations
		// matches are the ones shown, the rest only counted as truncated
		if len(want) >= MaxConversations {
			res.Truncated = true
			break
		}
		isMatch[it.ID] = true
		keys := it.Keys
		if countConv(keys) > wideConvs { // see closure
			keys = keepConvs(keys, map[string]bool{convPO(q.Value): true})
		}
		for _, k := range keys {
			if k.Kind == KeyConv && !seenConv[k.Value] {
				seenConv[k.Value] = true
				want = append(want, k.Value)
			}
		}
	}
	items, err := x.closure(ctx, want, seenConv)
	if err != nil {
		return res, err
	}
	if q.Conn != "" { // -c: that connection's items only (events belong to none and stay)
		kept := items[:0]
		for _, it := range items {
			if it.Conn == "" || it.Conn == q.Conn {
				kept = append(kept, it)
			}
		}
		items = kept
	}
	// items without any conversation key stand alone
	have := map[int64]bool{}
	for _, it := range items {
		have[it.ID] = true
	}
	for _, it := range matched {
		if !have[it.ID] && isMatch[it.ID] {
			it.Keys = []Key{{Kind: KeyConv, Value: fmt.Sprintf("item:%d", it.ID)}}
			items = append(items, it)
		}
	}
	res.Conversations = group(items, isMatch, q.Conn)
	if len(res.Conversations) > MaxConversations { // before assessing: only the shown are
		res.Conversations, res.Truncated = res.Conversations[:MaxConversations], true
	}
	for i := range res.Conversations {
		c := &res.Conversations[i]
		by, conns := linkItems(c.Items) // once for its state and its IDs
		c.State = assessConversation(by, conns, sla, x.opts.Now())
		fillIDs(c, by)
	}
	return res, nil
}

// closure loads every item of the conversations and of the conversations
// those items bridge to (an upload joins its order and its interchange),
// a few rounds deep.
func (x *Index) closure(ctx context.Context, want []string, seen map[string]bool) ([]Item, error) {
	var out []Item
	got := map[int64]bool{}
	for round := 0; round < 4 && len(want) > 0; round++ {
		items, err := x.b.ByConv(ctx, want)
		if err != nil {
			return nil, err
		}
		want = nil
		for _, it := range items {
			if got[it.ID] {
				continue
			}
			got[it.ID] = true
			if it.Kind == KindDelivery && it.Part == 0 && !hasKey(it.Keys, KeyConv, norm(seenConv(it.Ref))) {
				// what this machine saw of the delivery before storing it
				// (a refusal) is keyed by its ID, not stored with it (a
				// part joins its order, the head the delivery)
				it.Keys = append(it.Keys, Key{Kind: KeyConv, Value: norm(seenConv(it.Ref))})
			}
			if countConv(it.Keys) > wideConvs {
				// an item of more conversations than a delivery item has
				// (an upload of thousands of orders) joins those asked
				// for, and bridges to no other
				it.Keys = keepConvs(it.Keys, seen)
			}
			out = append(out, it)
			for _, k := range it.Keys {
				if k.Kind == KeyConv && !seen[k.Value] {
					seen[k.Value] = true
					want = append(want, k.Value)
				}
			}
		}
	}
	return out, nil
}

func hasKey(keys []Key, kind KeyKind, value string) bool {
	for _, k := range keys {
		if k.Kind == kind && k.Value == value {
			return true
		}
	}
	return false
}

func countConv(keys []Key) int {
	n := 0
	for _, k := range keys {
		if k.Kind == KeyConv {
			n++
		}
	}
	return n
}

// keepConvs drops the conversation keys not in want.
func keepConvs(keys []Key, want map[string]bool) []Key {
	var out []Key
	for _, k := range keys {
		if k.Kind != KeyConv || want[k.Value] {
			out = append(out, k)
		}
	}
	return out
}

// group joins items sharing a conversation key (union-find over keys).
func group(items []Item, isMatch map[int64]bool, conn string) []Conversation {
	find := convUnion(items)
	by := map[string]*Conversation{}
	var order []string
	for _, it := range items {
		var root string
		for _, k := range it.Keys {
			if k.Kind == KeyConv {
				root = find(k.Value)
				break
			}
		}
		c := by[root]
		if c == nil {
			c = &Conversation{Key: root}
			by[root] = c
			order = append(order, root)
		}
		c.Items = append(c.Items, it)
		if isMatch[it.ID] {
			c.Matched++
		}
	}
	var out []Conversation
	for _, k := range order {
		c := by[k]
		if c.Matched == 0 {
			continue // reached only through a bridge of another conversation's item
		}
		finishConversation(c, k, find)
		out = append(out, *c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Last.Equal(out[j].Last) {
			return out[i].Last.After(out[j].Last)
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// convUnion joins the conversation keys each item carries; find returns
// a key's group (its most telling key ranks first, see convRank).
func convUnion(items []Item) (find func(string) string) {
	parent := map[string]string{}
	find = func(s string) string {
		if p, ok := parent[s]; ok && p != s {
			r := find(p)
			parent[s] = r
			return r
		}
		parent[s] = s
		return s
	}
	union := func(a, b string) {
		ra, rb := find(a), find(b)
		if ra != rb {
			if convRank(rb) < convRank(ra) || convRank(rb) == convRank(ra) && rb < ra {
				ra, rb = rb, ra
			}
			parent[rb] = ra
		}
	}
	for _, it := range items {
		var first string
		for _, k := range it.Keys {
			if k.Kind != KeyConv {
				continue
			}
			if first == "" {
				first = k.Value
				find(first)
			} else {
				union(first, k.Value)
			}
		}
	}
	return find
}

// finishConversation names conversation c (group root) by its most
// telling key, orders its items and sets its connections and span.
func finishConversation(c *Conversation, root string, find func(string) string) {
	// every key of the group names it; pick the most telling (order first)
	best := c.Key
	for _, it := range c.Items {
		for _, key := range it.Keys {
			if key.Kind == KeyConv && find(key.Value) == root && convRank(key.Value) < convRank(best) {
				best = key.Value
			}
		}
	}
	c.Key, c.Label = best, convLabel(best, c.Items)
	sortItems(c.Items)
	conns := map[string]bool{}
	for _, it := range c.Items {
		if it.Conn != "" && !conns[it.Conn] {
			conns[it.Conn] = true
			c.Conns = append(c.Conns, it.Conn)
		}
	}
	sort.Strings(c.Conns)
	c.First, c.Last = c.Items[0].At, c.Items[0].At
	for _, it := range c.Items {
		if it.At.Before(c.First) {
			c.First = it.At
		}
		if it.At.After(c.Last) {
			c.Last = it.At
		}
	}
}

// convRank orders conversation keys by how well they name a
// conversation: an order number, an interchange, a correlation, an ID.
func convRank(k string) int {
	switch {
	case strings.HasPrefix(k, "po:"):
		return 0
	case strings.HasPrefix(k, "icr:"):
		return 1
	case strings.HasPrefix(k, "corr:"):
		return 2
	}
	return 3
}

// convLabel names a conversation for people, with the key's original
// spelling when an item has it (keys are stored lower case).
func convLabel(key string, items []Item) string {
	kind, val, _ := strings.Cut(key, ":")
	orig := func(v string) string {
		for _, it := range items {
			if d, ok := it.upload(); ok {
				for _, n := range append(d.BGMNumbers, d.ControlRef) {
					if norm(n) == v {
						return n
					}
				}
			}
			for _, a := range it.Answers() {
				for _, r := range append(a.Refs, a.InterchangeRef) {
					if norm(r) == v {
						return r
					}
				}
			}
		}
		return v
	}
	switch kind {
	case "po":
		return "order " + orig(val)
	case "icr":
		sender, ref, _ := strings.Cut(val, ":")
		return "interchange " + orig(ref) + " from " + sender
	case "corr":
		return "correlation " + val
	case "id":
		return "delivery " + val
	}
	return "item " + val
}

// itemRank is the causal order of items at the same moment: an upload,
// then its answers (CONTRL, APERAK, ORDRSP), what was seen of a delivery,
// events.
func itemRank(it *Item) int {
	switch it.Kind {
	case KindUpload:
		return 0
	case KindDelivery:
		switch it.Type {
		case "CONTRL":
			return 1
		case "APERAK":
			return 2
		}
		return 3
	case KindSeen:
		return 4
	}
	return 5
}

// sortItems orders a conversation's items by each one's own time, items
// of the same moment in causal order (itemRank); an answer dated before
// the upload it answers (this machine records an upload once the server
// has answered) is placed after that upload.
func sortItems(items []Item) {
	by, _ := linkItems(items)
	at := make(map[int64]time.Time, len(items))
	for i := range items {
		it := &items[i]
		at[it.ID] = it.At
		cl := by[it.Conn]
		if it.Kind != KindDelivery || cl == nil {
			continue
		}
		for _, j := range cl.pos[it.Ref] {
			if l := cl.x.Link(j); l.Linked() && cl.items[l.Upload].At.After(at[it.ID]) {
				at[it.ID] = cl.items[l.Upload].At
			}
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := at[items[i].ID], at[items[j].ID]
		if !a.Equal(b) {
			return a.Before(b)
		}
		return itemRank(&items[i]) < itemRank(&items[j])
	})
}
