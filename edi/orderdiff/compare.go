package orderdiff

import "fmt"

// BGM 1225 message functions of an ORDRSP that decide lines it does not
// list.
const (
	statusNotAccepted = "27"
	statusAccepted    = "29"
)

// How a response line was matched (Line.MatchedBy).
const (
	byNumber      = "line number"
	byItem        = "item"
	byNumberOther = "line number, other item"
	byHeader      = "header status" // the response lists no lines
)

// diffLines fills d.Lines: the order's lines in order, then the added ones.
func diffLines(d *Diff, ord, res message) {
	if len(res.lines) == 0 {
		kind := Missing
		switch d.Status.Code {
		case statusAccepted:
			kind = Unchanged
		case statusNotAccepted:
			kind = Rejected
		}
		for _, o := range ord.lines {
			l := orderLine(o, kind)
			if kind != Missing {
				l.MatchedBy = byHeader
			}
			d.Lines = append(d.Lines, l)
		}
		return
	}
	pairOf, by := matchLines(ord.lines, res.lines)
	d.Lines = make([]Line, 0, max(len(ord.lines), len(res.lines)))
	taken := make([]bool, len(res.lines))
	for k := range ord.lines {
		j := pairOf[k]
		if j < 0 {
			d.Lines = append(d.Lines, orderLine(ord.lines[k], Missing))
			continue
		}
		taken[j] = true
		d.Lines = append(d.Lines, compareLine(&ord.lines[k], &res.lines[j], ord.dates, by[k]))
	}
	for j := range res.lines {
		if !taken[j] {
			d.Lines = append(d.Lines, addedLine(&res.lines[j]))
		}
	}
}

// matchLines pairs order lines with response lines (see the package
// documentation): pairOf[k] is the response line of order line k or -1,
// by[k] how it was found.
func matchLines(ord, res []line) (pairOf []int, by []string) {
	pairOf = make([]int, len(ord))
	by = make([]string, len(ord))
	for k := range pairOf {
		pairOf[k] = -1
	}
	numbers, ids := newChains(len(ord)), newChains(len(ord))
	for k := range ord {
		if ord[k].number != "" {
			numbers.add(ord[k].number, k)
		}
		for _, id := range ord[k].ids {
			ids.add(id, k)
		}
	}
	paired := make([]bool, len(res))
	pair := func(j int, c *chains, key, how string, fits func(k int) bool) bool {
		for e := c.first(key); e >= 0; e = c.next[e] {
			if k := c.line[e]; pairOf[k] < 0 && fits(k) {
				pairOf[k], by[k], paired[j] = j, how, true
				return true
			}
		}
		return false
	}
	anyLine := func(int) bool { return true }
	for j := range res {
		if res[j].number != "" {
			pair(j, numbers, res[j].number, byNumber, func(k int) bool { return sameItem(&ord[k], &res[j]) })
		}
	}
	for j := range res {
		for _, id := range res[j].ids {
			if paired[j] || pair(j, ids, id, byItem, anyLine) {
				break
			}
		}
	}
	for j := range res {
		if !paired[j] && res[j].number != "" {
			pair(j, numbers, res[j].number, byNumberOther, anyLine)
		}
	}
	return pairOf, by
}

// chains lists order lines by key in order without a slice per key: head
// maps a key to its first entry, next links the entries.
type chains struct {
	head map[string]int
	tail map[string]int
	line []int
	next []int
}

func newChains(n int) *chains {
	return &chains{head: make(map[string]int, n), tail: make(map[string]int, n), line: make([]int, 0, n), next: make([]int, 0, n)}
}

func (c *chains) add(key string, k int) {
	e := len(c.line)
	c.line, c.next = append(c.line, k), append(c.next, -1)
	if t, ok := c.tail[key]; ok {
		c.next[t] = e
	} else {
		c.head[key] = e
	}
	c.tail[key] = e
}

func (c *chains) first(key string) int {
	if e, ok := c.head[key]; ok {
		return e
	}
	return -1
}

// sameItem says whether two lines name the same article: a shared id, or
// one of them names none.
func sameItem(a, b *line) bool {
	if len(a.ids) == 0 || len(b.ids) == 0 {
		return true
	}
	for _, x := range a.ids {
		for _, y := range b.ids {
			if x == y {
				return true
			}
		}
	}
	return false
}

// orderLine is an order line without a response line.
func orderLine(o line, kind Kind) Line {
	return Line{Line: o.number, Item: o.item, ItemType: o.itemType.Code, Kind: kind, OrderSegment: o.seg, ResponseSegment: -1}
}

// addedLine is a response line without an order line.
func addedLine(r *line) Line {
	l := Line{Line: r.number, Item: r.item, ItemType: r.itemType.Code, Kind: Added, Action: r.action,
		OrderSegment: -1, ResponseSegment: r.seg}
	if q := confirmedQty(r.vals); q != nil {
		l.Changes = append(l.Changes, Change{Field: FieldQuantity, Answered: q})
	}
	for k := range r.vals {
		if r.vals[k].kind == kindPrice {
			l.Changes = append(l.Changes, Change{Field: FieldPrice, Answered: &r.vals[k].v})
		}
	}
	return l
}

// compareLine diffs a matched pair; header holds the order's header
// dates, which its lines inherit.
func compareLine(o, r *line, header []Value, by string) Line {
	l := Line{Line: o.number, Item: o.item, ItemType: o.itemType.Code, Action: r.action, MatchedBy: by,
		OrderSegment: o.seg, ResponseSegment: r.seg}
	if l.Line == "" {
		l.Line = r.number
	}
	if l.Item == "" {
		l.Item, l.ItemType = r.item, r.itemType.Code
	}
	if by == byNumberOther {
		l.Changes = append(l.Changes, Change{Field: FieldItem, Ordered: itemValue(o), Answered: itemValue(r)})
	}
	l.Changes = append(l.Changes, compareQty(o.vals, r.vals)...)
	l.Changes = append(l.Changes, comparePrices(o.vals, r.vals)...)
	l.Changes = append(l.Changes, compareDates(o.vals, header, r.vals)...)
	switch {
	case r.rejects:
		l.Kind = Rejected
	case len(l.Changes) > 0:
		l.Kind = Changed
		if r.action.Code != "" && !r.changes {
			l.Notes = append(l.Notes, fmt.Sprintf("the action code %s says the line is unchanged, but its values differ", coded(r.action)))
		}
	case r.changes:
		l.Kind = Changed
		l.Notes = append(l.Notes, fmt.Sprintf("marked %s, but no quantity, price, date or item differs", coded(r.action)))
	default:
		l.Kind = Unchanged
	}
	return l
}

// itemValue is a line's article: the LIN item, else its first PIA id.
func itemValue(l *line) *Value {
	v := &Value{Qualifier: l.itemType, Value: l.item, Segment: l.seg}
	if v.Value == "" && len(l.ids) > 0 {
		v.Value, v.Qualifier = l.ids[0], l.itemType
	}
	return v
}

// find returns the first value of a kind with qualifier q, or nil.
func find(vs []tagged, kind byte, q string) *Value {
	for k := range vs {
		if vs[k].kind == kind && vs[k].v.Qualifier.Code == q {
			return &vs[k].v
		}
	}
	return nil
}

// orderedQty is the order line's quantity: QTY 21, else its first QTY.
func orderedQty(vs []tagged) *Value {
	if v := find(vs, kindQty, "21"); v != nil {
		return v
	}
	for k := range vs {
		if vs[k].kind == kindQty {
			return &vs[k].v
		}
	}
	return nil
}

// confirmedQty is the quantity a response line confirms.
func confirmedQty(vs []tagged) *Value {
	for _, q := range []string{"113", "131", "12", "21"} {
		if v := find(vs, kindQty, q); v != nil {
			return v
		}
	}
	return nil
}

func compareQty(ord, res []tagged) []Change {
	o, c := orderedQty(ord), confirmedQty(res)
	if c == nil {
		return nil
	}
	var out []Change
	if o == nil || !sameNumber(o.Value, c.Value) || !sameUnit(o.Unit, c.Unit) {
		out = append(out, Change{Field: FieldQuantity, Ordered: o, Answered: c})
	}
	if r21 := find(res, kindQty, "21"); r21 != nil && r21 != c && o != nil && (!sameNumber(o.Value, r21.Value) || !sameUnit(o.Unit, r21.Unit)) {
		out = append(out, Change{Field: FieldQuantity, Ordered: o, Answered: r21})
	}
	return out
}

func comparePrices(ord, res []tagged) []Change {
	var out []Change
	for k := range res {
		if res[k].kind != kindPrice {
			continue
		}
		a := &res[k].v
		o := find(ord, kindPrice, a.Qualifier.Code)
		if o == nil || !sameNumber(o.Value, a.Value) {
			out = append(out, Change{Field: FieldPrice, Ordered: o, Answered: a})
		}
	}
	return out
}

// compareDates compares the answered delivery dates with the order's own
// (ord), else the ones inherited from its header.
func compareDates(ord []tagged, inherited []Value, res []tagged) []Change {
	var out []Change
	orderDate := func(q string) *Value {
		if v := find(ord, kindDate, q); v != nil {
			return v
		}
		for k := range inherited {
			if inherited[k].Qualifier.Code == q {
				return &inherited[k]
			}
		}
		return nil
	}
	for k := range res {
		if res[k].kind != kindDate {
			continue
		}
		a := &res[k].v
		q := a.Qualifier.Code
		o := orderDate(q)
		if o == nil && (q == "17" || q == "69") {
			o = orderDate("2")
		}
		if o == nil || !sameDate(*o, *a) {
			out = append(out, Change{Field: FieldDate, Ordered: o, Answered: a})
		}
	}
	return out
}
