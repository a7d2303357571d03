package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// loadD24A builds the D.24A directory and its ORDERS, ORDRSP and APERAK
// structures from the pydifact XML. Names are CamelCase there; they are
// turned into words, or replaced by the D.96A name of the same tag when
// that says the same words with the original punctuation.
func loadD24A(base string, d96a *directory) (*directory, []*message, error) {
	dir := filepath.Join(base, "pydifact-d24a", "d24a")
	d := newDirectory("d24a", "D24A")
	var xs xSegments
	var xc xComposites
	var xe xElements
	for name, v := range map[string]any{"segments.xml": &xs, "composite_data_elements.xml": &xc, "data_elements.xml": &xe} {
		if err := readXML(filepath.Join(dir, name), v); err != nil {
			return nil, nil, err
		}
	}
	for _, it := range xe.Items {
		repr, err := reprOf(it)
		if err != nil {
			return nil, nil, fmt.Errorf("D.24A: %w", err)
		}
		d.elements[it.ID] = &element{id: it.ID, name: nameFrom(it.Name, d96aElementName(d96a, it.ID)), desc: it.Desc, repr: repr}
		if len(it.Codes) > 0 {
			d.codes[it.ID] = xmlCodes(it.Codes)
		}
	}
	for _, it := range xc.Items {
		c := &composite{id: it.ID, name: nameFrom(it.Name, d96aCompositeName(d96a, it.ID)), desc: it.Desc}
		for _, k := range it.Children {
			repr, err := reprOf(k)
			if err != nil {
				return nil, nil, fmt.Errorf("D.24A composite %s: %w", it.ID, err)
			}
			c.comps = append(c.comps, component{id: k.ID, mandatory: k.Required == "true", repr: repr})
		}
		d.composites[it.ID] = c
	}
	for _, xseg := range xs.Segments {
		name := camelToWords(xseg.Name)
		if s, ok := d96a.segments[xseg.ID]; ok {
			name = betterName(name, s.name)
		}
		seg := &segment{tag: xseg.ID, name: name, function: xseg.Desc}
		for _, it := range xseg.Items {
			rep, err := atoiDefault(it.Repeat, 1)
			if err != nil {
				return nil, nil, fmt.Errorf("D.24A %s %s: %w", xseg.ID, it.ID, err)
			}
			seg.elems = append(seg.elems, segElem{id: it.ID, mandatory: it.Required == "true", repeat: rep})
			if err := checkInlineComposite(d, xseg.ID, it); err != nil {
				return nil, nil, err
			}
		}
		d.segments[seg.tag] = seg
	}
	if err := checkReferences(d); err != nil {
		return nil, nil, err
	}
	var msgs []*message
	for _, typ := range []string{"ORDERS", "ORDRSP", "APERAK"} {
		root, err := xmlMessage(filepath.Join(dir, "messages", strings.ToLower(typ)+".xml"))
		if err != nil {
			return nil, nil, err
		}
		msgs = append(msgs, &message{typ: typ, version: "D", release: "24A", dir: "D24A", root: root,
			source: "pydifact D.24A messages/" + strings.ToLower(typ) + ".xml"})
	}
	return d, msgs, nil
}

func nameFrom(camel, d96aName string) string {
	return betterName(camelToWords(camel), d96aName)
}

func d96aElementName(d *directory, id string) string {
	if e, ok := d.elements[id]; ok {
		return e.name
	}
	return ""
}

func d96aCompositeName(d *directory, id string) string {
	if c, ok := d.composites[id]; ok {
		return c.name
	}
	return ""
}

// checkInlineComposite compares a composite as printed inside a segment
// with the composite directory entry.
func checkInlineComposite(d *directory, tag string, it xItem) error {
	if it.XMLName.Local != "composite_data_element" {
		return nil
	}
	c, ok := d.composites[it.ID]
	if !ok {
		return fmt.Errorf("D.24A %s: unknown composite %s", tag, it.ID)
	}
	if len(c.comps) != len(it.Children) {
		return fmt.Errorf("D.24A %s: composite %s has %d components in the segment, %d in the directory", tag, it.ID, len(it.Children), len(c.comps))
	}
	for i, k := range it.Children {
		if k.ID != c.comps[i].id || (k.Required == "true") != c.comps[i].mandatory {
			return fmt.Errorf("D.24A %s: composite %s component %d differs (%s)", tag, it.ID, i+1, k.ID)
		}
	}
	return nil
}

// checkReferences verifies that segments and composites only use defined
// elements.
func checkReferences(d *directory) error {
	for _, s := range d.segments {
		for _, e := range s.elems {
			_, isComp := d.composites[e.id]
			_, isElem := d.elements[e.id]
			if !isComp && !isElem {
				return fmt.Errorf("%s: segment %s uses unknown element %s", d.constName, s.tag, e.id)
			}
		}
	}
	for _, c := range d.composites {
		for _, k := range c.comps {
			if _, ok := d.elements[k.id]; !ok {
				return fmt.Errorf("%s: composite %s uses unknown element %s", d.constName, c.id, k.id)
			}
		}
	}
	return nil
}
