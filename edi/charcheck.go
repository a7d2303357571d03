package edi

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// Character classes for the level check.
const (
	chOK       = iota
	chOutside  // printable ASCII the level does not include (UNOA: lower case, @, # ...)
	chControl  // C0 control or DEL that is neither a separator nor layout
	chEightBit // byte > 0x7F in a 7-bit level
	chC1       // 0x80..0x9F in an ISO 8859 level (Windows-1252 text, usually)
	chHigh     // byte > 0x9F in an 8-bit level: fine, but noted for the UTF-8 heuristic
	numClasses
)

// levelA is ISO 9735 level A: A-Z, 0-9, space and . , - ( ) / = ' + : ? ! " % & * ; < >
const levelA = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,-()/='+:?!\"%&*;<>"

// classTable builds the byte classes for an interchange's level.
func classTable(id string, cs Charset, dia *dialect) *[256]uint8 {
	var t [256]uint8
	for c := 0; c < 256; c++ {
		switch {
		case c < 0x20 || c == 0x7F:
			t[c] = chControl
		case c < 0x7F:
			if id == "UNOA" {
				t[c] = chOutside
			}
		case cs == CharsetASCII:
			t[c] = chEightBit
		case cs == CharsetUTF8, cs == CharsetISO2022:
			t[c] = chOK // utf8.Valid decides; ISO 2022 code extension is not checked byte by byte
		case c < 0xA0:
			t[c] = chC1
		default:
			t[c] = chHigh
		}
	}
	if id == "UNOA" {
		for i := 0; i < len(levelA); i++ {
			t[levelA[i]] = chOK
		}
	}
	s := dia.seps
	for _, c := range []byte{s.Component, s.Element, s.Decimal, s.Segment} {
		t[c] = chOK
	}
	if s.HasRelease {
		t[s.Release] = chOK
	}
	if s.HasRepetition {
		t[s.Repetition] = chOK
	}
	if cs == CharsetISO2022 {
		t[0x1B] = chOK // ESC starts the code extension sequences of UNOX
	}
	if dia.crGap {
		t['\r'] = chOK
	}
	if dia.lfGap {
		t['\n'] = chOK
	}
	return &t
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// SWAR masks over 8 bytes (valid for n <= 0x7F): the high bit of a byte is
// set for every byte below (lessMask) or above (moreMask) n; bytes above a
// hit may be flagged too.
func lessMask(x uint64, n byte) uint64 { return (x - ones*uint64(n)) &^ x & highs }
func moreMask(x uint64, n byte) uint64 { return ((x + ones*uint64(127-n)) | x) & highs }

func hasLess(x uint64, n byte) bool { return lessMask(x, n) != 0 }
func hasMore(x uint64, n byte) bool { return moreMask(x, n) != 0 }
func hasByte(x uint64, c byte) bool { return zeroMask(x^(ones*uint64(c))) != 0 }

// checkCharacters verifies the bytes of an interchange against the level
// its UNB declares. Words of 8 plain characters are skipped without a
// table lookup; only words holding a suspicious byte are looked at closely.
func (d *Document) checkCharacters(ic *Interchange) {
	if !ic.HasUNB || ic.SyntaxID == "" {
		return
	}
	cs, ok := CharsetFor(ic.SyntaxID)
	if !ok {
		return
	}
	first := ic.First
	if ic.HasUNA {
		first++
	}
	start := int(d.segs[first].off)
	lr := &d.segs[ic.Last]
	end := int(lr.off + lr.n)
	data := d.data[start:end]
	dia := &d.dialects[d.segs[first].dia]
	table := classTable(ic.SyntaxID, cs, dia)
	strict := ic.SyntaxID == "UNOA"

	t := classify(data, start, table, strict)
	if t[chControl].n > 0 {
		// Tabs (and spaces) that indent a segment after its line break
		// are layout, between segments: count only control characters
		// inside segments. A rare path, taken only when there are any.
		t[chControl] = d.controlsInSegments(first, ic.Last, table)
	}
	d.reportCharacters(ic, cs, data, start, &t)
}

// classify tallies the bytes of data by class; start is data's offset in
// the input. Each 8-byte word gets a mask of bytes that may be suspicious
// (the masks may flag harmless bytes above a hit, never miss one); only
// those bytes are looked up in the table.
func classify(data []byte, start int, table *[256]uint8, strict bool) [numClasses]tally {
	var t [numClasses]tally
	i := 0
	for ; i+8 <= len(data); i += 8 {
		x := binary.LittleEndian.Uint64(data[i:])
		var m uint64
		if strict {
			m = lessMask(x, 0x20) | moreMask(x, 0x5A) | zeroMask(x^(ones*'#')) | zeroMask(x^(ones*'$')) | zeroMask(x^(ones*'@'))
		} else {
			m = lessMask(x, 0x20) | moreMask(x, 0x7E)
		}
		for ; m != 0; m &= m - 1 {
			j := i + bits.TrailingZeros64(m)>>3
			if c := table[data[j]]; c != chOK {
				t[c].add(-1, start+j, data[j])
			}
		}
	}
	for j := i; j < len(data); j++ {
		if c := table[data[j]]; c != chOK {
			t[c].add(-1, start+j, data[j])
		}
	}
	return t
}

func (d *Document) reportCharacters(ic *Interchange, cs Charset, data []byte, start int, t *[numClasses]tally) {
	at := func(x tally) (int, int) { return d.segmentAt(x.off), x.off }
	if x := t[chOutside]; x.n > 0 {
		seg, off := at(x)
		d.issuef(SeverityWarning, CodeCharOutsideLevel, SyntaxInvalidChars, seg, off,
			"%d character(s) outside syntax level A, first %q at offset %d; UNOA allows only A-Z, 0-9, space and . , - ( ) / = ' + : ? ! \" %% & * ; < > (declare UNOB or UNOC to allow lower case)",
			x.n, x.c, x.off)
	}
	if x := t[chControl]; x.n > 0 {
		seg, off := at(x)
		d.issuef(SeverityError, CodeControlChar, SyntaxInvalidChars, seg, off,
			"%d control character(s) inside segments, first 0x%02X at offset %d; control characters are not allowed in %s data",
			x.n, x.c, x.off, ic.SyntaxID)
	}
	if x := t[chEightBit]; x.n > 0 {
		seg, off := at(x)
		hint := "declare the character set actually used (UNOC for Latin-1, UNOY for UTF-8)"
		if utf8.Valid(data) {
			hint = "the bytes form valid UTF-8, so the sender probably meant UNOY (UTF-8)"
		}
		d.issuef(SeverityError, CodeEightBitInSevenBit, SyntaxInvalidChars, seg, off,
			"%d byte(s) above 0x7F, first 0x%02X at offset %d, in a %s interchange, which allows only 7-bit characters; %s",
			x.n, x.c, x.off, ic.SyntaxID, hint)
	}
	if x := t[chC1]; x.n > 0 {
		seg, off := at(x)
		d.issuef(SeverityWarning, CodeC1Control, SyntaxInvalidChars, seg, off,
			"%d byte(s) in 0x80-0x9F, first 0x%02X at offset %d, are control codes in %s (%s), not letters; the sender probably used Windows-1252",
			x.n, x.c, x.off, ic.SyntaxID, cs)
	}
	switch {
	case cs == CharsetUTF8:
		if !utf8.Valid(data) {
			off := start + firstInvalidUTF8(data)
			d.issuef(SeverityError, CodeInvalidUTF8, SyntaxInvalidChars, d.segmentAt(off), off,
				"invalid UTF-8 at offset %d in a %s interchange, which declares UTF-8; the bytes are shown as U+FFFD", off, ic.SyntaxID)
		}
	case t[chC1].n+t[chHigh].n > 0 && utf8.Valid(data):
		x := t[chC1]
		if t[chHigh].n > 0 && (x.n == 0 || t[chHigh].off < x.off) {
			x = t[chHigh]
		}
		seg, off := at(x)
		d.issuef(SeverityWarning, CodeLooksUTF8, SyntaxInvalidChars, seg, off,
			"the bytes above 0x7F (first at offset %d) form valid UTF-8: the sender probably wrote UTF-8 but declared %s (%s); text is decoded as declared, so accented letters may look garbled",
			x.off, ic.SyntaxID, cs)
	}
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// controlsInSegments tallies the control characters inside the segments
// first..last (their bodies, terminators excluded), so layout between
// segments is not counted.
func (d *Document) controlsInSegments(first, last int, table *[256]uint8) tally {
	var t tally
	for i := first; i <= last; i++ {
		r := &d.segs[i]
		body := d.data[r.off : r.off+r.n]
		for j, c := range body {
			if table[c] == chControl {
				t.add(-1, int(r.off)+j, c)
			}
		}
	}
	return t
}
