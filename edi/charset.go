package edi

import (
	"strings"
	"unicode/utf8"
)

// Charset is the character encoding an interchange declares with its UNB
// syntax identifier (data element 0001).
type Charset uint8

// Character sets b2bx decodes. Text is always returned as valid UTF-8.
const (
	// CharsetUnknown: no UNB (bare messages) or an identifier b2bx does not
	// know. A value that is valid UTF-8 is shown as such, anything else as
	// ISO 8859-1, so text stays readable without guessing per byte.
	CharsetUnknown  Charset = iota
	CharsetASCII            // UNOA, UNOB, IATA, IATB: 7-bit; other bytes become U+FFFD
	CharsetLatin1           // UNOC: ISO 8859-1
	CharsetLatin2           // UNOD: ISO 8859-2
	CharsetCyrillic         // UNOE: ISO 8859-5
	CharsetGreek            // UNOF: ISO 8859-7
	CharsetUTF8             // UNOW, UNOY: UTF-8; invalid sequences become U+FFFD
	// The further levels of syntax version 4 (ISO 9735-1:2002, 0001):
	CharsetLatin3  // UNOG: ISO 8859-3
	CharsetLatin4  // UNOH: ISO 8859-4
	CharsetArabic  // UNOI: ISO 8859-6
	CharsetHebrew  // UNOJ: ISO 8859-8
	CharsetLatin5  // UNOK: ISO 8859-9
	CharsetLatin9  // UNOL: ISO 8859-15
	CharsetISO2022 // UNOX: ISO 2022 code extension; shown like CharsetUnknown (UTF-8 when valid, else ISO 8859-1)
)

var charsetNames = [...]string{"unknown", "ASCII", "ISO-8859-1", "ISO-8859-2", "ISO-8859-5", "ISO-8859-7", "UTF-8",
	"ISO-8859-3", "ISO-8859-4", "ISO-8859-6", "ISO-8859-8", "ISO-8859-9", "ISO-8859-15", "ISO-2022"}

// String names the encoding, e.g. "ISO-8859-1".
func (c Charset) String() string {
	if int(c) < len(charsetNames) {
		return charsetNames[c]
	}
	return "unknown"
}

// CharsetFor maps a syntax identifier (UNB S001/0001) to its encoding. ok
// is false for identifiers b2bx does not know; the result is then
// CharsetUnknown.
func CharsetFor(syntaxID string) (c Charset, ok bool) {
	switch syntaxID {
	case "UNOA", "UNOB", "IATA", "IATB":
		return CharsetASCII, true
	case "UNOC":
		return CharsetLatin1, true
	case "UNOD":
		return CharsetLatin2, true
	case "UNOE":
		return CharsetCyrillic, true
	case "UNOF":
		return CharsetGreek, true
	case "UNOW", "UNOY":
		return CharsetUTF8, true
	case "UNOG":
		return CharsetLatin3, true
	case "UNOH":
		return CharsetLatin4, true
	case "UNOI":
		return CharsetArabic, true
	case "UNOJ":
		return CharsetHebrew, true
	case "UNOK":
		return CharsetLatin5, true
	case "UNOL":
		return CharsetLatin9, true
	case "UNOX":
		return CharsetISO2022, true
	}
	return CharsetUnknown, false
}

// SyntaxIDVersion is the syntax version that introduced a syntax
// identifier: 4 for UNOG-UNOL, UNOW, UNOX and UNOY (ISO 9735-1:2002), 1
// for UNOA-UNOF and the IATA levels, 0 for an identifier b2bx does not
// know. A version 3 interchange that declares UNOL uses a character set
// its own syntax version does not list.
func SyntaxIDVersion(syntaxID string) int {
	switch syntaxID {
	case "UNOA", "UNOB", "UNOC", "UNOD", "UNOE", "UNOF", "IATA", "IATB":
		return 1
	case "UNOG", "UNOH", "UNOI", "UNOJ", "UNOK", "UNOL", "UNOW", "UNOX", "UNOY":
		return 4
	}
	return 0
}

// Decode turns bytes in this encoding into valid UTF-8. Control characters
// are kept: Decode is not a sanitiser (see Value.Display).
func (c Charset) Decode(b []byte) string {
	if isASCII(b) {
		return string(b)
	}
	switch c {
	case CharsetASCII:
		if utf8.Valid(b) {
			// UTF-8 in a 7-bit interchange: the sender meant UNOY (the
			// EIGHT_BIT_IN_7BIT_LEVEL issue says so); show what was meant.
			return string(b)
		}
		return decodeTable(b, nil)
	case CharsetLatin1:
		return decodeLatin1(b)
	case CharsetLatin2:
		return decodeTable(b, &latin2)
	case CharsetCyrillic:
		return decodeTable(b, &cyrillic)
	case CharsetGreek:
		return decodeTable(b, &greek)
	case CharsetLatin3:
		return decodeTable(b, &latin3)
	case CharsetLatin4:
		return decodeTable(b, &latin4)
	case CharsetArabic:
		return decodeTable(b, &arabic)
	case CharsetHebrew:
		return decodeTable(b, &hebrew)
	case CharsetLatin5:
		return decodeTable(b, &latin5)
	case CharsetLatin9:
		return decodeTable(b, &latin9)
	case CharsetUTF8:
		return strings.ToValidUTF8(string(b), "\uFFFD")
	default:
		if utf8.Valid(b) {
			return string(b)
		}
		return decodeLatin1(b)
	}
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func decodeLatin1(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/4)
	for _, c := range b {
		if c < 0x80 {
			sb.WriteByte(c)
		} else {
			sb.WriteRune(rune(c))
		}
	}
	return sb.String()
}

// decodeTable decodes an ISO 8859 part: 0x80..0x9F are the C1 controls,
// 0xA0..0xFF come from the table. A nil table means 7-bit ASCII.
func decodeTable(b []byte, upper *[96]rune) string {
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/2)
	for _, c := range b {
		switch {
		case c < 0x80:
			sb.WriteByte(c)
		case upper == nil:
			sb.WriteRune(utf8.RuneError)
		case c < 0xA0:
			sb.WriteRune(rune(c))
		default:
			sb.WriteRune(upper[c-0xA0])
		}
	}
	return sb.String()
}
