package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// serviceSpec selects the files and hand-written data of one syntax version.
type serviceSpec struct {
	folder     string // service_v300 or service_v402
	ident      string
	constName  string
	composites map[string]svcComposite
	elements   map[string]svcElem
}

var (
	service3Spec = serviceSpec{"service_v300", "svc3", "Service3", service3Composites, service3Elements}
	service4Spec = serviceSpec{"service_v402", "svc4", "Service4", service4Composites, service4Elements}
)

// loadService builds a service directory from the pydifact service XML
// and the hand-written composites and element names.
func loadService(base string, spec serviceSpec) (*directory, error) {
	dir := filepath.Join(base, "pydifact-d24a", spec.folder)
	d := newDirectory(spec.ident, spec.constName)
	var xs xSegments
	var xc xComposites
	var xe xElements
	for name, v := range map[string]any{"simple_segments.xml": &xs, "composite_data_elements.xml": &xc, "data_elements.xml": &xe} {
		if err := readXML(filepath.Join(dir, name), v); err != nil {
			return nil, err
		}
	}
	for _, it := range xe.Items {
		repr, err := reprOf(it)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.folder, err)
		}
		d.elements[it.ID] = &element{id: it.ID, name: serviceName(it.Name), desc: it.Desc, repr: repr}
		d.codes[it.ID] = xmlCodes(it.Codes)
	}
	for _, it := range xc.Items {
		c := &composite{id: it.ID, name: serviceName(it.Name), desc: it.Desc}
		h := spec.composites[it.ID]
		if h.name != "" {
			c.name = h.name
		}
		for _, k := range h.comps {
			c.comps = append(c.comps, component{id: k.id, mandatory: k.mandatory})
		}
		d.composites[it.ID] = c
	}
	for _, xseg := range xs.Segments {
		seg, err := serviceSegment(d, xseg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.folder, err)
		}
		d.segments[seg.tag] = seg
	}
	for id, h := range spec.elements {
		e, ok := d.elements[id]
		if !ok {
			e = &element{id: id}
			d.elements[id] = e
		}
		e.name, e.repr = h.name, h.repr
	}
	if spec.constName == "Service4" {
		if err := patchUNG4(d); err != nil {
			return nil, err
		}
	}
	return d, finishService(d, spec)
}

// serviceSegment converts one service segment and records the simple
// elements it defines inline (the XML names only coded elements in
// data_elements.xml).
func serviceSegment(d *directory, xs xSegment) (*segment, error) {
	seg := &segment{tag: xs.ID, name: serviceName(xs.Name), function: xs.Desc}
	for _, it := range xs.Items {
		if it.ID == "" { // UNA: six service characters, no data elements
			continue
		}
		rep, err := atoiDefault(it.Repeat, 1)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", xs.ID, it.ID, err)
		}
		seg.elems = append(seg.elems, segElem{id: it.ID, mandatory: it.Required == "true", repeat: rep})
		if it.XMLName.Local != "data_element" {
			continue
		}
		if _, ok := d.elements[it.ID]; ok {
			continue
		}
		repr, err := reprOf(it)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", xs.ID, err)
		}
		// The desc attribute of inline elements holds note numbers, not text.
		d.elements[it.ID] = &element{id: it.ID, name: serviceName(it.Name), repr: repr}
	}
	return seg, nil
}

// patchUNG4 restores the two UNG elements the syntax 4 XML leaves out:
// 0038 (message group identification) first and S008 (message version)
// before 0058, as in ISO 9735-2 and StAEDI v4r01. It fails when the XML
// changes, so that the patch is revisited.
func patchUNG4(d *directory) error {
	ung := d.segments["UNG"]
	var ids []string
	for _, e := range ung.elems {
		ids = append(ids, e.id)
	}
	if strings.Join(ids, " ") != "S006 S007 S004 0048 0051 0058" {
		return fmt.Errorf("service_v402 UNG is now %v: review patchUNG4", ids)
	}
	e := ung.elems
	ung.elems = []segElem{{id: "0038", repeat: 1}, e[0], e[1], e[2], e[3], e[4], {id: "S008", repeat: 1}, e[5]}
	return nil
}

// finishService fills component representations and checks that every
// reference resolves.
func finishService(d *directory, spec serviceSpec) error {
	for id := range spec.composites {
		if _, ok := d.composites[id]; !ok {
			return fmt.Errorf("%s: hand-written composite %s not in the XML", spec.folder, id)
		}
	}
	for _, c := range d.composites {
		for i, k := range c.comps {
			e, ok := d.elements[k.id]
			if !ok || e.repr == "" {
				return fmt.Errorf("%s: composite %s component %s has no definition", spec.folder, c.id, k.id)
			}
			c.comps[i].repr = e.repr
		}
	}
	for _, s := range d.segments {
		for _, e := range s.elems {
			_, isComp := d.composites[e.id]
			_, isElem := d.elements[e.id]
			if !isComp && !isElem {
				return fmt.Errorf("%s: segment %s uses unknown element %s", spec.folder, s.tag, e.id)
			}
		}
	}
	return nil
}

func xmlCodes(xs []xCode) []code {
	out := make([]code, 0, len(xs))
	for _, x := range xs {
		out = append(out, code{value: x.ID, title: strings.TrimSpace(spaceRun.ReplaceAllString(x.Title, " "))})
	}
	return out
}

// serviceName converts an XML name; ISO 9735 writes coded service elements
// as "Action, coded", which the CamelCase lost.
func serviceName(camel string) string {
	n := camelToWords(camel)
	if strings.HasSuffix(n, " coded") {
		n = strings.TrimSuffix(n, " coded") + ", coded"
	}
	return n
}
