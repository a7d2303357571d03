package main

import (
	"fmt"
	"strings"
)

// flatEntry mirrors dict.Entry.
type flatEntry struct {
	pos                       int
	tag                       string
	group                     int
	mandatory                 bool
	max, depth, parent, end   int
	path, fullPath, groupName string
}

// flatten lists a structure in table order and derives positions, paths
// and subtree ends. A group's tag is its trigger segment, which must be
// its first entry, mandatory and not repeated (so a repeated trigger
// always starts a new group occurrence).
func flatten(m *message) ([]flatEntry, int, error) {
	var out []flatEntry
	maxDepth := 0
	var walk func(ns []*node, parent int, groups []string) error
	walk = func(ns []*node, parent int, groups []string) error {
		for _, n := range ns {
			idx := len(out)
			e := flatEntry{pos: (idx + 1) * 10, tag: n.tag, group: n.group, mandatory: n.mandatory,
				max: n.max, depth: len(groups), parent: parent}
			if len(groups) > 0 {
				e.groupName = groups[len(groups)-1]
			}
			if n.pos != 0 && n.pos != e.pos {
				return fmt.Errorf("%s: entry at %04d numbered %04d", m.typ, n.pos, e.pos)
			}
			if n.max < 1 {
				return fmt.Errorf("%s: entry %04d has repeat %d", m.typ, e.pos, n.max)
			}
			name := n.tag
			if n.group > 0 {
				if len(n.children) == 0 || n.children[0].tag == "" || !n.children[0].mandatory || n.children[0].max != 1 {
					return fmt.Errorf("%s: SG%d does not start with a mandatory, unrepeated trigger segment", m.typ, n.group)
				}
				e.tag = n.children[0].tag
				name = fmt.Sprintf("SG%d", n.group)
			}
			e.fullPath = strings.Join(append(append([]string(nil), groups...), name), "/")
			e.path = name
			if len(groups) > 0 && n.group == 0 {
				e.path = groups[len(groups)-1] + "/" + name
			}
			out = append(out, e)
			if n.group > 0 {
				maxDepth = max(maxDepth, len(groups)+1)
				if err := walk(n.children, idx, append(groups, name)); err != nil {
					return err
				}
			}
			out[idx].end = len(out)
		}
		return nil
	}
	if err := walk(m.root, -1, nil); err != nil {
		return nil, 0, err
	}
	for _, e := range out {
		if len(e.tag) != 3 {
			return nil, 0, fmt.Errorf("%s: tag %q is not three characters", m.typ, e.tag)
		}
	}
	if len(out) == 0 || out[0].tag != "UNH" || out[len(out)-1].tag != "UNT" || out[len(out)-1].depth != 0 {
		return nil, 0, fmt.Errorf("%s: structure must start with UNH and end with UNT", m.typ)
	}
	return out, maxDepth, nil
}

// msgIdent is the Go name of a message structure variable.
func msgIdent(m *message) string {
	if m.typ == "CONTRL" {
		return "msgCONTRL" + m.label
	}
	return "msg" + m.typ + m.dir
}

func emitMessages(w *goWriter, msgs []*message) error {
	w.f("var messages = [...]*Message{")
	for _, m := range msgs {
		w.f("&%s, ", msgIdent(m))
	}
	w.f("}\n\n")
	for _, m := range msgs {
		entries, depth, err := flatten(m)
		if err != nil {
			return err
		}
		w.f("// %s: %s.\n", msgIdent(m), m.source)
		w.f("var %s = Message{\n\tType: %s, Version: %s, Release: %s, Label: %s,\n\tDirectory: %s, Source: %s, maxDepth: %d,\n\tEntries: []Entry{\n",
			msgIdent(m), q(m.typ), q(m.version), q(m.release), q(m.humanLabel()), m.dir, q(m.source), depth)
		for _, e := range entries {
			key := uint32(e.tag[0])<<16 | uint32(e.tag[1])<<8 | uint32(e.tag[2])
			w.f("\t\t{%d, %s, %d, %t, %d, %d, %d, %d, %s, %s, %s, %#x},\n", e.pos, q(e.tag), e.group, e.mandatory,
				e.max, e.depth, e.parent, e.end, q(e.path), q(e.fullPath), q(e.groupName), key)
		}
		w.f("\t},\n}\n\n")
	}
	return nil
}
