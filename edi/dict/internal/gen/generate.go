package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Source files read by the generator, relative to the -src directory.
var (
	d96aSources = []string{"unece-d96a/d96a.zip"}
	d24aSources = []string{
		"pydifact-d24a/d24a/segments.xml",
		"pydifact-d24a/d24a/composite_data_elements.xml",
		"pydifact-d24a/d24a/data_elements.xml",
		"pydifact-d24a/d24a/messages/orders.xml",
		"pydifact-d24a/d24a/messages/ordrsp.xml",
		"pydifact-d24a/d24a/messages/aperak.xml",
	}
	serviceSources = []string{
		"pydifact-d24a/service_v300/simple_segments.xml",
		"pydifact-d24a/service_v300/composite_data_elements.xml",
		"pydifact-d24a/service_v300/data_elements.xml",
		"pydifact-d24a/service_v402/simple_segments.xml",
		"pydifact-d24a/service_v402/composite_data_elements.xml",
		"pydifact-d24a/service_v402/data_elements.xml",
		"unece-d96a/d96a.zip",
	}
)

// generate reads all sources below src and returns the generated files by
// name.
func generate(src string) (map[string][]byte, error) {
	zipData, err := os.ReadFile(filepath.Join(src, "unece-d96a", "d96a.zip"))
	if err != nil {
		return nil, fmt.Errorf("read D.96A zip: %w", err)
	}
	d96a, msgs96, err := loadD96A(zipData)
	if err != nil {
		return nil, fmt.Errorf("D.96A: %w", err)
	}
	d24a, msgs24, err := loadD24A(src, d96a)
	if err != nil {
		return nil, err
	}
	svc3, err := loadService(src, service3Spec)
	if err != nil {
		return nil, err
	}
	svc4, err := loadService(src, service4Spec)
	if err != nil {
		return nil, err
	}
	// Syntax 3 CONTRL 2:2 predates the v300 lists: D.96A's UNSL (ISO 9735
	// 1988) names the older 0083 and 0085 codes they leave out.
	supplementCodes(svc3, d96a)
	markOpenD96A(d96a)
	markAllOpen(d24a)
	markOpenService(svc3)
	markOpenService(svc4)
	contrl3 := &message{typ: "CONTRL", version: "2", release: "2", dir: "Service3", label: "Syntax3", root: contrlStructure(),
		source: "ISO 9735 CONTRL (syntax 3: 2:2, D:3), hand-written in internal/gen/service_data.go"}
	contrl4 := &message{typ: "CONTRL", version: "4", release: "1", dir: "Service4", label: "Syntax4", root: contrlStructure(),
		source: "ISO 9735-5 CONTRL 4:1, hand-written in internal/gen/service_data.go"}
	packed := append([]*message(nil), msgs96[len(literalTypes):]...)
	msgs96 = msgs96[:len(literalTypes):len(literalTypes)]
	msgs := append(append(msgs96, msgs24...), contrl3, contrl4)

	notes := func(paths []string) ([]sourceNote, error) { return hashSources(src, paths) }
	files := map[string][]byte{}
	type job struct {
		name, what string
		sources    []string
		body       func(w *goWriter) error
	}
	jobs := []job{
		{"d96a_gen.go", "UN/EDIFACT D.96A segments, composites, elements and code lists.", d96aSources,
			func(w *goWriter) error {
				return emitDirectory(w, d96a, usedCodeLists(d96a, append(append([]*message(nil), msgs96...), packed...), true))
			}},
		{"d24a_gen.go", "UN/EDIFACT D.24A segments, composites, elements and code lists (also used for D.25A).", d24aSources,
			func(w *goWriter) error { return emitDirectory(w, d24a, usedCodeLists(d24a, msgs24, false)) }},
		{"service_gen.go", "Service segments, composites, elements and code lists of syntax versions 3 and 4.", serviceSources,
			func(w *goWriter) error {
				if err := emitDirectory(w, svc3, sortedKeys(svc3.codes)); err != nil {
					return err
				}
				return emitDirectory(w, svc4, sortedKeys(svc4.codes))
			}},
		{"messages_gen.go", "Message structures: ORDERS, ORDRSP, APERAK (D.96A, D.24A) and CONTRL (syntax 3 and 4).",
			append(append([]string{}, d96aSources...), d24aSources[3:]...),
			func(w *goWriter) error { return emitMessages(w, msgs) }},
		{"packed_gen.go", "Message structures of every other D.96A message (UNTDID D.96A TRMD), packed.",
			d96aSources,
			func(w *goWriter) error { return emitPacked(w, packed) }},
	}
	for _, j := range jobs {
		srcNotes, err := notes(j.sources)
		if err != nil {
			return nil, err
		}
		var w goWriter
		header(&w, j.what, srcNotes)
		if err := j.body(&w); err != nil {
			return nil, err
		}
		if files[j.name], err = gofmt(j.name, w.Bytes()); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// usedCodeLists selects the code lists of every coded simple element in the
// segments that the messages use; withService adds all service lists
// (element ids 0xxx), which D.96A carries in UNSL.
func usedCodeLists(d *directory, msgs []*message, withService bool) []string {
	tags := map[string]bool{}
	var walk func([]*node)
	walk = func(ns []*node) {
		for _, n := range ns {
			if n.tag != "" {
				tags[n.tag] = true
			}
			walk(n.children)
		}
	}
	for _, m := range msgs {
		walk(m.root)
	}
	ids := map[string]bool{}
	for tag := range tags {
		s, ok := d.segments[tag]
		if !ok {
			continue // service segments (UNH, UNT, UNS) live in the service directories
		}
		for _, e := range s.elems {
			if c, ok := d.composites[e.id]; ok {
				for _, k := range c.comps {
					ids[k.id] = true
				}
				continue
			}
			ids[e.id] = true
		}
	}
	var out []string
	for id, list := range d.codes {
		if len(list) > 0 && (ids[id] || (withService && strings.HasPrefix(id, "0"))) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// supplementCodes adds to dst the codes of src's lists for the same
// elements that dst does not have.
func supplementCodes(dst, src *directory) {
	for id, list := range dst.codes {
		have := map[string]bool{}
		for _, c := range list {
			have[c.value] = true
		}
		for _, c := range src.codes[id] {
			if !have[c.value] {
				dst.codes[id] = append(dst.codes[id], c)
			}
		}
	}
}

func hashSources(base string, paths []string) ([]sourceNote, error) {
	var out []sourceNote
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(base, filepath.FromSlash(p)))
		if err != nil {
			return nil, fmt.Errorf("hash source: %w", err)
		}
		sum := sha256.Sum256(b)
		out = append(out, sourceNote{path: p, sha256: hex.EncodeToString(sum[:])})
	}
	return out, nil
}
