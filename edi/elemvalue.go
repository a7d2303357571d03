package edi

import (
	"fmt"
	"strconv"

	"github.com/nutrab2b/b2bx/edi/dict"
)

// The checks of one value the element walk (elemcheck.go) found: its
// representation, its code, and the issue that reports either.

// checkValue checks one value's representation: n characters (release
// characters and layout not counted), cls the classes seen.
func (ec *elemChecker) checkValue(i int, r *segRule, e, k int, composite bool, cr *compRule, data []byte, base, start, end, n int, cls uint8) {
	if cr.kind == reprN && cls&clMark != 0 {
		n = countDigits(data[start:end]) // decimal mark and sign do not count (ISO 9735)
	}
	switch {
	case n > cr.max:
		ec.report(i, r, base+start, SyntaxElementTooLong, e, k, composite, cr, data[start:end],
			fmt.Sprintf("is %d characters long; its format %s allows at most %d", n, cr.repr, cr.max))
	case n < cr.min:
		ec.report(i, r, base+start, SyntaxElementTooShort, e, k, composite, cr, data[start:end],
			fmt.Sprintf("is %d characters long; its format %s needs %d", n, cr.repr, cr.min))
	case cr.kind == reprA && cls&clDigit != 0:
		ec.report(i, r, base+start, SyntaxInvalidCharType, e, k, composite, cr, data[start:end],
			fmt.Sprintf("has digits; its format %s is alphabetic", cr.repr))
	case cr.kind == reprN && (cls&clOther != 0 || cls&clDigit == 0 || (cls&clMark != 0 && !validNumber(data[start:end]))):
		ec.report(i, r, base+start, SyntaxInvalidCharType, e, k, composite, cr, data[start:end],
			fmt.Sprintf("is not a number; its format %s is numeric (digits, one decimal mark, a leading minus sign)", cr.repr))
	}
}

func countDigits(b []byte) int {
	n := 0
	for _, c := range b {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}

// validNumber: an optional leading '-', digits with at most one decimal
// mark, at least one digit.
func validNumber(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	digits, marks := 0, 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' || c == ',':
			marks++
		default:
			return false
		}
	}
	return digits > 0 && marks <= 1
}

// checkCode reports a value that is not in its closed code list.
func (ec *elemChecker) checkCode(i int, r *segRule, e, k int, composite bool, cr *compRule, data []byte, base, start, end int, rel bool) {
	v := data[start:end]
	if string(v) == cr.last {
		return
	}
	rec := &ec.d.segs[i]
	if rel || rec.flags&fLineBreak != 0 {
		dia := &ec.d.dialects[rec.dia]
		v = cleanValue(v, dia, rel)
	}
	if _, ok := dict.CodeName(r.dir, cr.id, string(v)); ok {
		if len(v) <= 8 {
			cr.last = string(v)
		}
		return
	}
	ec.report(i, r, base+start, SyntaxInvalidValue, e, k, composite, cr, data[start:end],
		"is not in the "+r.dir.String()+" code list of "+cr.id)
}

// cleanValue drops layout line breaks and release characters from a
// value (a code rarely has any).
func cleanValue(b []byte, dia *dialect, rel bool) []byte {
	out := make([]byte, 0, len(b))
	for j := 0; j < len(b); j++ {
		switch {
		case dia.isLayout(b[j]):
			continue
		case rel && b[j] == dia.seps.Release && j+1 < len(b):
			j++
		}
		out = append(out, b[j])
	}
	return out
}

// Syntax error codes (0085) of the element checks.
const (
	SyntaxInvalidCharType = 37 // invalid type of character(s)
	SyntaxElementTooLong  = 39 // data element too long
	SyntaxElementTooShort = 40 // data element too short
)

// report adds one element issue: an error for a service segment, a
// warning for a message segment.
func (ec *elemChecker) report(i int, r *segRule, off int, syntax int, e, k int, composite bool, cr *compRule, raw []byte, what string) {
	code, sev := CodeElementFormat, SeverityWarning
	if syntax == SyntaxInvalidValue {
		code = CodeCodeNotInList
	}
	if r.service {
		sev = SeverityError
		code = CodeServiceElementFormat
		if syntax == SyntaxInvalidValue {
			code = CodeServiceCodeNotInList
		}
	}
	is := Issue{Severity: sev, Code: code, Segment: i, Offset: off, SyntaxError: syntax}
	log := &ec.log
	if log.room(code) {
		pos := position(e + 1)
		if composite {
			pos += ":" + strconv.Itoa(k+1)
		}
		shown := string(raw)
		if len(shown) > 40 {
			shown = shown[:40] + "..."
		}
		is.Message = fmt.Sprintf("%s element %s (%s %s) %q %s", r.tag, pos, cr.ref, cr.name, shown, what)
	}
	log.add(is)
}

// tagIndex maps the tag characters A-Z and 0-9 to 0..35 (a valid tag has
// only those).
var tagIndex = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'A' && c <= 'Z':
			t[c] = uint8(c - 'A')
		case c >= '0' && c <= '9':
			t[c] = uint8(26 + c - '0')
		}
	}
	return t
}()
