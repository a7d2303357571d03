package partnersim

import (
	"crypto/sha256"
	"strconv"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/partnersim/edigen"
	"github.com/nutrab2b/b2bx/edi"
)

// amendment is what the simulated partner changes in its ORDRSP.
type amendment string

// The partner's answers to an order.
const (
	amendNone     amendment = "none"     // every line accepted as ordered (BGM 29, LIN action 5)
	amendShort    amendment = "short"    // one line short-shipped: action 3, QTY+113 below QTY+21
	amendPrice    amendment = "price"    // one line's net price raised by 10 %: action 3, PRI+AAA
	amendRejected amendment = "rejected" // one line not accepted: action 7 (BGM 27 when it is the only line)
	amendLater    amendment = "later"    // one line delivered a week late: action 3, line DTM+2
)

// amendments are chosen by the first byte of the order number's hash.
var amendments = [...]amendment{amendNone, amendShort, amendPrice, amendRejected, amendLater}

// amend answers an order like a real partner: chosen from a hash of the
// BGM number, so the same order always gets the same answer, the
// partner accepts it as ordered or amends one line (the second hash byte
// picks which among the lines the amendment fits). An amendment that
// fits no line (nothing to short-ship, no net price, no date to move)
// becomes an acceptance. It returns the line answers, the BGM 1225
// status and the amendment.
func amend(o edigen.Order) ([]edigen.LineAnswer, string, amendment) {
	answers := make([]edigen.LineAnswer, len(o.Lines))
	for i, l := range o.Lines {
		answers[i] = edigen.LineAnswer{Action: edigen.LineAccepted, Qty: l.Qty}
	}
	h := sha256.Sum256([]byte("partnersim amendment:" + o.Number))
	kind := amendments[int(h[0])%len(amendments)]
	var fits []int
	for i, l := range o.Lines {
		ok := false
		switch kind {
		case amendShort:
			ok = l.QtyText == "" && l.Qty >= 2
		case amendPrice:
			ok = l.PriceCents > 0
		case amendRejected:
			ok = true
		case amendLater:
			ok = !o.Delivery.IsZero() || !o.Date.IsZero()
		}
		if ok {
			fits = append(fits, i)
		}
	}
	if len(fits) == 0 {
		return answers, edigen.StatusAccepted, amendNone
	}
	i := fits[int(h[1])%len(fits)]
	l, a := o.Lines[i], &answers[i]
	a.Action = edigen.LineChanged
	switch kind {
	case amendShort:
		a.Qty = l.Qty - max(1, l.Qty/3)
	case amendPrice:
		a.PriceCents = l.PriceCents + max(1, l.PriceCents/10)
	case amendRejected:
		a.Action, a.Qty = edigen.LineRejected, 0
		if len(o.Lines) == 1 {
			return answers, edigen.StatusRejected, kind
		}
	case amendLater:
		from := o.Delivery
		if from.IsZero() {
			from = o.Date
		}
		a.Delivery = from.AddDate(0, 0, 7)
	}
	return answers, edigen.StatusChanged, kind
}

// orderFrom reads what an ORDRSP needs from one ORDERS message: the
// header (number, dates, parties, currency) and every line with its LIN
// number and item as written, the ordered quantity (QTY+21) and the net
// price (PRI+AAA, when it is a whole number of cents).
func orderFrom(doc *edi.Document, m edi.Message) edigen.Order {
	var o edigen.Order
	var line *edigen.Line
	qtySet := false
	for i := m.First; i <= m.Last; i++ {
		s := doc.Segment(i)
		switch s.Tag() {
		case "BGM":
			o.Number = s.Value(2, 1)
		case "DTM":
			if line != nil {
				continue
			}
			t, ok := parseDTM(s.Value(1, 2), s.Value(1, 3))
			switch q := s.Value(1, 1); {
			case ok && q == "137":
				o.Date = t
			case ok && q == "2":
				o.Delivery = t
			}
		case "NAD":
			switch s.Value(1, 1) {
			case "BY":
				o.Buyer = edigen.Party{GLN: s.Value(2, 1)}
			case "SU":
				o.Supplier = edigen.Party{GLN: s.Value(2, 1), Name: s.Text(4, 1)}
			}
		case "CUX":
			o.Currency = s.Value(1, 2)
		case "LIN":
			o.Lines = append(o.Lines, edigen.Line{Number: s.Value(1, 1), GTIN: s.Value(3, 1), ItemType: s.Value(3, 2)})
			line, qtySet = &o.Lines[len(o.Lines)-1], false
		case "PIA":
			if line != nil && line.SupplierArticle == "" {
				line.SupplierArticle = s.Value(2, 1)
			}
		case "IMD":
			if line != nil && line.Description == "" {
				line.Description = s.Text(3, 4)
			}
		case "QTY":
			if line != nil && !qtySet && s.Value(1, 1) == "21" {
				qtySet = true
				v := s.Value(1, 2)
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || strconv.Itoa(n) != v {
					line.QtyText = v // repeated as written, never amended
				}
				line.Qty, line.Unit = n, s.Value(1, 3)
			}
		case "PRI":
			if line != nil && line.PriceCents == 0 && s.Value(1, 1) == "AAA" {
				line.PriceCents = cents(s.Value(1, 2))
			}
		}
	}
	return o
}

// cents reads a price with at most two decimals ("1.25", "3", "0,5");
// anything else gives 0 (not repeated, never amended).
func cents(v string) int64 {
	whole, frac, _ := strings.Cut(strings.Replace(v, ",", ".", 1), ".")
	if whole == "" || len(whole) > 12 || len(frac) > 2 {
		return 0
	}
	frac += strings.Repeat("0", 2-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil || n < 0 || strings.ContainsAny(whole+frac, "+-") {
		return 0
	}
	return n
}

// parseDTM reads DTM C507 values in format 102 (CCYYMMDD) or 203
// (CCYYMMDDHHMM).
func parseDTM(v, format string) (time.Time, bool) {
	layout := map[string]string{"102": "20060102", "203": "200601021504"}[format]
	if layout == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(layout, v)
	return t, err == nil
}
