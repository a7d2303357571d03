package edi

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// addSeeds feeds the canonical fixtures and the small corpus files, each
// followed by the extra arguments of the fuzz target.
func addSeeds(f *testing.F, extra ...any) {
	add := func(data []byte) { f.Add(append([]any{data}, extra...)...) }
	for _, name := range testFiles(f, filepath.Join(fixtureDir, "*.edi"), filepath.Join(fixtureDir, "errors", "*.edi"),
		filepath.Join(fixtureDir, "structure", "*.edi")) {
		if data, err := os.ReadFile(name); err == nil && len(data) < 64<<10 {
			add(data)
		}
	}
	add([]byte("UNA:+.? 'UNB+UNOC:4+S+R+20250312:1030+X'UNH+1+ORDERS:D:96A:UN'FTX+A+B*C?*D?'E??'UNT+3+1'UNZ+1+X'"))
	add([]byte("UNB\x1dUNOB\x1f4\x1dS\x1dR\x1c\r\n\x00"))
	add([]byte("UNA"))
	add([]byte("000++?")) // a value that is only a dangling release character
	add([]byte("UNA\n\n\n\n\n\nUNB"))
}

// FuzzParse: Parse never panics, the index reproduces the input byte for
// byte, every accessor is safe on every position in range, and the
// structure and issues are consistent.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		watchdog := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("hang on %q", data)) })
		defer watchdog.Stop()
		d, err := Parse(data)
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		if got := reserialise(d); !bytes.Equal(got, data) {
			t.Fatalf("re-serialisation differs:\n in %q\nout %q", data, got)
		}
		for i := 0; i < d.Len(); i++ {
			exerciseSegment(t, d.Segment(i))
			checkDescribe(t, d, i)
		}
		checkStructure(t, d)
		checkMessageLayer(t, d)
		requireSameShapes(t, d)
		for _, is := range d.Issues() {
			if is.Offset < 0 || is.Offset > len(data) || is.Segment < -1 || is.Segment >= d.Len() || is.Message == "" {
				t.Fatalf("bad issue %+v (len %d, %d segments)", is, len(data), d.Len())
			}
		}
		if facts, err := PreflightOrders(data); err == nil && facts.Doc.HasErrors() {
			t.Fatal("pre-flight accepted a document with errors")
		}
	})
}

func exerciseSegment(t *testing.T, s Segment) {
	_ = s.Tag()
	_ = s.Number()
	_ = s.Message()
	assertSafe(t, s.Display())
	n := s.ElementCount()
	if !s.IsUNA() && s.Separators().Element != s.Separators().Segment {
		// The elements' raw bytes joined by the element separator give the
		// segment body back (line breaks removed).
		var parts [][]byte
		for e := 0; e <= n; e++ {
			parts = append(parts, s.Element(e).Raw())
		}
		if got := bytes.Join(parts, []byte{s.Separators().Element}); !bytes.Equal(got, s.body) {
			t.Fatalf("elements %q do not rebuild body %q", got, s.body)
		}
	}
	// Positions beyond 40 add nothing but quadratic time on big inputs.
	for e := -1; e <= min(n+1, 40); e++ {
		if off := s.ElementOffset(e); off < s.Offset() || off > s.Offset()+len(s.Raw()) {
			t.Fatalf("element offset %d outside segment", off)
		}
		el := s.Element(e)
		for k := -1; k <= min(el.RepetitionCount(), 40); k++ {
			rep := el.Repetition(k)
			for c := -1; c <= min(rep.ComponentCount()+1, 40); c++ {
				v := rep.Component(c)
				_ = v.Bytes()
				_ = v.String()
				assertSafe(t, v.Display())
			}
		}
		_ = el.Value().Text()
		_ = s.Text(e, 1)
	}
}

// assertSafe: no C0 control or DEL reaches a terminal.
func assertSafe(t *testing.T, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7F {
			t.Fatalf("control byte %#x in display text %q", c, s)
		}
	}
}

func checkStructure(t *testing.T, d *Document) {
	next := 0
	for k, ic := range d.Interchanges {
		if ic.Index != k || ic.First != next || ic.Last < ic.First {
			t.Fatalf("interchange %d covers %d..%d, expected start %d", k, ic.First, ic.Last, next)
		}
		next = ic.Last + 1
		for _, m := range ic.Messages {
			if m.Interchange != k || m.First < ic.First || m.Last > ic.Last || m.Last < m.First {
				t.Fatalf("message %+v outside interchange %d..%d", m, ic.First, ic.Last)
			}
		}
	}
	if next != d.Len() {
		t.Fatalf("interchanges cover %d of %d segments", next, d.Len())
	}
	for k := 1; k < len(d.Messages); k++ {
		if d.Messages[k].First <= d.Messages[k-1].Last {
			t.Fatalf("messages overlap: %+v %+v", d.Messages[k-1], d.Messages[k])
		}
	}
}

// checkDescribe: Describe never panics, its fields are in the segment and
// its path is the segment's.
func checkDescribe(t *testing.T, d *Document, i int) {
	s := d.Segment(i)
	info := d.Describe(i)
	if info.Index != i || info.Offset != s.Offset() || info.Path != s.Path() || info.Tag != s.Tag() {
		t.Fatalf("describe %d: %+v does not match the segment", i, info)
	}
	for _, f := range info.Fields {
		if f.Element < 1 || f.Element > s.ElementCount() || f.Value == "" || f.Position == "" {
			t.Fatalf("describe %d: bad field %+v", i, f)
		}
		assertSafe(t, f.Display())
	}
}

// checkMessageLayer: every path id names an entry of the message's
// structure with the segment's tag, only segments inside messages with a
// structure have one, and the summarised types have a summary.
func checkMessageLayer(t *testing.T, d *Document) {
	for i := 0; i < d.Len(); i++ {
		s := d.Segment(i)
		id := s.PathID()
		if id == 0 {
			continue
		}
		m := s.Message()
		if m < 0 || d.Messages[m].structure == nil || int(id) > len(d.Messages[m].structure.Entries) {
			t.Fatalf("segment %d: path id %d without a structure to index", i, id)
		}
		if e, ok := s.Entry(); !ok || e.Tag != s.Tag() || e.IsGroup() {
			t.Fatalf("segment %d (%s): path id %d names %+v", i, s.Tag(), id, e)
		}
	}
	for _, m := range d.Messages {
		switch m.Type {
		case "ORDERS", "ORDRSP", "APERAK", "CONTRL":
			if m.Summary() == nil {
				t.Fatalf("message %d (%s) has no summary", m.Index, m.Type)
			}
		default:
			if m.Summary() != nil {
				t.Fatalf("message %d (%s) has a summary", m.Index, m.Type)
			}
		}
		if (m.Structure == "") != (m.structure == nil) || (m.Structure == "" && m.DirectoryNote == "") {
			t.Fatalf("message %d: structure %q, note %q", m.Index, m.Structure, m.DirectoryNote)
		}
	}
}
