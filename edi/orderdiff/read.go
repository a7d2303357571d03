package orderdiff

import (
	"strings"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/dict"
)

// message is an ORDERS or ORDRSP read for comparison.
type message struct {
	number   string    // BGM 1004
	orderRef string    // first header RFF+ON
	status   edi.Coded // BGM 1225
	dates    []Value   // message-level delivery dates
	lines    []line
}

// line is one LIN with the values the diff compares. Its ids and values
// are sub-slices of arenas shared by the message's lines (a line's
// segments are contiguous), so a line costs no allocations of its own.
type line struct {
	number   string
	item     string
	itemType edi.Coded
	ids      []string // LIN item and PIA ids, for matching
	action   edi.Coded
	vals     []tagged // QTY, PRI and DTM values in segment order
	seg      int
	rejects  bool // the action code rejects the line
	changes  bool // the action code says changed (not 4, 5, 11, empty)
}

// Kinds of tagged values.
const (
	kindQty byte = iota + 1
	kindPrice
	kindDate
)

// tagged is a line value with its segment kind.
type tagged struct {
	kind byte
	v    Value
}

// readMessage reads the header facts from edi's summary and the lines
// from the segments.
func readMessage(doc *edi.Document, mi int) message {
	m := &doc.Messages[mi]
	var out message
	var head *edi.DocumentSummary
	lines := 0         // edi counted the LINs: room for them up front
	sum := m.Summary() // computed on each call: once here
	if sum != nil && sum.Orders != nil {
		head, lines = &sum.Orders.Document, sum.Orders.Lines
	} else if sum != nil && sum.Ordrsp != nil {
		head, lines = &sum.Ordrsp.Document, sum.Ordrsp.Lines
		out.orderRef = sum.Ordrsp.OrderNumber
	}
	if head != nil {
		out.number, out.status = head.Number, head.Function
		for _, dt := range head.Dates {
			if deliveryDates[dt.Qualifier.Code] {
				out.dates = append(out.dates, Value{Qualifier: dt.Qualifier, Value: dt.Value, ISO: dt.ISO, Segment: dt.Segment})
			}
		}
	}
	syntax := 0
	if m.Interchange >= 0 && m.Interchange < len(doc.Interchanges) {
		syntax = doc.Interchanges[m.Interchange].SyntaxVersion
	}
	r, _ := dict.NewResolver(m.Version, m.Release, syntax)
	lr := lineReader{doc: doc, r: r}
	lr.presize(lines)
	for i := m.First + 1; i < m.Last; i++ {
		lr.add(i)
	}
	lr.endLine()
	out.lines = lr.lines
	return out
}

// deliveryDates are the DTM qualifiers (2005) the diff compares.
var deliveryDates = map[string]bool{"2": true, "10": true, "11": true, "17": true, "63": true, "64": true, "69": true}

// lineReader collects the lines of one message in segment order.
type lineReader struct {
	doc    *edi.Document
	r      dict.Resolver
	lines  []line
	cur    *line
	lin    *dict.Entry // the current LIN's structure entry; nil without one
	prefix string      // the LIN group's full path and "/", e.g. "SG25/"
	ids    []string    // arena of the lines' ids
	vals   []tagged    // arena of the lines' values
	idFrom int         // where the current line's ids and values start
	vFrom  int
}

// presize reserves room for n lines with a few values each.
func (lr *lineReader) presize(n int) {
	n = min(n, 1<<20) // a hint only
	lr.lines = make([]line, 0, n)
	lr.ids = make([]string, 0, n)
	lr.vals = make([]tagged, 0, 2*n)
}

// endLine closes the current line: its ids and values are the arenas'
// tails since it started.
func (lr *lineReader) endLine() {
	if lr.cur != nil {
		lr.cur.ids = lr.ids[lr.idFrom:len(lr.ids):len(lr.ids)]
		lr.cur.vals = lr.vals[lr.vFrom:len(lr.vals):len(lr.vals)]
	}
	lr.cur = nil
}

func (lr *lineReader) addValue(kind byte, v Value) {
	lr.vals = append(lr.vals, tagged{kind: kind, v: v})
}

func (lr *lineReader) add(i int) {
	s := lr.doc.Segment(i)
	raw := s.Raw()
	if len(raw) < 3 || !s.TagValid() {
		return
	}
	switch string(raw[:3]) {
	case "LIN":
		lr.startLine(s)
	case "UNS":
		lr.endLine()
	case "QTY":
		if lr.lineLevel(s) {
			lr.addValue(kindQty, Value{Qualifier: lr.coded(s, 1, 1, "6063"), Value: s.Text(1, 2), Unit: s.Text(1, 3), Segment: i})
		}
	case "DTM":
		if lr.lineLevel(s) {
			if q := s.Value(1, 1); deliveryDates[q] {
				v := Value{Qualifier: lr.coded(s, 1, 1, "2005"), Value: s.Text(1, 2), Segment: i}
				v.ISO = isoDate(s.Value(1, 3), v.Value)
				lr.addValue(kindDate, v)
			}
		}
	case "PIA":
		if lr.lineLevel(s) {
			for e := 2; e <= 6; e++ {
				if id := s.Text(e, 1); id != "" {
					lr.ids = append(lr.ids, id)
				}
			}
		}
	case "PRI":
		if lr.priceLevel(s) {
			lr.addValue(kindPrice, Value{Qualifier: lr.coded(s, 1, 1, "5125"), Value: s.Text(1, 2), Unit: s.Text(1, 6), Segment: i})
		}
	}
}

func (lr *lineReader) startLine(s edi.Segment) {
	lr.endLine()
	l := line{number: s.Text(1, 1), action: lr.coded(s, 2, 1, "1229"), item: s.Text(3, 1),
		itemType: lr.coded(s, 3, 2, "7143"), seg: s.Index()}
	lr.idFrom, lr.vFrom = len(lr.ids), len(lr.vals)
	if l.item != "" {
		lr.ids = append(lr.ids, l.item)
	}
	switch l.action.Code {
	case "2", "7", "10", "21":
		l.rejects, l.changes = true, true
	case "", "4", "5", "11":
	default:
		l.changes = true
	}
	lr.lines = append(lr.lines, l)
	lr.cur = &lr.lines[len(lr.lines)-1]
	lr.lin, lr.prefix = nil, ""
	if e, ok := s.Entry(); ok && e.GroupName != "" {
		lr.lin = e
		lr.prefix = strings.TrimSuffix(e.FullPath, e.Tag)
	}
}

// lineLevel says whether s (QTY, DTM, PIA) belongs to the current line
// itself rather than to a group below it (schedules, packages). Without a
// structure, everything up to the next LIN does.
func (lr *lineReader) lineLevel(s edi.Segment) bool {
	if lr.cur == nil {
		return false
	}
	e, ok := s.Entry()
	if lr.lin == nil || !ok {
		return true
	}
	return e.Depth == lr.lin.Depth && e.GroupName == lr.lin.GroupName
}

// priceLevel says whether a PRI starts the current line's own price group.
func (lr *lineReader) priceLevel(s edi.Segment) bool {
	if lr.cur == nil {
		return false
	}
	e, ok := s.Entry()
	if lr.lin == nil || !ok {
		return true
	}
	return e.Depth == lr.lin.Depth+1 && strings.HasPrefix(e.FullPath, lr.prefix)
}

// coded reads element e, component c as a code named from the directory.
func (lr *lineReader) coded(s edi.Segment, e, c int, id string) edi.Coded {
	v := s.Text(e, c)
	if v == "" {
		return edi.Coded{}
	}
	name, _ := lr.r.CodeName(id, v)
	return edi.Coded{Code: v, Name: name}
}
