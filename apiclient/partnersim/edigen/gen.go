package edigen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
)

// GLNCheckDigit returns the GS1 mod-10 check digit for the 12 leading
// digits of a GLN (or any GS1 key given without its check digit).
func GLNCheckDigit(digits string) byte {
	sum := 0
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		// Weights alternate 3,1,3,... from the rightmost data digit.
		if (len(digits)-1-i)%2 == 0 {
			d *= 3
		}
		sum += d
	}
	return byte('0' + (10-sum%10)%10)
}

// ValidGLN reports whether s is 13 digits with a correct check digit.
func ValidGLN(s string) bool {
	if len(s) != 13 {
		return false
	}
	for i := 0; i < 13; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return GLNCheckDigit(s[:12]) == s[12]
}

// Gen produces deterministic demo content from a seed.
type Gen struct {
	r *rand.Rand
}

// New returns a generator; the same seed yields the same content.
func New(seed uint64) *Gen {
	return &Gen{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

// Intn returns a number in [0, n).
func (g *Gen) Intn(n int) int { return g.r.IntN(n) }

// GLN returns a valid GLN starting with prefix (a GS1 country prefix such
// as "40".."44" for Germany or "90", "91" for Austria).
func (g *Gen) GLN(prefix string) string {
	d := []byte(prefix)
	for len(d) < 12 {
		d = append(d, byte('0'+g.r.IntN(10)))
	}
	return string(d) + string(GLNCheckDigit(string(d)))
}

// GTIN returns a valid 13-digit GTIN with a German prefix.
func (g *Gen) GTIN() string { return g.GLN("40") }

// Digits returns n random digits.
func (g *Gen) Digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + g.r.IntN(10))
	}
	return string(b)
}

var products = []struct {
	name  string
	price int64
}{
	{"Schraubendreher Größe 2", 649},
	{"Kühlschrankdichtung 60 cm", 1890},
	{"Dübel 8x40 + Schraube", 1295},
	{"Weißblech 0,5 mm", 3420},
	{"Kabelbinder 3:1 schwarz", 399},
	{"Rohrschelle Ø 22 mm", 87},
	{"Spanplattenschraube 4x35, 500 Stück", 1149}, // IMD 7008 is an..35
	{"Winkelschleifer 125 mm", 8990},
	{"Gewindestange M10 1 m", 312},
	{"Arbeitshandschuhe Gr. 10 - Nitril", 245},
	{"Silikon sanitär weiß 310 ml", 679},
	{"Flachstahl 40x5 mm, 2 m", 1560},
	{"Bohrer-Set HSS 1-10 mm?", 2199},
	{"Isolierband 'Profi' blau", 159},
}

// Line returns a random order line.
func (g *Gen) Line() Line {
	p := products[g.r.IntN(len(products))]
	return Line{
		GTIN:            g.GTIN(),
		SupplierArticle: fmt.Sprintf("ART-%05d", g.r.IntN(100000)),
		Description:     p.name,
		Qty:             1 + g.r.IntN(48),
		Unit:            "PCE",
		PriceCents:      p.price,
	}
}

// Order returns a random order from buyer to supplier dated at.
func (g *Gen) Order(buyer, supplier Party, at time.Time, lines int) Order {
	o := Order{
		Number:   "PO-" + at.Format("2006") + "-" + g.Digits(6),
		Date:     at,
		Delivery: at.AddDate(0, 0, 3+g.r.IntN(10)),
		Buyer:    buyer, Supplier: supplier,
		DeliverTo: Party{GLN: buyer.GLN[:12] + "0"},
		Currency:  "EUR",
	}
	o.DeliverTo.GLN = o.DeliverTo.GLN[:12] + string(GLNCheckDigit(o.DeliverTo.GLN[:12]))
	for range lines {
		o.Lines = append(o.Lines, g.Line())
	}
	return o
}

// Answers returns a supplier's answers to lines: mostly accepted, some
// changed (less quantity, later date), a few rejected, and the matching
// header status.
func (g *Gen) Answers(o Order) ([]LineAnswer, string) {
	out := make([]LineAnswer, len(o.Lines))
	status := StatusAccepted
	rejected := 0
	for i, l := range o.Lines {
		switch n := g.r.IntN(10); {
		case n < 7:
			out[i] = LineAnswer{Action: LineAccepted, Qty: l.Qty}
		case n < 9:
			out[i] = LineAnswer{Action: LineChanged, Qty: max(1, l.Qty/2), Delivery: o.Delivery.AddDate(0, 0, 7)}
			status = StatusChanged
		default:
			out[i] = LineAnswer{Action: LineRejected, Qty: 0}
			status = StatusChanged
			rejected++
		}
	}
	if rejected == len(o.Lines) {
		status = StatusRejected
	}
	return out, status
}

// ControlRef returns a 9-digit interchange control reference.
func (g *Gen) ControlRef() string { return g.Digits(9) }

var appErrors = []AppError{
	{"12", "Artikelnummer 4000862141404 unbekannt"},
	{"13", "Lieferdatum fehlt"},
	{"45", "Preis weicht vom Vertrag ab: 12,95 statt 11,80 EUR"},
	{"14", "Bestellnummer bereits verarbeitet"},
	{"57", "Lieferadresse (GLN) nicht hinterlegt"},
}

// AppErrors returns one to three application errors.
func (g *Gen) AppErrors() []AppError {
	n := 1 + g.r.IntN(3)
	out := make([]AppError, n)
	for i := range out {
		out[i] = appErrors[g.r.IntN(len(appErrors))]
	}
	return out
}

// UUID returns a deterministic random-looking version 4 UUID.
func (g *Gen) UUID() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(g.r.IntN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// LargeOrdrsp writes an ORDRSP for an order with as many lines as it takes
// to reach at least size bytes, without building the order in memory.
func (g *Gen) LargeOrdrsp(dir Directory, env Envelope, o Order, number string, size int) []byte {
	env.Syntax = dir.Syntax()
	b := newBuilder(env.Syntax, true)
	b.buf.Grow(size + 4096)
	b.unb(env)
	v, rel := dir.release()
	b.unh("1", "ORDRSP", v, rel, "UN", "EAN005")
	b.seg("BGM", e("231"), e(number), e(StatusAccepted))
	b.seg("DTM", dtm("137", o.Date, true))
	b.seg("RFF", e("ON", o.Number))
	b.seg("DTM", dtm("171", o.Date, false))
	b.nad("BY", o.Buyer, false)
	b.nad("SU", o.Supplier, true)
	b.seg("CUX", e("2", "EUR", "9"))
	n := 0
	one := make([]Line, 1)
	ans := make([]LineAnswer, 1)
	for b.buf.Len() < size-64 {
		one[0] = g.Line()
		ans[0] = LineAnswer{Action: LineAccepted, Qty: one[0].Qty}
		b.itemLinesFrom(n, one, ans)
		n++
	}
	b.seg("UNS", e("S"))
	b.seg("CNT", e("2", strconv.Itoa(n)))
	b.unt()
	return b.unz(env.ControlRef)
}
