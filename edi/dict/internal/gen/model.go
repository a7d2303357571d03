package main

// The generator first reads every source into this intermediate model, then
// checks it and writes the Go tables. Keeping the model independent of the
// source formats lets the D.96A text files, the D.24A XML and the
// hand-written service definitions share one emitter.

// directory is one EDIFACT directory (D.96A, D.24A, service syntax 3 or 4).
type directory struct {
	ident      string // Go identifier prefix: d96a, d24a, svc3, svc4
	constName  string // the dict.Directory constant: D96A, D24A, Service3, Service4
	segments   map[string]*segment
	composites map[string]*composite
	elements   map[string]*element
	codes      map[string][]code // simple element id -> code list
	// open marks the code lists whose element takes codes from outside
	// the list (see openList); Parse reports no unknown codes for them.
	open map[string]bool
}

func newDirectory(ident, constName string) *directory {
	return &directory{
		ident:      ident,
		constName:  constName,
		segments:   map[string]*segment{},
		composites: map[string]*composite{},
		elements:   map[string]*element{},
		codes:      map[string][]code{},
		open:       map[string]bool{},
	}
}

// segment is one segment definition.
type segment struct {
	tag      string
	name     string
	function string
	elems    []segElem
}

// segElem is a stand-alone or composite data element at a segment position.
type segElem struct {
	id        string
	mandatory bool
	repeat    int
}

// composite is a composite data element definition.
type composite struct {
	id    string
	name  string
	desc  string
	comps []component
}

// component is a component data element within a composite.
type component struct {
	id        string
	mandatory bool
	repr      string
}

// element is a simple data element definition.
type element struct {
	id   string
	name string
	desc string
	repr string
	note string // TRED "Note:" (D.96A): says where an open list's codes come from
}

// code is one entry of a code list.
type code struct {
	value string
	title string
}

// message is a message structure (segment table).
type message struct {
	typ, version, release string
	dir                   string // constName of the directory its segments come from
	source                string // where the structure was taken from, for people
	label                 string // Go name suffix for CONTRL: Syntax3, Syntax4
	root                  []*node
}

// humanLabel names the structure for people.
func (m *message) humanLabel() string {
	switch {
	case m.typ == "CONTRL" && m.version == "4":
		return "CONTRL 4:1 (syntax 4)"
	case m.typ == "CONTRL":
		return "CONTRL 2:2 / D:3 (syntax 3)"
	}
	return m.typ + " " + m.version + "." + m.release
}

// node is a segment or a segment group in a message structure.
type node struct {
	tag       string // segment tag; empty for a group
	group     int    // segment group number for a group
	mandatory bool
	max       int
	pos       int // position in the source table (D.96A), 0 when unknown
	children  []*node
}
