package track

import (
	"sort"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi/answers"
)

// connLinks are one connection's uploads and answers among a set of
// items, linked by the rules of package answers.
type connLinks struct {
	ups   []answers.Upload
	items []*Item // the first upload item of ups[i]
	x     *answers.Index
	pos   map[string][]int // delivery ID → indexes into x.Answers, in message order
}

// linkItems builds the link input once per connection — the accepted
// upload items, one per upload (answers.Distinct: a replay is the upload
// it repeats), and the answers of the delivery items by creation time —
// and links them. conns lists the connections in the order first seen.
// Assess, the timeline and find share it.
func linkItems(items []Item) (by map[string]*connLinks, conns []string) {
	by = map[string]*connLinks{}
	get := func(c string) *connLinks {
		cl := by[c]
		if cl == nil {
			cl = &connLinks{pos: map[string][]int{}}
			by[c] = cl
			conns = append(conns, c)
		}
		return cl
	}
	type upIn struct {
		all   []answers.Upload
		items []*Item
	}
	ups := map[string]*upIn{}
	all := map[string][]answers.Answer{}
	for i := range items {
		it := &items[i]
		if d, ok := it.upload(); ok && it.State == string(spool.OutcomeAccepted) {
			get(it.Conn)
			u := ups[it.Conn]
			if u == nil {
				u = &upIn{}
				ups[it.Conn] = u
			}
			u.all, u.items = append(u.all, d.Upload), append(u.items, it)
		}
		if it.Kind == KindDelivery {
			if as := it.Answers(); len(as) > 0 {
				get(it.Conn)
				all[it.Conn] = append(all[it.Conn], as...)
			}
		}
	}
	for _, c := range conns {
		cl := by[c]
		if u := ups[c]; u != nil {
			// the history's order: by time, as the records were appended
			idx := make([]int, len(u.all))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(a, b int) bool { return u.all[idx[a]].At.Before(u.all[idx[b]].At) })
			sorted := make([]answers.Upload, len(idx))
			for k, i := range idx {
				sorted[k] = u.all[i]
			}
			var of []int
			cl.ups, of = answers.Distinct(sorted)
			cl.items = make([]*Item, len(cl.ups))
			for k, j := range of {
				if cl.items[j] == nil {
					cl.items[j] = u.items[idx[k]]
				}
			}
		}
		as := all[c]
		sort.SliceStable(as, func(i, j int) bool { return as[i].At.Before(as[j].At) })
		cl.x = answers.NewIndex(cl.ups, as)
		for j, a := range as {
			cl.pos[a.ID] = append(cl.pos[a.ID], j)
		}
	}
	return by, conns
}
