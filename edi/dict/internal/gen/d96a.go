package main

import (
	"fmt"
	"regexp"
	"strings"
)

// This file reads the D.96A text directories: TRSD (segments), TRCD
// (composites), TRED (elements) and their indexes, whose names are in
// sentence case where the specifications print them in capitals.

var (
	reIndexLine = regexp.MustCompile(`^   ([A-Z0-9]{3,4}) +(\S.*)$`)
	reSegHead   = regexp.MustCompile(`^      ([A-Z]{3})    (\S.*)$`)
	reSegElem   = regexp.MustCompile(`^(\d{3})   ([CSE]\d{3}|\d{4})  (.*?) +([MC])(?:  (\S+))?$`)
	reSegComp   = regexp.MustCompile(`^      (\d{4})   (.*?) +([MC])  (\S+)$`)
	reCompHead  = regexp.MustCompile(`^      ([CSE]\d{3})  (\S.*)$`)
	reCompComp  = regexp.MustCompile(`^(\d{3})   (\d{4})   (.*?) +([MC])  (\S+)$`)
	reElemHead  = regexp.MustCompile(`^   (\d{4})  (\S.*)$`)
	reRepr      = regexp.MustCompile(`^(a|n|an)(\.\.)?\d+$`)
)

// normTR clears the change indicators of a TRSD/TRCD line: lines starting
// with a position ("070 + C514") carry them after the position, the others
// in the first six columns.
func normTR(line string) string {
	if len(line) >= 4 && isDigits(line[:3]) && line[3] == ' ' {
		return clearCols(line, 3, 6)
	}
	return clearCols(line, 0, 6)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// parseIndex reads a TRSDI1/TRCDI1/TREDI1 index: tag and sentence-case name.
func parseIndex(text string) map[string]string {
	names := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		m := reIndexLine.FindStringSubmatch(clearCols(strings.TrimRight(line, " "), 0, 3))
		if m != nil {
			names[m[1]] = strings.TrimSpace(m[2])
		}
	}
	return names
}

// parseTRSD reads the segment specifications. Component lines are checked
// against the composite directory by the caller; names come from the index.
func parseTRSD(text string, names map[string]string) (map[string]*segment, map[string][]component, error) {
	segs := map[string]*segment{}
	comps := map[string][]component{} // "TAG/C082" -> components as printed in the segment
	for _, blk := range blocks(text) {
		var seg *segment
		var curComp string
		for i := 0; i < len(blk); i++ {
			line := normTR(blk[i])
			trim := strings.TrimSpace(line)
			switch {
			case trim == "":
				curComp = ""
			case seg == nil:
				m := reSegHead.FindStringSubmatch(line)
				if m == nil {
					return nil, nil, fmt.Errorf("TRSD: expected a segment header, got %q", blk[i])
				}
				name, ok := names[m[1]]
				if !ok {
					return nil, nil, fmt.Errorf("TRSD: segment %s missing from the index", m[1])
				}
				seg = &segment{tag: m[1], name: name}
			case strings.HasPrefix(trim, "Function:"):
				seg.function, i = collectParagraph(blk, i, "Function:", 12)
				i--
			case strings.HasPrefix(trim, "Note:"):
				_, i = collectParagraph(blk, i, "Note:", 10)
				i--
			default:
				if m := reSegElem.FindStringSubmatch(line); m != nil {
					seg.elems = append(seg.elems, segElem{id: m[2], mandatory: m[4] == "M", repeat: 1})
					curComp = ""
					if m[5] == "" {
						curComp = m[2]
					} else if !reRepr.MatchString(m[5]) {
						return nil, nil, fmt.Errorf("TRSD %s: bad representation %q", seg.tag, m[5])
					}
					continue
				}
				if m := reSegComp.FindStringSubmatch(line); m != nil && curComp != "" {
					key := seg.tag + "/" + curComp + "/" + fmt.Sprint(len(seg.elems))
					comps[key] = append(comps[key], component{id: m[1], mandatory: m[3] == "M", repr: m[4]})
					continue
				}
				if indent(line) >= 12 { // wrapped element name
					continue
				}
				return nil, nil, fmt.Errorf("TRSD %s: unexpected line %q", seg.tag, blk[i])
			}
		}
		if seg != nil {
			if len(seg.elems) == 0 {
				return nil, nil, fmt.Errorf("TRSD %s: no data elements", seg.tag)
			}
			segs[seg.tag] = seg
		}
	}
	return segs, comps, nil
}

// parseTRCD reads the composite specifications.
func parseTRCD(text string, names map[string]string) (map[string]*composite, error) {
	out := map[string]*composite{}
	for _, blk := range blocks(text) {
		var c *composite
		for i := 0; i < len(blk); i++ {
			line := normTR(blk[i])
			trim := strings.TrimSpace(line)
			switch {
			case trim == "":
			case c == nil:
				m := reCompHead.FindStringSubmatch(line)
				if m == nil {
					return nil, fmt.Errorf("TRCD: expected a composite header, got %q", blk[i])
				}
				name, ok := names[m[1]]
				if !ok {
					return nil, fmt.Errorf("TRCD: composite %s missing from the index", m[1])
				}
				c = &composite{id: m[1], name: name}
			case strings.HasPrefix(trim, "Desc:"):
				c.desc, i = collectParagraph(blk, i, "Desc:", 12)
				i--
			case strings.HasPrefix(trim, "Note:"):
				_, i = collectParagraph(blk, i, "Note:", 10)
				i--
			default:
				if m := reCompComp.FindStringSubmatch(line); m != nil {
					if !reRepr.MatchString(m[5]) {
						return nil, fmt.Errorf("TRCD %s: bad representation %q", c.id, m[5])
					}
					c.comps = append(c.comps, component{id: m[2], mandatory: m[4] == "M", repr: m[5]})
					continue
				}
				if indent(line) >= 13 {
					continue
				}
				return nil, fmt.Errorf("TRCD %s: unexpected line %q", c.id, blk[i])
			}
		}
		if c != nil {
			out[c.id] = c
		}
	}
	return out, nil
}

// parseTRED reads the data element specifications.
func parseTRED(text string) (map[string]*element, error) {
	out := map[string]*element{}
	for _, blk := range blocks(text) {
		var e *element
		for i := 0; i < len(blk); i++ {
			line := clearCols(blk[i], 0, 3)
			trim := strings.TrimSpace(line)
			switch {
			case trim == "":
			case e == nil:
				m := reElemHead.FindStringSubmatch(line)
				if m == nil {
					return nil, fmt.Errorf("TRED: expected an element header, got %q", blk[i])
				}
				e = &element{id: m[1], name: strings.TrimSpace(m[2])}
			case strings.HasPrefix(trim, "Desc:"):
				e.desc, i = collectParagraph(blk, i, "Desc:", 9)
				i--
			case strings.HasPrefix(trim, "Repr:"):
				e.repr = strings.TrimSpace(strings.TrimPrefix(trim, "Repr:"))
				if !reRepr.MatchString(e.repr) {
					return nil, fmt.Errorf("TRED %s: bad representation %q", e.id, e.repr)
				}
			case strings.HasPrefix(trim, "Note:"):
				e.note, i = collectParagraph(blk, i, "Note:", 9)
				i--
			default:
				return nil, fmt.Errorf("TRED %s: unexpected line %q", e.id, blk[i])
			}
		}
		if e != nil {
			if e.repr == "" {
				return nil, fmt.Errorf("TRED %s: no representation", e.id)
			}
			out[e.id] = e
		}
	}
	return out, nil
}
