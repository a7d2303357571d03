package orderdiff

import (
	"strconv"
	"strings"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Every render method returns text safe for a terminal: values from the
// data go through termsafe, directory names are trusted.

// coded shows a code with its directory name: "3 Changed".
func coded(c edi.Coded) string {
	if c.Name == "" {
		return termsafe.String(c.Code)
	}
	return termsafe.String(c.Code) + " " + c.Name
}

// Headline sums the diff up in one line:
//
//	ORDRSP RSP-0815 for order PO-4711 (4 Change): 2 lines: 1 changed, 1 unchanged
//	ORDRSP RSP-1 for order PO-1 (29 Accepted without amendment): no changes (3 lines)
func (d *Diff) Headline() string {
	var b strings.Builder
	b.WriteString("ORDRSP")
	if d.Response != "" {
		b.WriteString(" " + termsafe.String(d.Response))
	}
	b.WriteString(" for order " + termsafe.String(d.Order))
	if d.Status.Code != "" {
		b.WriteString(" (" + coded(d.Status) + ")")
	}
	b.WriteString(": ")
	n := len(d.Lines)
	if !d.HasChanges() {
		b.WriteString("no changes (" + human.Count(n, "line", "lines") + ")")
		return b.String()
	}
	b.WriteString(human.Count(n, "line", "lines"))
	c := d.Counts
	sep := ": "
	for _, k := range []struct {
		n    int
		kind Kind
	}{{c.Changed, Changed}, {c.Rejected, Rejected}, {c.Added, Added}, {c.Missing, Missing}, {c.Unchanged, Unchanged}} {
		if k.n > 0 {
			b.WriteString(sep + strconv.Itoa(k.n) + " " + string(k.kind))
			sep = ", "
		}
	}
	if len(d.Header) > 0 {
		b.WriteString("; header: " + human.Count(len(d.Header), "change", "changes"))
	}
	return b.String()
}

// Rows renders the diff below its headline, one string per row:
// warnings, header changes, then the lines (all of them, or only those
// that are not unchanged). A line's notes follow it, indented.
//
//	warning: the ORDRSP answers order PO-9, not PO-4711; compared anyway
//	header   delivery date 2025-03-20 → 2025-03-27
//	line 2   4000862141411  changed (3 Changed): quantity 12 → 6
//	line 3   4000862141428  rejected (7 Not accepted)
func (d *Diff) Rows(all bool) []string {
	var out []string
	for _, w := range d.Warnings {
		out = append(out, "warning: "+termsafe.String(w))
	}
	for _, c := range d.Header {
		out = append(out, "header   "+c.String())
	}
	for _, l := range d.Lines {
		if l.Kind == Unchanged && !all {
			continue
		}
		out = append(out, l.String())
		for _, n := range l.Notes {
			out = append(out, "         note: "+termsafe.String(n))
		}
	}
	return out
}

// String is the headline and the rows of the lines that are not
// unchanged, separated by newlines (no trailing newline).
func (d *Diff) String() string {
	return strings.Join(append([]string{d.Headline()}, d.Rows(false)...), "\n")
}

// String renders one line: "line 2   4000862141411  changed (3 Changed):
// quantity 12 → 6".
func (l Line) String() string {
	num := "line " + termsafe.String(l.Line)
	if l.Line == "" {
		num = "line ?"
	}
	var b strings.Builder
	b.WriteString(num)
	b.WriteString(strings.Repeat(" ", max(1, 9-len(num))))
	if l.Item != "" {
		b.WriteString(termsafe.String(l.Item) + "  ")
	}
	b.WriteString(string(l.Kind))
	if l.Action.Code != "" {
		b.WriteString(" (" + coded(l.Action) + ")")
	}
	switch {
	case l.Kind == Missing:
		b.WriteString(": not in the ORDRSP")
	case l.MatchedBy == byHeader:
		b.WriteString(": the ORDRSP lists no lines, its status decides")
	case l.MatchedBy == byItem:
		b.WriteString(" [matched by item]")
	}
	for i, c := range l.Changes {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		if l.Kind == Added { // nothing was ordered: just what the partner offers
			b.WriteString(c.label() + " " + c.Answered.text() + c.qualifier())
		} else {
			b.WriteString(c.String())
		}
	}
	return b.String()
}

// defaultQualifiers are not repeated in a change's text: ordered
// quantity, net price, requested delivery date.
var defaultQualifiers = map[Field]string{FieldQuantity: "21", FieldPrice: "AAA", FieldDate: "2"}

// String renders one change: "quantity 12 → 6 (113 Quantity to be
// delivered)", "price (none) → 1.35", "delivery date 2025-03-20 →
// 2025-03-27", "item 4000862141411 → 4000862141428".
func (c Change) String() string {
	return c.label() + " " + c.Ordered.text() + " → " + c.Answered.text() + c.qualifier()
}

// label names the changed value.
func (c Change) label() string {
	if c.Field != FieldDate {
		return string(c.Field)
	}
	if c.Answered != nil {
		if q := c.Answered.Qualifier.Code; q == "10" || q == "11" {
			return "despatch date"
		}
	}
	return "delivery date"
}

// qualifier names the answered value's qualifier unless it is the usual
// one, " (113 Quantity to be delivered)".
func (c Change) qualifier() string {
	if c.Answered == nil || c.Field == FieldItem {
		return ""
	}
	if q := c.Answered.Qualifier; q.Code != "" && q.Code != defaultQualifiers[c.Field] {
		return " (" + coded(q) + ")"
	}
	return ""
}

// text shows a value: a date in ISO form, a quantity with its unit,
// "(none)" for a missing value.
func (v *Value) text() string {
	if v == nil {
		return "(none)"
	}
	s := v.Value
	if v.ISO != "" {
		s = v.ISO
	}
	if s == "" {
		s = "(empty)"
	} else {
		s = termsafe.String(s)
	}
	if v.Unit != "" {
		s += " " + termsafe.String(v.Unit)
	}
	return s
}
