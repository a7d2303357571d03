package main

import (
	"fmt"
	"regexp"
	"strings"
)

var reCodeHead = regexp.MustCompile(`^  (\d{4})  (\S.*)$`)

// codeListSet is the result of reading UNCL/UNSL: element name and codes.
type codeListSet struct {
	names map[string]string
	codes map[string][]code
}

// parseUNCL reads a code list file (UNCL-1, UNCL-2, UNSL). Each entry
// starts with the element header, then Desc/Repr/Note paragraphs, then
// the codes: the value in columns 2-9, the title from column 10 (wrapped
// titles continue at column 10), the description from column 13.
func parseUNCL(text string, into *codeListSet) error {
	for _, blk := range blocks(text) {
		var id string
		var list []code
		inTitle := false
		for i := 0; i < len(blk); i++ {
			line := clearCols(blk[i], 0, 2)
			trim := strings.TrimSpace(line)
			switch {
			case trim == "":
				inTitle = false
			case id == "":
				m := reCodeHead.FindStringSubmatch(line)
				if m == nil {
					return fmt.Errorf("code lists: expected an element header, got %q", blk[i])
				}
				id = m[1]
				into.names[id] = strings.TrimSpace(m[2])
			case indent(line) == 2 && (strings.HasPrefix(trim, "Desc:") || strings.HasPrefix(trim, "Note:")):
				_, i = collectParagraph(blk, i, trim[:5], 8)
				i--
				inTitle = false
			case indent(line) == 2 && strings.HasPrefix(trim, "Repr:"):
				inTitle = false
			case indent(line) < 10:
				f := strings.Fields(line)
				if len(f) < 2 || len(line) <= 10 {
					return fmt.Errorf("code list %s: bad code line %q", id, blk[i])
				}
				list = append(list, code{value: f[0], title: strings.TrimSpace(line[strings.Index(line, f[0])+len(f[0]):])})
				inTitle = true
			case indent(line) == 10 && inTitle:
				last := &list[len(list)-1]
				last.title += " " + trim
			default:
				inTitle = false // description text
			}
		}
		if id == "" {
			continue
		}
		if len(list) == 0 {
			continue // e.g. 0057: "use codes defined by the association"
		}
		if _, dup := into.codes[id]; dup {
			return fmt.Errorf("code list %s listed twice", id)
		}
		into.codes[id] = list
	}
	return nil
}
