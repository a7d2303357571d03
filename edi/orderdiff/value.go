package orderdiff

import (
	"strings"
	"time"
)

// sameNumber reports whether a and b are the same decimal number ("48"
// and "48.000", "1,5" and "1.5"); values that are not plain decimals
// compare as text.
func sameNumber(a, b string) bool {
	na, oka := normNumber(a)
	nb, okb := normNumber(b)
	if oka && okb {
		return na == nb
	}
	return strings.TrimSpace(a) == strings.TrimSpace(b)
}

// normNumber writes a decimal ([sign] digits [mark digits], mark '.' or
// ',') without leading zeros in the integer part, trailing zeros in the
// fraction, a '+' sign or the sign of zero. It never parses into a float:
// no rounding, no exponent blow-up on hostile input.
func normNumber(s string) (string, bool) {
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	intPart, frac := s, ""
	if k := strings.IndexAny(s, ".,"); k >= 0 {
		intPart, frac = s[:k], s[k+1:]
	}
	if intPart == "" && frac == "" || !digits(intPart) || !digits(frac) {
		return "", false
	}
	intPart = strings.TrimLeft(intPart, "0")
	frac = strings.TrimRight(frac, "0")
	if intPart == "" {
		intPart = "0"
	}
	out := intPart
	if frac != "" {
		out += "." + frac
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out, true
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// sameUnit says whether two units agree: equal, or one side names none.
func sameUnit(a, b string) bool { return a == "" || b == "" || a == b }

// sameDate compares two dates by calendar day and, when both have one,
// time of day; dates b2bx cannot read compare as written.
func sameDate(a, b Value) bool {
	if a.ISO == "" || b.ISO == "" {
		return strings.TrimSpace(a.Value) == strings.TrimSpace(b.Value)
	}
	if a.ISO[:10] != b.ISO[:10] {
		return false
	}
	if len(a.ISO) > 10 && len(b.ISO) > 10 {
		return seconds(a.ISO[11:]) == seconds(b.ISO[11:])
	}
	return true
}

// seconds writes a clock "15:04" as "15:04:00".
func seconds(clock string) string {
	if len(clock) == 5 {
		return clock + ":00"
	}
	return clock
}

// dateLayouts are the DTM formats (2379) isoDate reads.
var dateLayouts = map[string]struct {
	layout string
	n      int
	out    string
}{
	"101": {"060102", 6, "2006-01-02"},
	"102": {"20060102", 8, "2006-01-02"},
	"201": {"0601021504", 10, "2006-01-02T15:04"},
	"203": {"200601021504", 12, "2006-01-02T15:04"},
	"204": {"20060102150405", 14, "2006-01-02T15:04:05"},
}

// isoDate converts DTM values of the formats 101 (YYMMDD), 102
// (CCYYMMDD), 201 (YYMMDDHHMM), 203 (CCYYMMDDHHMM) and 204
// (CCYYMMDDHHMMSS) to ISO 8601; anything else gives "".
func isoDate(format, v string) string {
	l, ok := dateLayouts[format]
	if !ok || len(v) != l.n || !digits(v) {
		return ""
	}
	t, err := time.Parse(l.layout, v)
	if err != nil {
		return ""
	}
	return t.Format(l.out)
}
