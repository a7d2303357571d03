package orderdiff

import (
	"errors"
	"fmt"

	"github.com/nutrab2b/b2bx/edi"
)

// Kind says what the partner did with one order line.
type Kind string

// Line kinds.
const (
	Unchanged Kind = "unchanged" // confirmed as ordered
	Changed   Kind = "changed"   // confirmed with different values, or marked changed
	Rejected  Kind = "rejected"  // not accepted, deleted, not found or not delivered
	Added     Kind = "added"     // in the response, not in the order
	Missing   Kind = "missing"   // in the order, not in the response
)

// Field names what a Change is about.
type Field string

// Change fields.
const (
	FieldQuantity Field = "quantity"
	FieldPrice    Field = "price"
	FieldDate     Field = "date"
	FieldItem     Field = "item" // the response line names another article (substitution)
)

// Value is one side of a change as the message wrote it.
type Value struct {
	// Qualifier is the segment's qualifier: QTY 6063, PRI 5125, DTM 2005;
	// for an item, the item type 7143.
	Qualifier edi.Coded `json:"qualifier,omitzero"`
	Value     string    `json:"value"`          // as written (unescaped, decoded)
	Unit      string    `json:"unit,omitempty"` // QTY 6411
	// ISO is a date as "2025-03-20" or "2025-03-20T10:30" (DTM formats
	// 101, 102, 201, 203, 204); empty for other values and formats.
	ISO     string `json:"iso,omitempty"`
	Segment int    `json:"segment"` // 0-based index in its document
}

// Change is one value the partner answered differently from the order.
// Ordered is nil when the order had no such value (the partner added
// one); Answered is never nil.
type Change struct {
	Field    Field  `json:"field"`
	Ordered  *Value `json:"ordered,omitempty"`
	Answered *Value `json:"answered"`
}

// Line is one order line and what the response did with it.
type Line struct {
	// Line is the LIN line number (1082): the order's, or the
	// response's for an added line.
	Line     string `json:"line"`
	Item     string `json:"item,omitempty"`     // LIN C212/7140 (the order's when both have one)
	ItemType string `json:"itemType,omitempty"` // C212/7143, e.g. EN, SRS
	Kind     Kind   `json:"kind"`
	// Action is the response line's action code (LIN 1229) with its
	// directory name; empty for missing lines and lines without one.
	Action edi.Coded `json:"action,omitzero"`
	// MatchedBy says how the response line was found: "line number",
	// "item" or "line number, other item"; empty for added and missing
	// lines.
	MatchedBy string   `json:"matchedBy,omitempty"`
	Changes   []Change `json:"changes,omitempty"`
	// Notes explain surprises: an action code that contradicts the
	// values, a line marked changed without a visible difference.
	Notes []string `json:"notes,omitempty"`
	// OrderSegment and ResponseSegment are the LIN segments' indexes in
	// their documents, -1 when the line is not in that message.
	OrderSegment    int `json:"orderSegment"`
	ResponseSegment int `json:"responseSegment"`
}

// Counts are the lines per kind.
type Counts struct {
	Unchanged int `json:"unchanged"`
	Changed   int `json:"changed"`
	Rejected  int `json:"rejected"`
	Added     int `json:"added"`
	Missing   int `json:"missing"`
}

// Diff is what an ORDRSP changed against its ORDERS.
type Diff struct {
	Order    string `json:"order"`    // ORDERS BGM 1004
	Response string `json:"response"` // ORDRSP BGM 1004
	// OrderRef is the order number the response refers to (its first
	// header RFF+ON); a Warning says when it is not Order.
	OrderRef string `json:"orderRef"`
	// Status is the response's message function (BGM 1225), e.g. 29
	// "Accepted without amendment", 4 "Change", 27 "Not accepted".
	Status edi.Coded `json:"status,omitzero"`
	// Header lists the changed header dates.
	Header []Change `json:"header,omitempty"`
	// Lines are the order's lines in order, then the added lines.
	Lines  []Line `json:"lines"`
	Counts Counts `json:"counts"`
	// Warnings say why the comparison may mislead: another order number,
	// structure errors in a message.
	Warnings []string `json:"warnings,omitempty"`
	// OrderMessage and ResponseMessage are the messages' indexes in their
	// documents (edi.Document.Messages).
	OrderMessage    int `json:"orderMessage"`
	ResponseMessage int `json:"responseMessage"`
}

// HasChanges reports whether the response differs from the order: a
// changed header date, a "Not accepted" status, or any line that is not
// unchanged.
func (d *Diff) HasChanges() bool {
	c := d.Counts
	return len(d.Header) > 0 || d.Status.Code == statusNotAccepted ||
		c.Changed+c.Rejected+c.Added+c.Missing > 0
}

// Errors Compare and Documents return. Their text says what to give
// instead.
var (
	ErrNotOrders = errors.New("not an ORDERS message: give the ORDERS that was sent first")
	ErrNotOrdrsp = errors.New("not an ORDRSP message: give the partner's ORDRSP second")
	ErrNoOrder   = errors.New("the ORDRSP refers to an order that is not among the ORDERS messages")
)

// Compare diffs the ORDRSP message rsp.Messages[r] against the ORDERS
// message orders.Messages[o]. The two may be in the same document. The
// result holds copies of the values it shows: it stays valid after the
// documents' input is released.
func Compare(orders *edi.Document, o int, rsp *edi.Document, r int) (*Diff, error) {
	if o < 0 || o >= len(orders.Messages) || orders.Messages[o].Type != "ORDERS" {
		return nil, ErrNotOrders
	}
	if r < 0 || r >= len(rsp.Messages) || rsp.Messages[r].Type != "ORDRSP" {
		return nil, ErrNotOrdrsp
	}
	ord := readMessage(orders, o)
	res := readMessage(rsp, r)
	d := &Diff{Order: ord.number, Response: res.number, OrderRef: res.orderRef, Status: res.status,
		OrderMessage: o, ResponseMessage: r, Lines: []Line{}}
	if d.OrderRef != d.Order {
		if d.OrderRef == "" {
			d.Warnings = append(d.Warnings, "the ORDRSP names no order (no RFF+ON); compared anyway")
		} else {
			d.Warnings = append(d.Warnings, fmt.Sprintf("the ORDRSP answers order %s, not %s; compared anyway", d.OrderRef, d.Order))
		}
	}
	d.Warnings = append(d.Warnings, structureWarnings("ORDERS", orders, o)...)
	d.Warnings = append(d.Warnings, structureWarnings("ORDRSP", rsp, r)...)
	d.Header = compareDates(nil, ord.dates, tag(kindDate, res.dates))
	diffLines(d, ord, res)
	for _, l := range d.Lines {
		d.Counts.add(l.Kind)
	}
	return d, nil
}

// tag wraps header values for compareDates.
func tag(kind byte, vs []Value) []tagged {
	out := make([]tagged, len(vs))
	for i, v := range vs {
		out[i] = tagged{kind: kind, v: v}
	}
	return out
}

func (c *Counts) add(k Kind) {
	switch k {
	case Unchanged:
		c.Unchanged++
	case Changed:
		c.Changed++
	case Rejected:
		c.Rejected++
	case Added:
		c.Added++
	case Missing:
		c.Missing++
	}
}

// structureWarnings says when a message has error-severity issues: its
// lines may have been read from misplaced segments.
func structureWarnings(kind string, doc *edi.Document, mi int) []string {
	m := doc.Messages[mi]
	n := 0
	for _, is := range doc.Issues() {
		if is.Severity == edi.SeverityError && is.Segment >= m.First && is.Segment <= m.Last {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	noun := "errors"
	if n == 1 {
		noun = "error"
	}
	return []string{fmt.Sprintf("the %s message %s has %d %s (b2bx parse shows them); lines may be read wrongly", kind, m.Ref, n, noun)}
}
