package main

import (
	"strings"
	"unicode"
)

// camelToWords turns the CamelCase names of the pydifact XML into the
// sentence case of the UN directories: "DocumentNameCode" becomes
// "Document name code". Acronyms stay in capitals; a parenthesised
// lower-case word is an acronym the XML lost ("(undg)" -> "(UNDG)").
func camelToWords(s string) string {
	var words []string
	var cur []rune
	rs := []rune(s)
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = nil
		}
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '(':
			flush()
			j := i
			for j < len(rs) && rs[j] != ')' {
				j++
			}
			j = min(j, len(rs)-1)
			cur = append(cur, rs[i:j+1]...)
			flush()
			i = j
		case unicode.IsUpper(r):
			startsWord := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) ||
				(unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])))
			if startsWord {
				flush()
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	for i, w := range words {
		switch {
		case strings.HasPrefix(w, "("):
			words[i] = strings.ToUpper(w)
		case isAcronym(w):
		case i == 0:
			words[i] = strings.ToUpper(w[:1]) + strings.ToLower(w[1:])
		default:
			words[i] = strings.ToLower(w)
		}
	}
	return strings.Join(words, " ")
}

func isAcronym(w string) bool {
	if len(w) < 2 {
		return false
	}
	for _, r := range w {
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// betterName prefers an older directory's name (D.96A) for the same id
// when it says the same words with the original punctuation, e.g.
// "Date/time/period" for the XML's "DateOrTimeOrPeriod".
func betterName(converted, candidate string) string {
	if candidate != "" && nameKey(candidate) == nameKey(converted) {
		return candidate
	}
	return converted
}

// nameKey reduces a name to lower-case words; "/" counts as "or".
func nameKey(s string) string {
	s = strings.ToLower(strings.ReplaceAll(s, "/", " or "))
	f := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(f, " ")
}
