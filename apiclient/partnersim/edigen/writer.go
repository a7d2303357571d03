// Package edigen generates realistic, deterministic EDIFACT interchanges
// for the Partner API simulator: ORDERS, ORDRSP and APERAK in directories
// D.96A and D.25A, and CONTRL 2:2 (syntax 3) or 4:1 (syntax 4). Every
// interchange has a UNA, a UNB/UNZ envelope with the right date format for
// its syntax version, UNH/UNT messages with correct segment counts and
// references, valid GS1 GLNs and release characters where data needs them.
// Text is encoded for its syntax level (UNOC is ISO 8859-1).
package edigen

import (
	"bytes"
	"strconv"
	"time"
)

// Directory is a message directory version.
type Directory int

// The two directories the Partner API uses for ORDERS, ORDRSP and APERAK.
const (
	D96A Directory = iota // syntax version 3, UNOC:3
	D25A                  // syntax version 4, UNOC:4
)

// String returns "D.96A" or "D.25A".
func (d Directory) String() string {
	if d == D25A {
		return "D.25A"
	}
	return "D.96A"
}

// Syntax is the syntax version interchanges of this directory use.
func (d Directory) Syntax() int {
	if d == D25A {
		return 4
	}
	return 3
}

// Release is the UNH S009 release, "96A" or "25A".
func (d Directory) Release() string {
	_, r := d.release()
	return r
}

// release is the UNH S009 version/release pair.
func (d Directory) release() (string, string) {
	if d == D25A {
		return "D", "25A"
	}
	return "D", "96A"
}

// Envelope is the interchange header data.
type Envelope struct {
	Syntax        int    // 3 or 4
	Sender        string // GLN
	Recipient     string // GLN
	ControlRef    string // UNB 0020 / UNZ 0020
	Prepared      time.Time
	ApplicationID string // UNB 0026, optional
	Test          bool   // UNB 0035 = 1
}

// builder writes one interchange with the default separators of its
// syntax version and counts segments per message.
type builder struct {
	buf     bytes.Buffer
	syntax  int
	inMsg   int // segments in the open message, UNH included
	msgs    int
	msgRef  string
	sepLine bool // newline after each segment terminator (readability)
}

// Release character and separators: UNA:+.? ' (syntax 3) or UNA:+.?*'
// (syntax 4, '*' repeats).
const (
	compSep = ':'
	elemSep = '+'
	relChar = '?'
	segTerm = '\''
	repSep  = '*'
)

func newBuilder(syntax int, newline bool) *builder {
	b := &builder{syntax: syntax, sepLine: newline}
	if syntax >= 4 {
		b.buf.WriteString("UNA:+.?*'")
	} else {
		b.buf.WriteString("UNA:+.? '")
	}
	if newline {
		b.buf.WriteByte('\n')
	}
	return b
}

// seg writes a segment. Each element is a list of components; data is
// escaped with the release character.
func (b *builder) seg(tag string, elems ...[]string) {
	b.buf.WriteString(tag)
	// Trailing empty elements are omitted, as senders do.
	for len(elems) > 0 && emptyElem(elems[len(elems)-1]) {
		elems = elems[:len(elems)-1]
	}
	for _, el := range elems {
		b.buf.WriteByte(elemSep)
		for len(el) > 0 && el[len(el)-1] == "" {
			el = el[:len(el)-1]
		}
		for i, c := range el {
			if i > 0 {
				b.buf.WriteByte(compSep)
			}
			b.text(c)
		}
	}
	b.buf.WriteByte(segTerm)
	if b.sepLine {
		b.buf.WriteByte('\n')
	}
	if b.inMsg > 0 {
		b.inMsg++
	}
}

func emptyElem(el []string) bool {
	for _, c := range el {
		if c != "" {
			return false
		}
	}
	return true
}

// text writes s encoded as ISO 8859-1 (UNOC) with separators released.
// Runes outside Latin-1 become '?'-free replacements ('.') rather than
// invalid bytes.
func (b *builder) text(s string) {
	for _, r := range s {
		switch {
		case r == compSep || r == elemSep || r == relChar || r == segTerm || (b.syntax >= 4 && r == repSep):
			b.buf.WriteByte(relChar)
			b.buf.WriteByte(byte(r))
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			b.buf.WriteByte(' ')
		case r < 0x100:
			b.buf.WriteByte(byte(r))
		default:
			b.buf.WriteByte('.')
		}
	}
}

// e is shorthand for an element of components.
func e(c ...string) []string { return c }

func (b *builder) unb(env Envelope) {
	date, tm := env.Prepared.Format("060102"), env.Prepared.Format("1504")
	if env.Syntax >= 4 {
		date = env.Prepared.Format("20060102")
	}
	test := ""
	if env.Test {
		test = "1"
	}
	b.seg("UNB", e("UNOC", strconv.Itoa(env.Syntax)), e(env.Sender, "14"), e(env.Recipient, "14"),
		e(date, tm), e(env.ControlRef), e(), e(env.ApplicationID), e(), e(), e(), e(test))
}

func (b *builder) unh(ref string, s009 ...string) {
	b.msgRef = ref
	b.inMsg = 0
	b.seg("UNH", e(ref), s009)
	b.inMsg = 1
	b.msgs++
}

func (b *builder) unt() {
	n := b.inMsg + 1
	b.inMsg = 0
	b.seg("UNT", e(strconv.Itoa(n)), e(b.msgRef))
}

func (b *builder) unz(ref string) []byte {
	b.seg("UNZ", e(strconv.Itoa(b.msgs)), e(ref))
	return b.buf.Bytes()
}

// dtm formats a DTM C507 with format 102 (CCYYMMDD) or 203 (CCYYMMDDHHMM).
func dtm(qual string, t time.Time, withTime bool) []string {
	if withTime {
		return e(qual, t.Format("200601021504"), "203")
	}
	return e(qual, t.Format("20060102"), "102")
}

// amount formats cents as a decimal with a '.' mark.
func amount(cents int64) string {
	s := strconv.FormatInt(cents/100, 10)
	if c := cents % 100; c != 0 {
		s += "." + strconv.FormatInt(c/10, 10)
		if c%10 != 0 {
			s += strconv.FormatInt(c%10, 10)
		}
	}
	return s
}
