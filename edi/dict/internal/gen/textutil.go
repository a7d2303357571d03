package main

import (
	"regexp"
	"strings"
)

// indicatorChars are the UNTDID change indicators that the text directories
// print in the left margin (addition, amendment, name change, text change,
// deletion, marked for deletion). They carry no meaning for the tables.
const indicatorChars = "*+#|X-"

// clearCols replaces change indicators in line[from:to] with spaces so that
// fixed-column patterns match lines with and without indicators alike.
func clearCols(line string, from, to int) string {
	if to > len(line) {
		to = len(line)
	}
	if from >= to {
		return line
	}
	b := []byte(line)
	for i := from; i < to; i++ {
		if strings.IndexByte(indicatorChars, b[i]) >= 0 {
			b[i] = ' '
		}
	}
	return string(b)
}

// blocks splits a directory text into the entries between the horizontal
// rules ("─────"), dropping the preamble before the first rule.
func blocks(text string) [][]string {
	var out [][]string
	var cur []string
	seen := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "────") {
			if seen && len(cur) > 0 {
				out = append(out, cur)
			}
			cur, seen = nil, true
			continue
		}
		if seen {
			cur = append(cur, strings.TrimRight(line, " \t"))
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// indent returns the number of leading spaces of line.
func indent(line string) int {
	return len(line) - len(strings.TrimLeft(line, " "))
}

var spaceRun = regexp.MustCompile(`\s+`)

// joinText joins wrapped lines into one paragraph with single spaces.
func joinText(parts []string) string {
	return strings.TrimSpace(spaceRun.ReplaceAllString(strings.Join(parts, " "), " "))
}

// collectParagraph returns the text that starts at lines[i] after the label
// (e.g. "Desc:") and continues on the following non-blank lines indented at
// least minIndent, and the index of the first line after it.
func collectParagraph(lines []string, i int, label string, minIndent int) (string, int) {
	first := strings.TrimSpace(lines[i])
	first = strings.TrimSpace(strings.TrimPrefix(first, label))
	parts := []string{first}
	j := i + 1
	for ; j < len(lines); j++ {
		l := lines[j]
		if strings.TrimSpace(l) == "" || indent(l) < minIndent {
			break
		}
		parts = append(parts, l)
	}
	return joinText(parts), j
}
