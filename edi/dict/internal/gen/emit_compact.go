package main

import (
	"fmt"
	"strings"
)

// The D.96A messages other than literalTypes are emitted packed: one
// string per message with seven bytes per entry, which package dict
// decodes into a Message the first time the type is looked up
// (packed.go). 120-odd messages as struct literals would add about 1.5 MB
// of binary; packed they take about 70 KB, and nothing runs at start-up.
//
// Entry layout: the tag (the trigger segment's for a group), a flag byte
// (bit 0 mandatory, bit 1 segment group, bits 4-7 the nesting depth) and
// the maximum repeat in three bytes, big-endian. Positions (0010, 0020...),
// group numbers, parents, ends and paths follow from the order and the
// depths, as flatten derives them.
const packedEntryLen = 7

// packEntries encodes a message's flattened entries.
func packEntries(m *message) (string, int, error) {
	entries, depth, err := flatten(m)
	if err != nil {
		return "", 0, err
	}
	var sb strings.Builder
	for _, e := range entries {
		if e.depth > 15 || e.max >= 1<<24 {
			return "", 0, fmt.Errorf("%s: entry %04d does not fit the packed encoding", m.typ, e.pos)
		}
		flags := byte(e.depth << 4)
		if e.mandatory {
			flags |= 1
		}
		if e.group > 0 {
			flags |= 2
		}
		sb.WriteString(e.tag)
		sb.WriteByte(flags)
		sb.WriteByte(byte(e.max >> 16))
		sb.WriteByte(byte(e.max >> 8))
		sb.WriteByte(byte(e.max))
	}
	return sb.String(), depth, nil
}

// emitPacked writes the packed D.96A messages, sorted by type.
func emitPacked(w *goWriter, msgs []*message) error {
	w.f("// d96aPacked holds the D.96A message structures other than ORDERS, ORDRSP\n")
	w.f("// and APERAK, sorted by type, %d bytes per entry (see packed.go).\n", packedEntryLen)
	w.f("var d96aPacked = [...]packedMessage{\n")
	for _, m := range msgs {
		s, depth, err := packEntries(m)
		if err != nil {
			return err
		}
		w.f("\t{%s, %d, %s},\n", q(m.typ), depth, q(s))
	}
	w.f("}\n")
	return nil
}
