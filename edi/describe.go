package edi

import (
	"strconv"

	"github.com/nutrab2b/b2bx/edi/dict"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// SegmentInfo describes one segment for people: its name and place in the
// message structure, and every data value with the directory's name for
// it and, for coded values, the code's name. Directory text is safe to
// print; Tag, Raw and Value come from the data (see Field.Display).
type SegmentInfo struct {
	Index    int    `json:"index"`
	Offset   int    `json:"offset"`
	Number   int    `json:"number"` // position in the message (UNH = 1), 0 outside
	Tag      string `json:"tag"`
	Name     string `json:"name,omitempty"`     // "Name and address"
	Function string `json:"-"`                  // the directory's paragraph on what the segment is for
	Path     string `json:"path,omitempty"`     // "SG2/NAD"
	FullPath string `json:"fullPath,omitempty"` // "SG25/SG26/CCI"
	// Directory says which directory described the segment: "D.96A",
	// "D.24A", "service syntax 3", "service syntax 4"; empty when none
	// knows the tag.
	Directory string `json:"directory,omitempty"`
	// Note is the message's DirectoryNote (D.25A described with D.24A...).
	Note string `json:"note,omitempty"`
	// Unknown says, once for the segment, why its values have no names:
	// "no directory for this message", "segment XYZ is not in D.96A or
	// service syntax 3", "not a valid segment tag". Empty when a
	// directory describes the segment. It quotes no data.
	Unknown string  `json:"unknown,omitempty"`
	Fields  []Field `json:"fields"`
	// More counts the non-empty values after the first maxFields (1000),
	// which Fields leaves out: only a broken or hostile segment has them.
	More int `json:"more,omitempty"`
}

// Field is one non-empty data value of a segment: a simple element, or a
// component of a composite, in one repetition.
type Field struct {
	Element    int `json:"element"`              // 1-based position after the tag
	Component  int `json:"component,omitempty"`  // 1-based; 0 for a simple element
	Repetition int `json:"repetition,omitempty"` // 0-based (syntax 4 repetitions)
	// Position is the element's position as the directory prints it,
	// "010" for the first element; Ref names the value "3035" (simple)
	// or "C082.3039" (component). Ref is empty when the directory does
	// not define the position: the data has more than the segment allows.
	Position  string `json:"position"`
	Ref       string `json:"ref,omitempty"`
	ID        string `json:"id,omitempty"`        // "3039"
	Name      string `json:"name,omitempty"`      // "Party identifier"
	Composite string `json:"composite,omitempty"` // "Party identification details" for a component
	Mandatory bool   `json:"mandatory,omitempty"`
	Repr      string `json:"repr,omitempty"` // "an..35"
	Raw       string `json:"raw"`            // as in the data, still escaped, decoded with the interchange's charset
	Value     string `json:"value"`          // unescaped and decoded
	// CodeName is the code's title for coded elements ("BY" -> "Buyer").
	// CodeList says the directory has a list for the element, so an empty
	// CodeName then means the code is not in it.
	CodeName string `json:"codeName,omitempty"`
	CodeList bool   `json:"codeList,omitempty"`
}

// Display is the value sanitised for a terminal.
func (f Field) Display() string { return termsafe.String(f.Value) }

// Entry returns the structure entry the segment matched, for its group
// nesting; false when its message has no structure, the segment did not
// fit it, or the segment is outside any message.
func (s Segment) Entry() (*dict.Entry, bool) {
	m := s.Message()
	p := s.PathID()
	if m < 0 || p == 0 {
		return nil, false
	}
	st := s.doc.Messages[m].structure
	if st == nil || int(p) > len(st.Entries) {
		return nil, false
	}
	return &st.Entries[p-1], true
}

// Path is the segment's group path in its message structure: the
// innermost group and the tag ("SG2/NAD"), the tag alone at message level
// ("BGM"), "" when there is no structure or the segment did not fit.
func (s Segment) Path() string {
	if e, ok := s.Entry(); ok {
		return e.Path
	}
	return ""
}

// FullPath is Path with every enclosing group ("SG25/SG26/CCI").
func (s Segment) FullPath() string {
	if e, ok := s.Entry(); ok {
		return e.FullPath
	}
	return ""
}

// Name is the directory's name for the segment ("Name and address"), from
// the message's directory, or the service directory for service segments;
// "" when no directory b2bx has knows the tag.
func (s Segment) Name() string {
	if seg, _, ok := s.doc.resolverFor(s.index).Segment(s.Tag()); ok {
		return seg.Name
	}
	return ""
}

// resolverFor returns the name resolver for segment i: its message's, or
// the service directory of its interchange for segments outside messages.
func (d *Document) resolverFor(i int) dict.Resolver {
	if m := d.MessageOf(i); m >= 0 && d.Messages[m].resolver.Service != 0 {
		return d.Messages[m].resolver
	}
	syntax := 3
	if k := d.InterchangeOf(i); k >= 0 && d.Interchanges[k].SyntaxVersion > 0 {
		syntax = d.Interchanges[k].SyntaxVersion
	}
	return dict.Resolver{Service: dict.ServiceDirectory(syntax)}
}

// maxFields bounds the values Describe lists per segment; the rest are
// counted in SegmentInfo.More. A real segment has a few dozen.
const maxFields = 1000

// Describe explains segment i (0-based; it panics out of range like
// Segment). It reads only that segment, each byte once: call it for the
// rows on screen. It lists at most maxFields (1000) values and counts the
// rest in More.
func (d *Document) Describe(i int) SegmentInfo {
	s := d.Segment(i)
	info := SegmentInfo{Index: i, Offset: s.Offset(), Number: s.Number(), Tag: s.Tag()}
	r := d.resolverFor(i)
	seg, dir, known := r.Segment(info.Tag)
	if known {
		info.Name, info.Function, info.Directory = seg.Name, seg.Function, dir.String()
	}
	if e, ok := s.Entry(); ok {
		info.Path, info.FullPath = e.Path, e.FullPath
	}
	if m := s.Message(); m >= 0 {
		info.Note = d.Messages[m].DirectoryNote
	}
	if !known && !s.IsUNA() {
		info.Unknown = unknownSegmentText(r, s.TagValid())
	}
	if s.IsUNA() {
		return info
	}
	fd := fieldDescriber{r: r, s: s, out: make([]Field, 0, 8)}
	seps := &s.dia.seps
	// One pass over the segment: elements, within them repetitions, within
	// those components, each split as it is reached (Segment.Element(e)
	// would scan from the start of the segment for every element).
	els := newSplitter(s.body, seps.Element, s.dia, s.hasRelease())
	els.next() // the tag (a bad one too: the elements after it are listed all the same)
	for e := 1; ; e++ {
		raw, ok := els.next()
		if !ok {
			break
		}
		if len(raw) == 0 {
			continue
		}
		var def *dict.SegmentElement
		if known && e <= len(seg.Elements) {
			def = &seg.Elements[e-1]
		}
		if !seps.HasRepetition {
			fd.element(e, 0, raw, def)
			continue
		}
		reps := newSplitter(raw, seps.Repetition, s.dia, s.hasRelease())
		for k := 0; ; k++ {
			rep, ok := reps.next()
			if !ok {
				break
			}
			fd.element(e, k, rep, def)
		}
	}
	info.Fields, info.More = fd.out, fd.more
	return info
}

// fieldDescriber turns element values into Fields, up to maxFields.
type fieldDescriber struct {
	r    dict.Resolver
	s    Segment
	out  []Field
	more int // values beyond maxFields
}

// element adds the fields of repetition rep (raw, still escaped) of
// element e.
func (fd *fieldDescriber) element(e, rep int, raw []byte, def *dict.SegmentElement) {
	if len(raw) == 0 {
		return
	}
	dia, rel := fd.s.dia, fd.s.hasRelease()
	n := countParts(raw, dia.seps.Component, dia, rel)
	comps := newSplitter(raw, dia.seps.Component, dia, rel)
	for c := 1; c <= n; c++ {
		part, _ := comps.next()
		v := Value{raw: part, dia: dia, rel: rel}
		switch {
		case def != nil && def.Composite():
			var comp *dict.Component
			if c <= len(def.Components) {
				comp = &def.Components[c-1]
			}
			fd.value(e, c, rep, v, def, comp, true)
		case c > 1 || def == nil:
			// A simple element (or an unknown position): one value, and
			// any components the data has beyond it as extra values.
			fd.value(e, c, rep, v, nil, nil, n > 1)
		default:
			fd.value(e, 0, rep, v, def, nil, false)
		}
	}
}

// value appends one non-empty value. def is the element definition (nil:
// the position is not defined), comp the component definition for a
// component of a composite (nil: beyond the composite's components). A
// value that is only a dangling release character at the end of the data
// (an error issue of its own) is empty too.
func (fd *fieldDescriber) value(e, c, rep int, v Value, def *dict.SegmentElement, comp *dict.Component, isComp bool) {
	if v.IsEmpty() || len(v.Bytes()) == 0 {
		return
	}
	if len(fd.out) == maxFields {
		fd.more++
		return
	}
	f := Field{Element: e, Repetition: rep, Position: position(e), Value: v.Text()}
	f.Raw = f.Value
	if len(v.Raw()) != len(v.Bytes()) { // release characters: show them
		f.Raw = fd.s.Charset().Decode(v.Raw())
	}
	if isComp {
		f.Component = c
	}
	id := ""
	switch {
	case def != nil && comp != nil:
		id, f.Ref, f.Name, f.Composite, f.Mandatory, f.Repr = comp.ID, def.ID+"."+comp.ID, comp.Name, def.Name, comp.Mandatory, comp.Repr
	case def != nil && !def.Composite():
		id, f.Ref, f.Name, f.Mandatory, f.Repr = def.ID, def.ID, def.Name, def.Mandatory, def.Repr
	}
	f.ID = id
	if id != "" {
		f.CodeName, _ = fd.r.CodeName(id, f.Value) // codes are ASCII: the text is the code
		f.CodeList = fd.r.HasCodeList(id)
	}
	fd.out = append(fd.out, f)
}

// position renders element position e as the directories print it: the
// first element is "010".
func position(e int) string {
	if e < len(positions) {
		return positions[e]
	}
	return strconv.Itoa(e * 10)
}

// positions holds "000" to "990", so describing a row allocates no
// position strings.
var positions = func() (p [100]string) {
	for e := range p {
		s := strconv.Itoa(e * 10)
		for len(s) < 3 {
			s = "0" + s
		}
		p[e] = s
	}
	return p
}()

// unknownSegmentText says why no directory describes a segment.
func unknownSegmentText(r dict.Resolver, tagValid bool) string {
	switch {
	case !tagValid:
		return "not a valid segment tag: its values have no directory names"
	case r.Dir == 0:
		return "no directory for this message"
	}
	return "segment not in " + r.Dir.String() + " or " + r.Service.String()
}
