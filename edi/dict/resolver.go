package dict

// Resolver looks up names for the segments of one message: user segments
// in the message's directory, service segments (UNB, UNH, UCI...) and
// service elements (0001..0999, S001...) in the service directory of the
// interchange's syntax version. The zero Dir (unknown message version)
// still resolves service segments.
type Resolver struct {
	Dir     Directory // the message's directory, e.g. from DirectoryFor; zero if unknown
	Service Directory // from ServiceDirectory(syntax version)
	// Fallback names what the first two do not know: D.96A for segments
	// a later directory dropped (PAT and GIS are not in D.24A) and for
	// UN segments in message types no directory has. Zero for none.
	Fallback Directory
}

// NewResolver returns the resolver for a message version and release and
// the interchange's syntax version, with DirectoryFor's note (D.25A).
func NewResolver(version, release string, syntaxVersion int) (r Resolver, note string) {
	r.Service = ServiceDirectory(syntaxVersion)
	r.Dir, note, _ = DirectoryFor(version, release)
	return r, note
}

// isServiceTag reports whether a segment tag is a service segment tag:
// they all start with U, which no user segment does.
func isServiceTag(tag string) bool { return len(tag) > 0 && tag[0] == 'U' }

// isServiceElement reports whether an element id belongs to the service
// directories: simple elements 0001..0999 and composites Sxxx.
func isServiceElement(id string) bool { return len(id) > 0 && (id[0] == '0' || id[0] == 'S') }

// Segment looks the tag up in the service directory for service tags and
// in the message directory otherwise, then in the other one, and tells
// which directory answered.
func (r Resolver) Segment(tag string) (*Segment, Directory, bool) {
	first, second := r.Dir, r.Service
	if isServiceTag(tag) {
		first, second = second, first
	}
	if s, ok := LookupSegment(first, tag); ok {
		return s, first, true
	}
	if s, ok := LookupSegment(second, tag); ok {
		return s, second, true
	}
	if r.Fallback != 0 && r.Fallback != r.Dir && !isServiceTag(tag) {
		if s, ok := LookupSegment(r.Fallback, tag); ok {
			return s, r.Fallback, true
		}
	}
	return nil, 0, false
}

// Element looks a data element up, service elements in the service
// directory first.
func (r Resolver) Element(id string) (*Element, bool) {
	first, second := r.Dir, r.Service
	if isServiceElement(id) {
		first, second = second, first
	}
	if e, ok := LookupElement(first, id); ok {
		return e, true
	}
	if e, ok := LookupElement(second, id); ok {
		return e, true
	}
	return LookupElement(r.Fallback, id)
}

// CodeName returns a code's title, service elements from the service
// directory first (D.96A also carries the 1996 service code lists).
func (r Resolver) CodeName(elementID, code string) (string, bool) {
	first, second := r.Dir, r.Service
	if isServiceElement(elementID) {
		first, second = second, first
	}
	if s, ok := CodeName(first, elementID, code); ok {
		return s, true
	}
	if s, ok := CodeName(second, elementID, code); ok {
		return s, true
	}
	return CodeName(r.Fallback, elementID, code)
}

// HasCodeList reports whether any of the resolver's directories has a
// code list for the element.
func (r Resolver) HasCodeList(elementID string) bool {
	return HasCodeList(r.Dir, elementID) || HasCodeList(r.Service, elementID) || HasCodeList(r.Fallback, elementID)
}
