package common

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Fill pads lines with empty ones, or cuts them, to exactly n, so a pane
// keeps its height whatever it holds.
func Fill(lines []string, n int) []string {
	if len(lines) > n {
		return lines[:n]
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines
}

// Wrap breaks a line to width w at spaces only, so an ID, a hash or a
// path is never split across lines (a mouse selection of it copies it
// whole): a token that does not fit on the rest of a line moves whole to
// the next one. Only a token wider than w itself is cut, at w.
func Wrap(l string, w int) []string {
	w = max(w, 1)
	if ansi.StringWidth(l) <= w {
		return []string{l}
	}
	// By hand: ansi.Wordwrap also breaks at hyphens, inside a UUID.
	var out []string
	var cur strings.Builder
	curW := 0
	flush := func() {
		out = append(out, cur.String())
		cur.Reset()
		curW = 0
	}
	for i, word := range strings.Split(l, " ") {
		ww := ansi.StringWidth(word)
		if i > 0 && curW > 0 && curW+1+ww > w {
			flush()
		} else if i > 0 {
			cur.WriteByte(' ')
			curW++
		}
		if ww > w { // wider than a line: cut, the only way it fits
			parts := strings.Split(ansi.Hardwrap(word, w, true), "\n")
			for _, p := range parts[:len(parts)-1] {
				cur.WriteString(p)
				flush()
			}
			word, ww = parts[len(parts)-1], ansi.StringWidth(parts[len(parts)-1])
		}
		cur.WriteString(word)
		curW += ww
	}
	flush()
	return out
}
