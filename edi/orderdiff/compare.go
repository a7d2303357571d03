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
	numbers := map[string][]int{}
	ids := map[string][]int{}
	for k, o := range ord {
		if o.number != "" {
			numbers[o.number] = append(numbers[o.number], k)
		}
		for _, id := range o.ids {
			ids[id] = append(ids[id], k)
		}
	}
	paired := make([]bool, len(res))
	pair := func(j int, candidates []int, how string, fits func(k int) bool) bool {
		for _, k := range candidates {
			if pairOf[k] < 0 && fits(k) {
				pairOf[k], by[k], paired[j] = j, how, true
				return true
			}
		}
		return false
	}
	anyLine := func(int) bool { return true }
	for j := range res {
		if res[j].number != "" {
			pair(j, numbers[res[j].number], byNumber, func(k int) bool { return sameItem(&ord[k], &res[j]) })
		}
	}
	for j := range res {
		for _, id := range res[j].ids {
			if paired[j] || pair(j, ids[id], byItem, anyLine) {
				break
			}
		}
	}
	for j := range res {
		if !paired[j] && res[j].number != "" {
			pair(j, numbers[res[j].number], byNumberOther, anyLine)
		}
	}
	return pairOf, by
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
	if q := confirmedQty(r.qtys); q != nil {
		l.Changes = append(l.Changes, Change{Field: FieldQuantity, Answered: q})
	}
	for k := range r.prices {
		l.Changes = append(l.Changes, Change{Field: FieldPrice, Answered: &r.prices[k]})
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
	l.Changes = append(l.Changes, compareQty(o.qtys, r.qtys)...)
	l.Changes = append(l.Changes, comparePrices(o.prices, r.prices)...)
	l.Changes = append(l.Changes, compareDates(o.dates, header, r.dates)...)
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

// find returns the first value with qualifier q, or nil.
func find(vs []Value, q string) *Value {
	for k := range vs {
		if vs[k].Qualifier.Code == q {
			return &vs[k]
		}
	}
	return nil
}

// orderedQty is the order line's quantity: QTY 21, else its first QTY.
func orderedQty(vs []Value) *Value {
	if v := find(vs, "21"); v != nil {
		return v
	}
	if len(vs) > 0 {
		return &vs[0]
	}
	return nil
}

// confirmedQty is the quantity a response line confirms.
func confirmedQty(vs []Value) *Value {
	for _, q := range []string{"113", "131", "12", "21"} {
		if v := find(vs, q); v != nil {
			return v
		}
	}
	return nil
}

func compareQty(ord, res []Value) []Change {
	o, c := orderedQty(ord), confirmedQty(res)
	if c == nil {
		return nil
	}
	var out []Change
	if o == nil || !sameNumber(o.Value, c.Value) || !sameUnit(o.Unit, c.Unit) {
		out = append(out, Change{Field: FieldQuantity, Ordered: o, Answered: c})
	}
	if r21 := find(res, "21"); r21 != nil && r21 != c && o != nil && (!sameNumber(o.Value, r21.Value) || !sameUnit(o.Unit, r21.Unit)) {
		out = append(out, Change{Field: FieldQuantity, Ordered: o, Answered: r21})
	}
	return out
}

func comparePrices(ord, res []Value) []Change {
	var out []Change
	for k := range res {
		o := find(ord, res[k].Qualifier.Code)
		if o == nil || !sameNumber(o.Value, res[k].Value) {
			out = append(out, Change{Field: FieldPrice, Ordered: o, Answered: &res[k]})
		}
	}
	return out
}

// compareDates compares the answered delivery dates with the order's own
// (ord), else the ones inherited from its header.
func compareDates(ord, inherited, res []Value) []Change {
	var out []Change
	orderDate := func(q string) *Value {
		if v := find(ord, q); v != nil {
			return v
		}
		return find(inherited, q)
	}
	for k := range res {
		q := res[k].Qualifier.Code
		o := orderDate(q)
		if o == nil && (q == "17" || q == "69") {
			o = orderDate("2")
		}
		if o == nil || !sameDate(*o, res[k]) {
			out = append(out, Change{Field: FieldDate, Ordered: o, Answered: &res[k]})
		}
	}
	return out
}
