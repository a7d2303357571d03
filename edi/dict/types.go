package dict

// Segment describes a segment of a directory.
type Segment struct {
	Tag      string // "NAD"
	Name     string // "Name and address"
	Function string // what the segment is for, one paragraph
	Elements []SegmentElement
}

// SegmentElement is a stand-alone or composite data element at a position
// of a segment.
type SegmentElement struct {
	Position   int    // 1 for the first element after the tag
	ID         string // "3035" or "C082"
	Name       string // "Party qualifier"
	Mandatory  bool
	Repeat     int         // maximum occurrences (syntax 4 repetition); 1 in D.96A
	Repr       string      // "an..35"; empty for a composite
	Components []Component // the composite's components; nil for a simple element
}

// Composite reports whether the element is a composite data element.
func (e *SegmentElement) Composite() bool { return e.Repr == "" }

// Component is a component data element of a composite.
type Component struct {
	Position  int    // 1 for the first component
	ID        string // "3039"
	Name      string // "Party id. identification"
	Mandatory bool
	Repr      string // "an..35"
}

// Element describes a simple or composite data element of a directory.
type Element struct {
	ID          string
	Name        string
	Repr        string // representation of a simple element; empty for a composite
	Description string
	Components  []Component // a composite's components (some syntax 4 security composites list none)
}

// Composite reports whether the element is a composite data element.
func (e *Element) Composite() bool { return e.Repr == "" }

// table is the generated data of one directory. Segments and elements are
// sorted by tag and id; codes are stored as offsets into one string.
type table struct {
	segments  []Segment
	elements  []Element
	codeLists []codeList // sorted by element
	codes     []codeEntry
	codeText  string
}

// codeList locates the codes of one simple element in table.codes; the
// codes of a list are sorted by value (byte order).
type codeList struct {
	element uint16 // numeric element id: 1225 for "1225"
	count   uint16
	first   uint32
	open    bool // codes from outside the list are allowed (see CodeListClosed)
}

// codeEntry is a code value and its title, each an offset<<8|length
// reference into table.codeText.
type codeEntry struct {
	value, title strRef
}

// strRef points into a table's codeText: offset<<8 | length.
type strRef uint32

func (r strRef) in(s string) string {
	off := int(r >> 8)
	return s[off : off+int(r&0xff)]
}
