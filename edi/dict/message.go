package dict

import "sort"

// Message is the structure (segment table) of a message type.
type Message struct {
	Type      string    // "ORDERS"
	Version   string    // "D"; "2" or "4" for CONTRL
	Release   string    // "96A"; "2" or "1" for CONTRL
	Label     string    // for people: "ORDERS D.96A", "CONTRL 4:1 (syntax 4)"
	Directory Directory // where its segments are described
	Source    string    // where the structure was read from
	// Entries is the segment table in order, groups before their content,
	// as printed in the UN specifications.
	Entries  []Entry
	maxDepth int // deepest group nesting, to size a Matcher once
}

// Entry is a segment or a segment group of a message structure.
type Entry struct {
	Position  int    // 10, 20, 30... as in the specification's 0010, 0020
	Tag       string // the segment tag; for a group the tag of its trigger segment
	Group     int    // the group number when the entry is segment group n, else 0
	Mandatory bool
	MaxRepeat int
	Depth     int    // number of groups enclosing the entry
	Parent    int    // index of the enclosing group entry; -1 at message level
	End       int    // index after the entry and everything it contains
	Path      string // innermost group and tag: "SG2/NAD", "BGM"; "SG2" for a group
	FullPath  string // every enclosing group: "SG25/SG26/CCI"
	GroupName string // the enclosing group: "SG2"; "" at message level
	key       uint32 // Tag packed by tagKey, so the matcher compares integers
}

// tagKey packs a three-character tag into an integer; anything else gets
// a key no entry has.
func tagKey(tag string) uint32 {
	if len(tag) != 3 {
		return noKey
	}
	return uint32(tag[0])<<16 | uint32(tag[1])<<8 | uint32(tag[2])
}

const noKey = 0xFFFFFFFF

// IsGroup reports whether the entry is a segment group.
func (e *Entry) IsGroup() bool { return e.Group > 0 }

// NoteKind classifies a MessageNote.
type NoteKind uint8

// Kinds of notes LookupMessage attaches to a structure.
const (
	// NoNote: the structure is the one the message declares.
	NoNote NoteKind = iota
	// NoteSubstitute: another release's structure is used (D.25A -> D.24A).
	NoteSubstitute
	// NoteSyntaxMismatch: the CONTRL version does not fit the interchange's
	// syntax version; the structure of the declared CONTRL version is used.
	NoteSyntaxMismatch
	// NoteUnknownVersion: the CONTRL version is not one of 2:2, D:3, 4:1;
	// the structure for the syntax version is used.
	NoteUnknownVersion
)

// MessageNote tells how the structure returned by LookupMessage relates to
// the declared message. Text is a fixed sentence for people; it quotes no
// payload data.
type MessageNote struct {
	Kind NoteKind
	Text string
}

// IsZero reports whether there is nothing to say.
func (n MessageNote) IsZero() bool { return n.Kind == NoNote }

// LookupMessage returns the structure for a message type, version and
// release (UNH S009 0065, 0052, 0054) in an interchange of the given
// syntax version (UNB S001 0002).
//
// Every D.96A message is known (the UNTDID D.96A message directory: ORDERS,
// DESADV, INVOIC, IFTMIN... 125 types); ORDERS, ORDRSP and APERAK are also
// known for D.24A, and D.25A gets the
// D.24A structure with a NoteSubstitute note. CONTRL is known as 2:2 and
// D:3 for syntax 3 (and below) and 4:1 for syntax 4. A CONTRL version that
// does not fit the syntax version still gets its own structure, with a
// NoteSyntaxMismatch note such as "CONTRL 4:1 under syntax version 3"; an
// unknown CONTRL version gets the syntax version's structure and a
// NoteUnknownVersion note. Everything else is not known (ok false).
//
// The Message is a static table shared by all callers: do not modify it.
func LookupMessage(msgType, version, release string, syntaxVersion int) (*Message, MessageNote, bool) {
	if msgType == "CONTRL" {
		return lookupCONTRL(version, release, syntaxVersion)
	}
	d, note, ok := DirectoryFor(version, release)
	if !ok {
		return nil, MessageNote{}, false
	}
	for _, m := range messages {
		if m.Type == msgType && m.Directory == d {
			if note != "" {
				return m, MessageNote{Kind: NoteSubstitute, Text: note}, true
			}
			return m, MessageNote{}, true
		}
	}
	if d == D96A {
		if m, ok := lookupPacked(msgType); ok {
			return m, MessageNote{}, true
		}
	}
	return nil, MessageNote{}, false
}

func lookupCONTRL(version, release string, syntaxVersion int) (*Message, MessageNote, bool) {
	v3, v4 := &msgCONTRLSyntax3, &msgCONTRLSyntax4
	declared := version + ":" + release
	switch declared {
	case "2:2", "D:3":
		if syntaxVersion >= 4 {
			return v3, MessageNote{Kind: NoteSyntaxMismatch, Text: "CONTRL " + declared + " under syntax version 4 (CONTRL 4:1 belongs to syntax 4); checked with the CONTRL " + declared + " structure"}, true
		}
		return v3, MessageNote{}, true
	case "4:1":
		if syntaxVersion < 4 {
			return v4, MessageNote{Kind: NoteSyntaxMismatch, Text: "CONTRL 4:1 under syntax version " + syntaxDigit(syntaxVersion) + " (CONTRL 2:2 or D:3 belong to syntax 3); checked with the CONTRL 4:1 structure"}, true
		}
		return v4, MessageNote{}, true
	}
	if syntaxVersion >= 4 {
		return v4, MessageNote{Kind: NoteUnknownVersion, Text: "unknown CONTRL version; checked with the CONTRL 4:1 structure of syntax 4"}, true
	}
	return v3, MessageNote{Kind: NoteUnknownVersion, Text: "unknown CONTRL version; checked with the CONTRL 2:2/D:3 structure of syntax 3"}, true
}

// syntaxDigit renders a syntax version without strconv allocations for the
// common single digits; others say "other than 4".
func syntaxDigit(v int) string {
	if v >= 0 && v <= 9 {
		return string(rune('0' + v))
	}
	return "other than 4"
}

// Messages returns every known message structure. The structures are
// static tables shared by all callers and must not be modified.
func Messages() []*Message {
	out := append(make([]*Message, 0, len(messages)+len(d96aPacked)), messages[:]...)
	for i := range d96aPacked {
		out = append(out, packedAt(i))
	}
	return out
}

// MessageTypes returns the message types with a structure in directory d,
// sorted, without decoding any structure.
func MessageTypes(d Directory) []string {
	var out []string
	for _, m := range messages {
		if m.Directory == d {
			out = append(out, m.Type)
		}
	}
	if d == D96A {
		for i := range d96aPacked {
			out = append(out, d96aPacked[i].typ)
		}
	}
	sort.Strings(out)
	return out
}

// PathOf returns the entry for a PathID from a Step, and false for
// NoPath or an id out of range.
func (m *Message) PathOf(id uint16) (*Entry, bool) {
	if int(id) >= len(m.Entries) {
		return nil, false
	}
	return &m.Entries[id], true
}
