package dict

import (
	"sort"
	"strconv"
	"sync"
)

// packedMessage is a D.96A message structure in the generator's packed
// encoding (internal/gen/emit_compact.go): seven bytes per entry, the tag,
// a flag byte (bit 0 mandatory, bit 1 group, bits 4-7 depth) and the
// maximum repeat in three bytes. It is static data; decodePacked turns it
// into a Message the first time the type is looked up.
type packedMessage struct {
	typ      string
	maxDepth int
	entries  string
}

const packedEntryLen = 7

// packedDecoded holds the decoded structures, one sync.Once each, so
// nothing is decoded before it is needed and each at most once.
var packedDecoded [len(d96aPacked)]struct {
	once sync.Once
	msg  *Message
}

// lookupPacked returns the D.96A structure of a message type that is not
// one of the struct-literal ones.
func lookupPacked(typ string) (*Message, bool) {
	i := sort.Search(len(d96aPacked), func(i int) bool { return d96aPacked[i].typ >= typ })
	if i == len(d96aPacked) || d96aPacked[i].typ != typ {
		return nil, false
	}
	return packedAt(i), true
}

func packedAt(i int) *Message {
	p := &packedDecoded[i]
	p.once.Do(func() { p.msg = decodePacked(&d96aPacked[i]) })
	return p.msg
}

// decodePacked builds the Message of a packed structure: positions are
// 0010, 0020... in table order, groups are numbered in order of
// appearance, and parents, ends and paths follow from the depths.
func decodePacked(p *packedMessage) *Message {
	n := len(p.entries) / packedEntryLen
	m := &Message{Type: p.typ, Version: "D", Release: "96A", Label: p.typ + " D.96A", Directory: D96A,
		Source: "UNTDID D.96A TRMD " + p.typ + "_D.96A, 4.3.1 Segment table", maxDepth: p.maxDepth,
		Entries: make([]Entry, n)}
	var open []int // indexes of the groups enclosing the current entry
	groups := 0
	for i := 0; i < n; i++ {
		b := p.entries[i*packedEntryLen : (i+1)*packedEntryLen]
		depth := int(b[3] >> 4)
		for len(open) > depth {
			m.Entries[open[len(open)-1]].End = i
			open = open[:len(open)-1]
		}
		e := &m.Entries[i]
		e.Position = (i + 1) * 10
		e.Tag = b[:3]
		e.Mandatory = b[3]&1 != 0
		e.MaxRepeat = int(b[4])<<16 | int(b[5])<<8 | int(b[6])
		e.Depth = depth
		e.Parent = -1
		e.key = tagKey(e.Tag)
		name := e.Tag
		if b[3]&2 != 0 {
			groups++
			e.Group = groups
			name = "SG" + strconv.Itoa(groups)
		}
		full := name
		e.Path = name
		if depth > 0 {
			parent := &m.Entries[open[depth-1]]
			e.Parent = open[depth-1]
			e.GroupName = parent.Path
			full = parent.FullPath + "/" + name
			if e.Group == 0 {
				e.Path = parent.Path + "/" + name
			}
		}
		e.FullPath = full
		e.End = i + 1
		if e.Group > 0 {
			open = append(open, i)
		}
	}
	for _, g := range open {
		m.Entries[g].End = n
	}
	return m
}
