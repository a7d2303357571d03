package edigen

import (
	"strconv"
	"time"
)

// Party is a trading partner as the NAD segment names it.
type Party struct {
	GLN      string
	Name     string
	Street   string
	City     string
	PostCode string
	Country  string // ISO 3166 alpha-2
}

// Line is one order line.
type Line struct {
	Number          string // LIN 1082; "" numbers the lines 1, 2, ... in order
	GTIN            string // LIN 7140; "" writes no item number
	ItemType        string // LIN 7143; "" means SRS (GS1)
	SupplierArticle string // PIA ... :SA
	Description     string // IMD free-form text
	Qty             int
	// QtyText is the quantity as a parsed order wrote it ("12.5"); when
	// set it is written instead of Qty wherever the line's quantity is
	// repeated unchanged.
	QtyText    string
	Unit       string // QTY 6411, e.g. PCE
	PriceCents int64  // PRI+AAA net price per unit
}

// Order is a purchase order (ORDERS) and what ORDRSP and APERAK refer to.
type Order struct {
	Ref       string // UNH message reference
	Number    string // BGM document number (1004)
	Date      time.Time
	Delivery  time.Time
	Buyer     Party
	Supplier  Party
	DeliverTo Party
	Currency  string
	Lines     []Line
}

func (b *builder) nad(qual string, p Party, full bool) {
	if !full || p.Name == "" {
		b.seg("NAD", e(qual), e(p.GLN, "", "9"))
		return
	}
	b.seg("NAD", e(qual), e(p.GLN, "", "9"), e(), e(p.Name), e(p.Street), e(p.City), e(), e(p.PostCode), e(p.Country))
}

func (b *builder) itemLines(lines []Line, answers []LineAnswer) { b.itemLinesFrom(0, lines, answers) }

// itemLinesFrom writes lines numbered from first+1; answers (one per line)
// turn order lines into response lines.
func (b *builder) itemLinesFrom(first int, lines []Line, answers []LineAnswer) {
	for i, l := range lines {
		action := ""
		qty := l.Qty
		price := l.PriceCents
		var when time.Time
		if answers != nil {
			a := answers[i]
			action, qty, when = a.Action, a.Qty, a.Delivery
			if a.PriceCents > 0 {
				price = a.PriceCents
			}
		}
		num := l.Number
		if num == "" {
			num = strconv.Itoa(first + i + 1)
		}
		item := e()
		if l.GTIN != "" {
			item = e(l.GTIN, orDefault(l.ItemType, "SRS"))
		}
		b.seg("LIN", e(num), e(action), item)
		if l.SupplierArticle != "" {
			b.seg("PIA", e("1"), e(l.SupplierArticle, "SA"))
		}
		if l.Description != "" {
			b.seg("IMD", e("F"), e(), e("", "", "", l.Description))
		}
		unit := l.Unit
		if unit == "" {
			unit = "PCE"
		}
		// A line without quantity (Qty 0, no QtyText) gets no QTY+21.
		ordered := strconv.Itoa(l.Qty)
		if l.QtyText != "" {
			ordered = l.QtyText
		}
		hasQty := l.Qty != 0 || l.QtyText != ""
		if hasQty {
			b.seg("QTY", e("21", ordered, unit))
		}
		if answers != nil {
			if action != LineRejected && (hasQty || qty != 0) {
				confirmed := strconv.Itoa(qty)
				if qty == l.Qty {
					confirmed = ordered
				}
				b.seg("QTY", e("113", confirmed, unit))
			}
			if !when.IsZero() {
				b.seg("DTM", dtm("2", when, false))
			}
		}
		if price > 0 {
			b.seg("PRI", e("AAA", amount(price)))
		}
	}
}

// Orders writes one interchange holding the given ORDERS messages.
func Orders(dir Directory, env Envelope, orders ...Order) []byte {
	env.Syntax = dir.Syntax()
	b := newBuilder(env.Syntax, true)
	b.unb(env)
	v, r := dir.release()
	for i, o := range orders {
		ref := o.Ref
		if ref == "" {
			ref = strconv.Itoa(i + 1)
		}
		b.unh(ref, "ORDERS", v, r, "UN", "EAN008")
		b.seg("BGM", e("220"), e(o.Number), e("9"))
		b.seg("DTM", dtm("137", o.Date, false))
		if !o.Delivery.IsZero() {
			b.seg("DTM", dtm("2", o.Delivery, false))
		}
		b.nad("BY", o.Buyer, true)
		b.nad("SU", o.Supplier, true)
		if o.DeliverTo.GLN != "" {
			b.nad("DP", o.DeliverTo, false)
		}
		if o.Currency != "" {
			b.seg("CUX", e("2", o.Currency, "9"))
		}
		b.itemLines(o.Lines, nil)
		b.seg("UNS", e("S"))
		b.seg("CNT", e("2", strconv.Itoa(len(o.Lines))))
		b.unt()
	}
	return b.unz(env.ControlRef)
}

// ORDRSP header status (BGM 1225) and line actions (LIN 1229).
const (
	StatusAccepted = "29" // accepted without amendment
	StatusChanged  = "4"  // change
	StatusRejected = "27" // not accepted

	LineAccepted = "5" // accepted without amendment
	LineChanged  = "3" // changed
	LineRejected = "7" // not accepted
)

// LineAnswer is the supplier's answer to one order line.
type LineAnswer struct {
	Action   string    // LineAccepted, LineChanged or LineRejected
	Qty      int       // confirmed quantity (QTY+113)
	Delivery time.Time // a line delivery date (DTM+2); zero writes none
	// PriceCents is a changed net price (PRI+AAA); 0 repeats the line's.
	PriceCents int64
}

// Response is an order response (ORDRSP).
type Response struct {
	Ref     string // UNH reference; "" means "1"
	Number  string // the response's own document number
	Date    time.Time
	Status  string // StatusAccepted, StatusChanged or StatusRejected
	Order   Order  // the order answered (number, date, parties, lines)
	Answers []LineAnswer
}

// Ordrsp writes one interchange with one ORDRSP answering r.Order: RFF+ON
// carries the order's BGM number and the lines repeat the order's lines.
func Ordrsp(dir Directory, env Envelope, r Response) []byte {
	env.Syntax = dir.Syntax()
	b := newBuilder(env.Syntax, true)
	b.unb(env)
	v, rel := dir.release()
	ref := r.Ref
	if ref == "" {
		ref = "1"
	}
	answers := r.Answers
	if answers == nil {
		answers = make([]LineAnswer, len(r.Order.Lines))
		for i, l := range r.Order.Lines {
			answers[i] = LineAnswer{Action: LineAccepted, Qty: l.Qty}
		}
	}
	b.unh(ref, "ORDRSP", v, rel, "UN", "EAN005")
	b.seg("BGM", e("231"), e(r.Number), e(r.Status))
	b.seg("DTM", dtm("137", r.Date, true))
	b.seg("RFF", e("ON", r.Order.Number))
	if !r.Order.Date.IsZero() {
		b.seg("DTM", dtm("171", r.Order.Date, false))
	}
	b.nad("BY", r.Order.Buyer, false)
	b.nad("SU", r.Order.Supplier, true)
	if r.Order.Currency != "" {
		b.seg("CUX", e("2", r.Order.Currency, "9"))
	}
	b.itemLines(r.Order.Lines, answers)
	b.seg("UNS", e("S"))
	b.seg("CNT", e("2", strconv.Itoa(len(r.Order.Lines))))
	b.unt()
	return b.unz(env.ControlRef)
}

// AppError is one application error (APERAK ERC + FTX).
type AppError struct {
	Code string // ERC 9321, e.g. "12" invalid value, "13" missing
	Text string // FTX+AAO free text
}

// ApplicationError is an application error and acknowledgement message.
type ApplicationError struct {
	Ref         string
	Number      string
	Date        time.Time
	Function    string // BGM 1225: "9" original; "" means "9"
	OrderNumber string // RFF+ON
	OrderDate   time.Time
	From, To    Party // NAD+MS (sender of this report), NAD+MR (recipient)
	Errors      []AppError
}

// Aperak writes one interchange with one APERAK.
func Aperak(dir Directory, env Envelope, a ApplicationError) []byte {
	env.Syntax = dir.Syntax()
	b := newBuilder(env.Syntax, true)
	b.unb(env)
	v, rel := dir.release()
	ref := a.Ref
	if ref == "" {
		ref = "1"
	}
	fn := a.Function
	if fn == "" {
		fn = "9"
	}
	b.unh(ref, "APERAK", v, rel, "UN")
	b.seg("BGM", e("305", "", "9"), e(a.Number), e(fn)) // 305 is EANCOM's (agency 9): D.96A's UNCL 1001 has no 305
	b.seg("DTM", dtm("137", a.Date, true))
	b.seg("RFF", e("ON", a.OrderNumber))
	if !a.OrderDate.IsZero() {
		b.seg("DTM", dtm("171", a.OrderDate, false))
	}
	b.nad("MS", a.From, false)
	b.nad("MR", a.To, false)
	for _, er := range a.Errors {
		b.seg("ERC", e(er.Code))
		if er.Text != "" {
			b.seg("FTX", e("AAO"), e(), e(), e(er.Text))
		}
	}
	b.unt()
	return b.unz(env.ControlRef)
}
