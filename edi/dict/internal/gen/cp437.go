package main

import (
	"bytes"
	"strings"
)

// cp437High maps the bytes 0x80..0xFF of IBM code page 437, the encoding of
// the 1995 UNTDID text files (their box-drawing segment tables and the odd
// accented letter), to Unicode.
var cp437High = [128]rune{
	'Ç', 'ü', 'é', 'â', 'ä', 'à', 'å', 'ç', 'ê', 'ë', 'è', 'ï', 'î', 'ì', 'Ä', 'Å',
	'É', 'æ', 'Æ', 'ô', 'ö', 'ò', 'û', 'ù', 'ÿ', 'Ö', 'Ü', '¢', '£', '¥', '₧', 'ƒ',
	'á', 'í', 'ó', 'ú', 'ñ', 'Ñ', 'ª', 'º', '¿', '⌐', '¬', '½', '¼', '¡', '«', '»',
	'░', '▒', '▓', '│', '┤', '╡', '╢', '╖', '╕', '╣', '║', '╗', '╝', '╜', '╛', '┐',
	'└', '┴', '┬', '├', '─', '┼', '╞', '╟', '╚', '╔', '╩', '╦', '╠', '═', '╬', '╧',
	'╨', '╤', '╥', '╙', '╘', '╒', '╓', '╫', '╪', '┘', '┌', '█', '▄', '▌', '▐', '▀',
	'α', 'ß', 'Γ', 'π', 'Σ', 'σ', 'µ', 'τ', 'Φ', 'Θ', 'Ω', 'δ', '∞', 'φ', 'ε', '∩',
	'≡', '±', '≥', '≤', '⌠', '⌡', '÷', '≈', '°', '∙', '·', '√', 'ⁿ', '²', '■', '\u00a0',
}

// decodeCP437 converts CP437 bytes to a UTF-8 string and normalises line
// ends to "\n" (the files use CRLF, a few lines end in a bare CR). A
// trailing DOS end-of-file mark (Ctrl-Z) is dropped.
func decodeCP437(b []byte) string {
	b = bytes.TrimRight(b, "\x1a")
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/8)
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\r':
			sb.WriteByte('\n')
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
		case c < 0x80:
			sb.WriteByte(c)
		default:
			sb.WriteRune(cp437High[c-0x80])
		}
	}
	return sb.String()
}
