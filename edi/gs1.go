package edi

import (
	"fmt"
	"strconv"
	"strings"
)

// GS1 check digits. A GLN (Global Location Number, 13 digits) and a GTIN
// (Global Trade Item Number: 8, 12, 13 or 14 digits) end with a mod-10
// check digit. A partner's inbound validation rejects a wrong one, so
// Parse reports it as an error where the data says the value is one:
//
//   - NAD C082 3039 with 3055 = 9 (GS1, formerly EAN)
//   - UNB S002 0004 / S003 0010 and UNG S006 0040 / S007 0044 with the
//     partner identification code qualifier 0007 = 14 (GS1)
//   - LIN and PIA C212 7140 with 7143 = SRS (GS1 GTIN in EANCOM) or EN
//     (EAN, the D.96A name of the same numbering)
//
// A value with other characters than digits is left alone (it is no
// GS1 number whatever the qualifier says, and the element checks see its
// format); a value of digits with a length GS1 does not have is reported.

// CodeCheckDigit is a GLN or GTIN whose GS1 check digit is wrong, or that
// has a length no GLN or GTIN has (error, 0085 code 12: invalid value).
const CodeCheckDigit Code = "GS1_CHECK_DIGIT"

// gs1 kinds of a segment rule: which of its values are GS1 numbers.
const (
	gs1None uint8 = iota
	gs1NAD        // NAD C082
	gs1UNB        // UNB S002/S003, UNG S006/S007
	gs1LIN        // LIN C212
	gs1PIA        // PIA C212 (up to five)
)

// gs1Kind is the gs1 kind of a segment tag in a directory.
func gs1Kind(tag string, service bool) uint8 {
	switch {
	case service && (tag == "UNB" || tag == "UNG"):
		return gs1UNB
	case service:
		return gs1None
	case tag == "NAD":
		return gs1NAD
	case tag == "LIN":
		return gs1LIN
	case tag == "PIA":
		return gs1PIA
	}
	return gs1None
}

// GS1CheckDigit computes the check digit of the digits s without their
// check digit (12 for a GLN): 3, 1, 3, ... weights from the right. ok
// is false when s has a non-digit or is empty.
func GS1CheckDigit(s string) (digit byte, ok bool) { return gs1Digit([]byte(s)) }

func gs1Digit(s []byte) (digit byte, ok bool) {
	if len(s) == 0 {
		return 0, false
	}
	sum := 0
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		w := 1
		if (len(s)-1-i)%2 == 0 {
			w = 3
		}
		sum += int(c-'0') * w
	}
	return byte('0' + (10-sum%10)%10), true
}

// ValidGLN reports whether s is 13 digits with a correct check digit.
func ValidGLN(s string) bool {
	if len(s) != 13 {
		return false
	}
	d, ok := GS1CheckDigit(s[:12])
	return ok && d == s[12]
}

// allDigits reports whether b is non-empty and only 0-9.
func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// gs1Elems and gs1Comps bound the values the element walk keeps for the
// GS1 check: PIA's fifth C212 is element 6, a C212's 7143 component 2.
const (
	gs1Elems = 6
	gs1Comps = 3
)

// gs1Values are the start and end (in the walk's data) of the first
// components of the first elements of a segment; a value with release
// characters or layout in it is left out (start = end = 0: absent), as
// no GS1 number has them.
type gs1Values [gs1Elems][gs1Comps][2]int32

// checkGS1 checks the GS1 numbers of segment i (rule r, body data at
// byte base of the input, its values' bounds in v).
func (ec *elemChecker) checkGS1(i int, r *segRule, data []byte, base int, v *gs1Values) {
	val := func(e, k int) []byte { return data[v[e][k][0]:v[e][k][1]] }
	switch r.gs1 {
	case gs1NAD:
		if string(val(1, 2)) == "9" {
			ec.checkNumber(i, r, data, base, v, 1, "a GLN (agency 9, GS1)", glnLengths)
		}
	case gs1UNB:
		for e := 1; e <= 2; e++ {
			if string(val(e, 1)) == "14" {
				ec.checkNumber(i, r, data, base, v, e, "a GLN (qualifier 14, GS1)", glnLengths)
			}
		}
	case gs1LIN:
		if q := val(2, 1); string(q) == "SRS" || string(q) == "EN" {
			ec.checkNumber(i, r, data, base, v, 2, "a GTIN (7143 %s)", gtinLengths)
		}
	case gs1PIA:
		for e := 1; e <= 5; e++ {
			if q := val(e, 1); string(q) == "SRS" || string(q) == "EN" {
				ec.checkNumber(i, r, data, base, v, e, "a GTIN (7143 %s)", gtinLengths)
			}
		}
	}
}

// The lengths GS1 numbers have.
var (
	glnLengths  = []int{13}
	gtinLengths = []int{8, 12, 13, 14}
)

// checkNumber reports the first component of element e when it is
// digits of a wrong length or with a wrong check digit. what names the
// number; a %s in it stands for the element's qualifier (component 2).
func (ec *elemChecker) checkNumber(i int, r *segRule, data []byte, base int, vals *gs1Values, e int, what string, lengths []int) {
	const k = 0
	start, end := int(vals[e][k][0]), int(vals[e][k][1])
	b := data[start:end]
	if !allDigits(b) {
		return
	}
	d, _ := gs1Digit(b[:len(b)-1])
	if lengthIn(len(b), lengths) && d == b[len(b)-1] {
		return // the common case: no allocation
	}
	v := string(b)
	if strings.Contains(what, "%s") {
		what = fmt.Sprintf(what, data[vals[e][1][0]:vals[e][1][1]])
	}
	var why string
	if !lengthIn(len(v), lengths) {
		why = fmt.Sprintf("has %d digits, so it is not %s, which has %s digits", len(v), what, lengthsText(lengths))
	} else {
		why = fmt.Sprintf("is %s with a wrong check digit: it ends in %c, its GS1 check digit is %c (%s%c)", what, v[len(v)-1], d, v[:len(v)-1], d)
	}
	is := Issue{Severity: SeverityError, Code: CodeCheckDigit, Segment: i, Offset: base + start, SyntaxError: SyntaxInvalidValue}
	if ec.log.room(CodeCheckDigit) {
		pos := position(e + 1)
		ref, name := "", ""
		if e < len(r.elems) {
			el := &r.elems[e]
			if k < len(el.comps) {
				ref, name = el.comps[k].ref, el.comps[k].name
			}
			if el.composite {
				pos += ":" + strconv.Itoa(k+1)
			}
		}
		is.Message = fmt.Sprintf("%s element %s (%s %s) %q %s", r.tag, pos, ref, name, v, why)
	}
	ec.log.add(is)
}

func lengthIn(n int, ls []int) bool {
	for _, l := range ls {
		if n == l {
			return true
		}
	}
	return false
}

func lengthsText(ls []int) string {
	s := ""
	for k, l := range ls {
		switch {
		case k == 0:
		case k == len(ls)-1:
			s += " or "
		default:
			s += ", "
		}
		s += strconv.Itoa(l)
	}
	return s
}
