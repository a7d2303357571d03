package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The TRMD message specifications end with "4.3.1 Segment table": one line
// per segment or group with position, tag, name, status and repeat, and a
// CP437 box drawing on the right that shows the nesting. A group line ends
// in "┐" after as many "│" as there are enclosing groups open to its
// right; a segment line that closes groups ends in "┘" preceded by one "┴"
// per additional group closed.
var (
	reTRMDSeg   = regexp.MustCompile(`^(\d{4})  +([A-Z]{3}) (.+?) +([MC]) +(\d+)(.*)$`)
	reTRMDGroup = regexp.MustCompile(`^(\d{4})  +─+ Segment group (\d+) *─+ ([MC]) +(\d+)(.*)$`)
)

// parseTRMD reads the segment table of one message specification.
func parseTRMD(typ, text string) (*message, error) {
	lines := strings.Split(text, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "Pos    Tag Name") {
			start = i + 1
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("%s: no segment table", typ)
	}
	m := &message{typ: typ}
	stack := []*[]*node{&m.root}
	groupNo := 0
	for _, raw := range lines[start:] {
		line := clearCols(raw, 4, 7)
		if strings.TrimSpace(strings.Trim(line, " │")) == "" || !isDigits(firstN(line, 4)) {
			continue
		}
		pos, _ := strconv.Atoi(line[:4])
		if g := reTRMDGroup.FindStringSubmatch(line); g != nil {
			n := mustAtoi(g[2])
			if n != groupNo+1 {
				return nil, fmt.Errorf("%s: group %d follows group %d", typ, n, groupNo)
			}
			groupNo = n
			depth := strings.Count(g[5], "│") + 1
			if depth != len(stack) || !strings.HasSuffix(strings.TrimRight(g[5], "│"), "┐") {
				return nil, fmt.Errorf("%s: group %d box drawing %q does not fit depth %d", typ, n, g[5], len(stack))
			}
			nd := &node{group: n, mandatory: g[3] == "M", max: mustAtoi(g[4]), pos: pos}
			parent := stack[len(stack)-1]
			*parent = append(*parent, nd)
			stack = append(stack, &nd.children)
			continue
		}
		s := reTRMDSeg.FindStringSubmatch(line)
		if s == nil {
			return nil, fmt.Errorf("%s: unreadable segment table line %q", typ, raw)
		}
		nd := &node{tag: s[2], mandatory: s[4] == "M", max: mustAtoi(s[5]), pos: pos}
		parent := stack[len(stack)-1]
		*parent = append(*parent, nd)
		closed := strings.Count(s[6], "┘") + strings.Count(s[6], "┴")
		if closed >= len(stack) {
			return nil, fmt.Errorf("%s: line %q closes %d groups, %d open", typ, raw, closed, len(stack)-1)
		}
		stack = stack[:len(stack)-closed]
		if open := strings.Count(strings.TrimLeft(s[6], " ─┴┘"), "│"); open != len(stack)-1 {
			return nil, fmt.Errorf("%s: line %q shows %d open groups, expected %d", typ, raw, open, len(stack)-1)
		}
		if s[2] == "UNT" && len(stack) == 1 {
			break
		}
	}
	if len(stack) != 1 {
		return nil, fmt.Errorf("%s: segment table ends with %d groups open", typ, len(stack)-1)
	}
	if err := checkPositions(typ, m.root); err != nil {
		return nil, err
	}
	return m, nil
}

// checkPositions verifies that the printed positions are 0010, 0020... in
// table order: the matcher numbers D.24A structures the same way, so this
// proves the numbering rule on the official tables.
func checkPositions(typ string, root []*node) error {
	want := 10
	var walk func([]*node) error
	walk = func(ns []*node) error {
		for _, n := range ns {
			if n.pos != want {
				return fmt.Errorf("%s: position %04d where %04d was expected", typ, n.pos, want)
			}
			want += 10
			if err := walk(n.children); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root)
}

func firstN(s string, n int) string {
	if len(s) < n {
		return s
	}
	return s[:n]
}

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(fmt.Sprintf("generator: %q is not a number: %v", s, err))
	}
	return n
}
