package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// literalTypes are the D.96A messages emitted as Go struct literals (the
// ones b2bx summarises); every other D.96A message is emitted in the
// compact encoding that dict decodes on first use (emit_compact.go).
var literalTypes = []string{"ORDERS", "ORDRSP", "APERAK"}

// loadD96A builds the D.96A directory and the structures of all its
// messages from the official zip: ORDERS, ORDRSP and APERAK first (in
// that order), then the others sorted by type.
func loadD96A(zipData []byte) (*directory, []*message, error) {
	t, err := openZipTree(zipData)
	if err != nil {
		return nil, nil, err
	}
	get := func(name string) string {
		if err != nil {
			return ""
		}
		var s string
		s, err = t.text(name)
		return s
	}
	trsd, trsdi, trcd, trcdi, tred := get("TRSD.96A"), get("TRSDI1.96A"), get("TRCD.96A"), get("TRCDI1.96A"), get("TRED.96A")
	uncl1, uncl2, unsl := get("UNCL-1.96A"), get("UNCL-2.96A"), get("UNSL.96A")
	if err != nil {
		return nil, nil, err
	}
	d := newDirectory("d96a", "D96A")
	var segComps map[string][]component
	if d.segments, segComps, err = parseTRSD(trsd, parseIndex(trsdi)); err != nil {
		return nil, nil, err
	}
	if d.composites, err = parseTRCD(trcd, parseIndex(trcdi)); err != nil {
		return nil, nil, err
	}
	if d.elements, err = parseTRED(tred); err != nil {
		return nil, nil, err
	}
	// Every entry of the indexes must have been read, and nothing else.
	tredi := get("TREDI1.96A")
	if err != nil {
		return nil, nil, err
	}
	if a, b, c := len(parseIndex(trsdi)), len(parseIndex(trcdi)), len(parseIndex(tredi)); a != len(d.segments) || b != len(d.composites) || c != len(d.elements) {
		return nil, nil, fmt.Errorf("read %d segments, %d composites, %d elements; the indexes list %d, %d, %d",
			len(d.segments), len(d.composites), len(d.elements), a, b, c)
	}
	cl := &codeListSet{names: map[string]string{}, codes: map[string][]code{}}
	for _, txt := range []string{uncl1, uncl2, unsl} {
		if err := parseUNCL(txt, cl); err != nil {
			return nil, nil, err
		}
	}
	d.codes = cl.codes
	// UNSL names the service elements the D.96A directory itself does
	// not define (0001, 0083, 0085...): keep them as elements so that
	// their codes have a name to hang on.
	for id, name := range cl.names {
		if _, ok := d.elements[id]; !ok && strings.HasPrefix(id, "0") {
			d.elements[id] = &element{id: id, name: name}
		}
	}
	if err := checkSegmentComposites(d, segComps); err != nil {
		return nil, nil, err
	}
	var msgs []*message
	types := append([]string(nil), literalTypes...)
	for _, name := range t.names() {
		if typ, ok := strings.CutSuffix(name, "_D.96A"); ok && isMessageType(typ) && !slices.Contains(literalTypes, typ) {
			types = append(types, typ)
		}
	}
	sort.Strings(types[len(literalTypes):])
	for _, typ := range types {
		txt, err := t.text(typ + "_D.96A")
		if err != nil {
			return nil, nil, err
		}
		m, err := parseTRMD(typ, txt)
		if err != nil {
			return nil, nil, err
		}
		m.version, m.release, m.dir = "D", "96A", "D96A"
		m.source = "UNTDID D.96A TRMD " + typ + "_D.96A, 4.3.1 Segment table"
		msgs = append(msgs, m)
	}
	return d, msgs, nil
}

// checkSegmentComposites compares the components printed under each
// composite in TRSD with the TRCD definition: a mismatch means one of the
// parsers misread a line.
func checkSegmentComposites(d *directory, segComps map[string][]component) error {
	for key, got := range segComps {
		parts := strings.Split(key, "/")
		c, ok := d.composites[parts[1]]
		if !ok {
			return fmt.Errorf("segment %s uses unknown composite %s", parts[0], parts[1])
		}
		if fmt.Sprint(got) != fmt.Sprint(c.comps) {
			return fmt.Errorf("segment %s composite %s: TRSD %v, TRCD %v", parts[0], parts[1], got, c.comps)
		}
	}
	for _, s := range d.segments {
		for _, e := range s.elems {
			_, isComp := d.composites[e.id]
			_, isElem := d.elements[e.id]
			if !isComp && !isElem {
				return fmt.Errorf("segment %s uses unknown element %s", s.tag, e.id)
			}
		}
	}
	for _, c := range d.composites {
		for _, k := range c.comps {
			if _, ok := d.elements[k.id]; !ok {
				return fmt.Errorf("composite %s uses unknown element %s", c.id, k.id)
			}
		}
	}
	return nil
}

// isMessageType reports whether s is a six-letter message type (the TRMD
// files are TYPE_D.96A; the chapter files D4232A_D.96A are not).
func isMessageType(s string) bool {
	if len(s) != 6 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
