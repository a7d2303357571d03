package dict

import "sort"

// tables is indexed by Directory; the generated files define the tables.
var tables = [...]*table{D96A: &d96aTable, D24A: &d24aTable, Service3: &svc3Table, Service4: &svc4Table}

func tableOf(d Directory) *table {
	if int(d) >= len(tables) {
		return nil
	}
	return tables[d]
}

// LookupSegment returns the segment with the tag in directory d. Service
// segments (UNB, UNH, UCI...) are in the service directories only; use a
// Resolver to look in both. The result points into static tables and must
// not be modified.
func LookupSegment(d Directory, tag string) (*Segment, bool) {
	t := tableOf(d)
	if t == nil {
		return nil, false
	}
	i := sort.Search(len(t.segments), func(i int) bool { return t.segments[i].Tag >= tag })
	if i < len(t.segments) && t.segments[i].Tag == tag {
		return &t.segments[i], true
	}
	return nil, false
}

// LookupElement returns the simple ("1225") or composite ("C082") data
// element with the id in directory d. The result points into static tables
// and must not be modified.
func LookupElement(d Directory, id string) (*Element, bool) {
	t := tableOf(d)
	if t == nil {
		return nil, false
	}
	i := sort.Search(len(t.elements), func(i int) bool { return t.elements[i].ID >= id })
	if i < len(t.elements) && t.elements[i].ID == id {
		return &t.elements[i], true
	}
	return nil, false
}

// CodeName returns the title of a code of a simple data element in
// directory d, e.g. CodeName(D96A, "1225", "9") is "Original". D.96A has
// every code list of UNCL and UNSL; D.24A the lists of the segments its
// ORDERS, ORDRSP and APERAK use; the service directories all theirs. It
// does not allocate.
func CodeName(d Directory, elementID, code string) (string, bool) {
	t := tableOf(d)
	id, ok := parseElementID(elementID)
	if t == nil || !ok {
		return "", false
	}
	l := sort.Search(len(t.codeLists), func(i int) bool { return t.codeLists[i].element >= id })
	if l == len(t.codeLists) || t.codeLists[l].element != id {
		return "", false
	}
	cl := t.codeLists[l]
	codes := t.codes[cl.first : cl.first+uint32(cl.count)]
	i := sort.Search(len(codes), func(i int) bool { return codes[i].value.in(t.codeText) >= code })
	if i < len(codes) && codes[i].value.in(t.codeText) == code {
		return codes[i].title.in(t.codeText), true
	}
	return "", false
}

// HasCodeList reports whether directory d has a code list for the simple
// element, so callers can tell "unknown code" from "no list".
func HasCodeList(d Directory, elementID string) bool {
	t := tableOf(d)
	id, ok := parseElementID(elementID)
	if t == nil || !ok {
		return false
	}
	l := sort.Search(len(t.codeLists), func(i int) bool { return t.codeLists[i].element >= id })
	return l < len(t.codeLists) && t.codeLists[l].element == id
}

// parseElementID converts a four-digit simple element id to a number.
func parseElementID(s string) (uint16, bool) {
	if len(s) != 4 {
		return 0, false
	}
	var n uint16
	for i := 0; i < 4; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint16(c-'0')
	}
	return n, true
}

// CodeListClosed reports whether directory d has a closed code list for
// the simple element: a list whose element takes no codes from elsewhere.
// The generator decides it from the directory's own text (D.96A TRED
// notes such as "User or association defined code", "Use ISO 3166",
// "May be used in combination with 1131/3055" make a list open; see
// internal/gen/openlist.go). D.24A lists are all open (its source has no
// such notes), and so are the service identifiers 0001, 0002, 0051, 0052, 0054
// and 0065, which Parse checks in its own way.
func CodeListClosed(d Directory, elementID string) bool {
	t := tableOf(d)
	id, ok := parseElementID(elementID)
	if t == nil || !ok {
		return false
	}
	l := sort.Search(len(t.codeLists), func(i int) bool { return t.codeLists[i].element >= id })
	return l < len(t.codeLists) && t.codeLists[l].element == id && !t.codeLists[l].open
}
