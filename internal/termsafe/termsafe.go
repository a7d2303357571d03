// Package termsafe is the one sanitiser every untrusted string passes
// through before it reaches a terminal: EDIFACT payload text, API error
// messages, file names, server-supplied IDs.
//
// The output is a single line of valid UTF-8 that contains no byte or rune a
// terminal interprets: C0 controls and DEL become caret notation (ESC is
// "^[", CR "^M", TAB "^I", LF "^J"), C1 controls, bidirectional overrides and
// isolates, line/paragraph separators and other invisible format characters
// become "<U+XXXX>", invalid UTF-8 becomes U+FFFD. Printable text, including
// non-Latin scripts, passes unchanged. Callers that want several lines split
// first and sanitise each line.
//
// x/ansi.Strip is not a substitute: it keeps CR, BS and U+009B (8-bit CSI).
package termsafe

import (
	"strings"
	"unicode/utf8"
)

// String sanitises s. When s is already safe it is returned without
// allocating.
func String(s string) string {
	if isPlainASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	appendSanitised(&b, s)
	return b.String()
}

// Bytes sanitises p, interpreted as UTF-8.
func Bytes(p []byte) string {
	if isPlainASCII(p) {
		return string(p)
	}
	var b strings.Builder
	b.Grow(len(p) + 8)
	appendSanitised(&b, p)
	return b.String()
}

// Rune sanitises a rune, returning its display form.
func Rune(r rune) string {
	var b strings.Builder
	appendRune(&b, r)
	return b.String()
}

// IsSafe reports whether s would pass through String unchanged.
func IsSafe(s string) bool { return String(s) == s }

func isPlainASCII[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

func appendSanitised[T string | []byte](b *strings.Builder, s T) {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
			i++
			continue
		}
		var r rune
		var size int
		switch v := any(s).(type) {
		case string:
			r, size = utf8.DecodeRuneInString(v[i:])
		case []byte:
			r, size = utf8.DecodeRune(v[i:])
		}
		if r == utf8.RuneError && size <= 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		appendRune(b, r)
		i += size
	}
}

const hexDigits = "0123456789ABCDEF"

func appendRune(b *strings.Builder, r rune) {
	switch {
	case r < 0x20:
		b.WriteByte('^')
		b.WriteByte(byte(r) + 0x40)
	case r == 0x7f:
		b.WriteString("^?")
	case r < 0x7f:
		b.WriteByte(byte(r))
	case Dangerous(r):
		b.WriteString("<U+")
		shift := 12
		for r>>uint(shift+4) != 0 {
			shift += 4
		}
		for ; shift >= 0; shift -= 4 {
			b.WriteByte(hexDigits[(r>>uint(shift))&0xf])
		}
		b.WriteByte('>')
	default:
		b.WriteRune(r)
	}
}

// Dangerous reports whether a non-ASCII rune must not be written to a
// terminal as is: C1 controls, bidi controls, line and paragraph separators,
// zero-width and other invisible format characters that can hide or reorder
// text.
func Dangerous(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1 controls, incl. U+009B (8-bit CSI) and U+009D (OSC)
		return true
	case r == 0xad: // soft hyphen: invisible
		return true
	case r == 0x061c: // Arabic letter mark
		return true
	case r >= 0x200b && r <= 0x200f: // zero-width space/joiners, LRM, RLM
		return true
	case r >= 0x2028 && r <= 0x202e: // line/paragraph separator, LRE, RLE, PDF, LRO, RLO
		return true
	case r >= 0x2060 && r <= 0x206f: // word joiner, invisible operators, LRI..PDI, deprecated format
		return true
	case r == 0xfeff: // zero-width no-break space (BOM)
		return true
	case r >= 0xfff9 && r <= 0xfffb: // interlinear annotation
		return true
	}
	return false
}
