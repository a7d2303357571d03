package edi

import (
	"bytes"
	"sync/atomic"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Segment is a read-only view of one segment. Creating one is cheap (no
// allocation unless the segment was hard-wrapped); elements are found and
// unescaped only when asked for.
//
// Element positions are 1-based as in the EDIFACT directories (element 0 is
// the tag), components are 1-based, repetitions 0-based. Positions beyond
// the data yield empty values, never a panic.
type Segment struct {
	doc   *Document
	index int
	rec   segRec
	body  []byte // bytes without terminator; line breaks removed if the segment had any
	dia   *dialect
}

// Segment returns a view of segment i (0-based). It panics if i is out of
// range, like a slice index.
func (d *Document) Segment(i int) Segment {
	d.checkIndex(i)
	// Field by field, leaving out path: structure validation writes path
	// ids while the envelope checks read segments on another goroutine.
	p := &d.segs[i]
	r := segRec{off: p.off, n: p.n, tag: p.tag, flags: p.flags, dia: p.dia}
	dia := &d.dialects[r.dia]
	body := d.data[r.off : r.off+r.n]
	if r.flags&fLineBreak != 0 {
		clean := make([]byte, 0, len(body))
		for _, c := range body {
			if !dia.isLayout(c) {
				clean = append(clean, c)
			}
		}
		body = clean
	}
	return Segment{doc: d, index: i, rec: r, body: body, dia: dia}
}

// Index is the segment's 0-based position in the Document.
func (s Segment) Index() int { return s.index }

// Offset is the byte offset of the segment's first byte in the input.
func (s Segment) Offset() int { return int(s.rec.off) }

// Raw returns the segment's bytes exactly as in the input, without the
// terminator (and including any line breaks of a hard-wrapped file).
func (s Segment) Raw() []byte { return s.doc.data[s.rec.off : s.rec.off+s.rec.n] }

// Terminated reports whether the segment ends with the segment terminator
// (false only for a final segment cut off by the end of the data).
func (s Segment) Terminated() bool { return s.rec.flags&fTerminated != 0 }

// Tag returns the segment tag, e.g. "NAD". For a malformed tag it returns
// the bytes up to the first element separator (at most 16), unsanitised.
func (s Segment) Tag() string {
	if s.rec.flags&(fBadTag|fUNA) == 0 {
		return string(s.rec.tag[:])
	}
	if s.rec.flags&fUNA != 0 {
		return "UNA"
	}
	t := s.body
	if k := bytes.IndexByte(t, s.dia.seps.Element); k >= 0 {
		t = t[:k]
	}
	if len(t) > 16 {
		t = t[:16]
	}
	return string(t)
}

// TagValid reports whether the tag is three upper-case letters or digits
// followed by a separator (or the end of the segment).
func (s Segment) TagValid() bool { return s.rec.flags&fBadTag == 0 }

// IsUNA reports whether this is the UNA service string advice, which has
// no elements.
func (s Segment) IsUNA() bool { return s.rec.flags&fUNA != 0 }

// Separators returns the service characters in force for this segment.
func (s Segment) Separators() Separators { return s.dia.seps }

// Charset returns the encoding declared for this segment's interchange.
func (s Segment) Charset() Charset { return s.dia.charset }

// PathID is the segment-group path id Parse assigned: the segment's
// entry index in its message structure (dict.Message.Entries) plus one, 0
// when the message has no structure or the segment did not fit it. Path,
// FullPath and Entry resolve it.
func (s Segment) PathID() uint16 { return s.doc.segs[s.index].path }

// Message returns the index in Document.Messages of the message holding
// this segment, or -1 (service segments outside messages, stray data).
func (s Segment) Message() int { return s.doc.MessageOf(s.index) }

// Number is the 1-based position of the segment within its message (UNH is
// 1, as counted by UNT), or 0 outside a message.
func (s Segment) Number() int {
	if m := s.Message(); m >= 0 {
		return s.index - s.doc.Messages[m].First + 1
	}
	return 0
}

// Display returns the raw segment decoded with the interchange charset and
// sanitised for a terminal (control bytes made visible).
func (s Segment) Display() string { return termsafe.String(s.dia.charset.Decode(s.Raw())) }

// ElementCount is the number of data elements after the tag (0 for UNA).
func (s Segment) ElementCount() int {
	if s.IsUNA() {
		return 0
	}
	return countParts(s.body, s.dia.seps.Element, s.dia, s.hasRelease()) - 1
}

// Element returns data element e (1-based; 0 is the tag). Out of range
// gives an empty element.
func (s Segment) Element(e int) Element {
	if s.IsUNA() || e < 0 {
		return Element{dia: s.dia}
	}
	return Element{raw: nthPart(s.body, s.dia.seps.Element, e, s.dia, s.hasRelease()), dia: s.dia, rel: s.hasRelease()}
}

// Component returns component c (1-based) of the first repetition of
// element e. For a simple element, component 1 is the whole element.
func (s Segment) Component(e, c int) Value { return s.Element(e).Component(c) }

// Bytes returns the unescaped bytes of element e, component c: a sub-slice
// of the input when no release character is involved.
func (s Segment) Bytes(e, c int) []byte { return s.Component(e, c).Bytes() }

// Value returns element e, component c unescaped, as the raw bytes of the
// interchange's character set (not decoded). Use it for codes and ids.
func (s Segment) Value(e, c int) string { return string(s.Component(e, c).Bytes()) }

// Text returns element e, component c unescaped and decoded to UTF-8 per
// the interchange's character set. Not sanitised: see Display.
func (s Segment) Text(e, c int) string { return s.Component(e, c).Text() }

// DisplayText is Text sanitised for a terminal.
func (s Segment) DisplayText(e, c int) string { return s.Component(e, c).Display() }

func (s Segment) hasRelease() bool { return s.rec.flags&fRelease != 0 }

// ElementOffset returns the byte offset in the input where data element e
// (1-based; 0 is the tag) starts, or the end of the segment when the
// segment has fewer elements.
func (s Segment) ElementOffset(e int) int {
	raw := s.Raw()
	if e <= 0 || s.IsUNA() {
		return s.Offset()
	}
	sep, rel := s.dia.seps.Element, s.hasRelease()
	pos := 0
	for k := 0; k < e; k++ {
		j := indexUnescaped(raw[pos:], sep, s.dia, rel)
		if j < 0 {
			return s.Offset() + len(raw)
		}
		pos += j + 1
	}
	return s.Offset() + pos
}

// indexUnescaped finds the first sep in b not escaped by the release char.
func indexUnescaped(b []byte, sep byte, d *dialect, rel bool) int {
	if !rel {
		k := bytes.IndexByte(b, sep)
		scanned(b, k)
		return k
	}
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case d.seps.Release:
			i++
		case sep:
			scanned(b, i)
			return i
		}
	}
	scanned(b, -1)
	return -1
}

// splitter walks b part by part at the unescaped separator sep (a
// segment's elements, an element's repetitions or components), looking
// at each byte once, where nthPart(b, n) rescans from the start for every
// n.
type splitter struct {
	rest []byte
	sep  byte
	dia  *dialect
	rel  bool
	done bool
}

func newSplitter(b []byte, sep byte, d *dialect, rel bool) splitter {
	return splitter{rest: b, sep: sep, dia: d, rel: rel}
}

// next returns the next part; false after the last one.
func (p *splitter) next() ([]byte, bool) {
	if p.done {
		return nil, false
	}
	k := indexUnescaped(p.rest, p.sep, p.dia, p.rel)
	if k < 0 {
		p.done = true
		return p.rest, true
	}
	part := p.rest[:k]
	p.rest = p.rest[k+1:]
	return part, true
}

// scanCount, when on, adds up the bytes the part scanners (nthPart,
// countParts, indexUnescaped) look at: tests use it to prove that
// describing a segment is linear in its length. Off, it costs a load.
var scanCount struct {
	on    atomic.Bool
	bytes atomic.Int64
}

// scanned records that b was looked at up to and including index k (all
// of it for k < 0).
func scanned(b []byte, k int) {
	if scanCount.on.Load() {
		if k < 0 || k >= len(b) {
			k = len(b) - 1
		}
		scanCount.bytes.Add(int64(k + 1))
	}
}

// Element is one data element (with all its repetitions) of a segment.
type Element struct {
	raw []byte
	dia *dialect
	rel bool // raw may contain release characters
}

// Raw returns the element's bytes as in the data, still escaped.
func (e Element) Raw() []byte { return e.raw }

// IsEmpty reports whether the element is absent or empty.
func (e Element) IsEmpty() bool { return len(e.raw) == 0 }

// RepetitionCount is the number of repetitions (syntax 4 repetition
// separator); 1 otherwise, 0 for an empty element.
func (e Element) RepetitionCount() int {
	if len(e.raw) == 0 {
		return 0
	}
	if e.dia == nil || !e.dia.seps.HasRepetition {
		return 1
	}
	return countParts(e.raw, e.dia.seps.Repetition, e.dia, e.rel)
}

// Repetition returns repetition k (0-based) of the element.
func (e Element) Repetition(k int) Element {
	if e.dia == nil || !e.dia.seps.HasRepetition {
		if k == 0 {
			return e
		}
		return Element{dia: e.dia}
	}
	return Element{raw: nthPart(e.raw, e.dia.seps.Repetition, k, e.dia, e.rel), dia: e.dia, rel: e.rel}
}

// ComponentCount is the number of components of the first repetition (1
// for a simple element, 0 when empty).
func (e Element) ComponentCount() int {
	f := e.Repetition(0)
	if len(f.raw) == 0 {
		return 0
	}
	return countParts(f.raw, e.dia.seps.Component, e.dia, e.rel)
}

// Component returns component c (1-based) of the first repetition.
func (e Element) Component(c int) Value {
	if c < 1 || e.dia == nil {
		return Value{dia: e.dia}
	}
	f := e.Repetition(0)
	return Value{raw: nthPart(f.raw, e.dia.seps.Component, c-1, e.dia, e.rel), dia: e.dia, rel: e.rel}
}

// Value is the first repetition of the element as one value, separators
// included (for simple elements, the element's value).
func (e Element) Value() Value {
	f := e.Repetition(0)
	return Value{raw: f.raw, dia: e.dia, rel: e.rel}
}

// Value is one component or simple element value.
type Value struct {
	raw []byte
	dia *dialect
	rel bool
}

// Raw returns the value's bytes as in the data, still escaped.
func (v Value) Raw() []byte { return v.raw }

// IsEmpty reports whether the value is absent or empty.
func (v Value) IsEmpty() bool { return len(v.raw) == 0 }

// Bytes returns the value with release characters removed: a sub-slice of
// the input when there are none, a new slice otherwise.
func (v Value) Bytes() []byte {
	if !v.rel || v.dia == nil || !v.dia.seps.HasRelease {
		return v.raw
	}
	return unescape(v.raw, v.dia.seps.Release)
}

// String returns Bytes as a string in the interchange's character set.
func (v Value) String() string { return string(v.Bytes()) }

// Text returns the value decoded to UTF-8 (not sanitised).
func (v Value) Text() string {
	if v.dia == nil {
		return string(v.raw)
	}
	return v.dia.charset.Decode(v.Bytes())
}

// Display returns Text sanitised for a terminal.
func (v Value) Display() string { return termsafe.String(v.Text()) }

// unescape drops each release character and keeps the character after it
// literally. A release character at the very end (possible only in a
// segment cut off by the end of the data) is dropped.
func unescape(raw []byte, rel byte) []byte {
	k := bytes.IndexByte(raw, rel)
	if k < 0 {
		return raw
	}
	out := make([]byte, 0, len(raw)-1)
	out = append(out, raw[:k]...)
	for i := k; i < len(raw); i++ {
		if raw[i] == rel {
			i++
			if i == len(raw) {
				break
			}
		}
		out = append(out, raw[i])
	}
	return out
}

// nthPart returns part n (0-based) of b split at unescaped sep.
func nthPart(b []byte, sep byte, n int, d *dialect, rel bool) []byte {
	if n < 0 {
		return nil
	}
	if !rel {
		for ; n > 0; n-- {
			k := bytes.IndexByte(b, sep)
			scanned(b, k)
			if k < 0 {
				return nil
			}
			b = b[k+1:]
		}
		k := bytes.IndexByte(b, sep)
		scanned(b, k)
		if k >= 0 {
			return b[:k]
		}
		return b
	}
	r := d.seps.Release
	start := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case r:
			i++
		case sep:
			if n == 0 {
				scanned(b, i)
				return b[start:i]
			}
			n--
			start = i + 1
		}
	}
	scanned(b, -1)
	if n == 0 && start <= len(b) {
		return b[start:]
	}
	return nil
}

// countParts returns the number of parts of b split at unescaped sep.
func countParts(b []byte, sep byte, d *dialect, rel bool) int {
	scanned(b, -1)
	if !rel {
		return bytes.Count(b, []byte{sep}) + 1
	}
	n := 1
	r := d.seps.Release
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case r:
			i++
		case sep:
			n++
		}
	}
	return n
}

// quickBytes returns element e, component c (first repetition) of segment
// i like Segment(i).Bytes(e, c), without building the Segment view when
// the segment has neither release characters nor line breaks: the
// summaries read one code from every LIN of files with 100k lines.
func (d *Document) quickBytes(i, e, c int) []byte {
	r := &d.segs[i]
	if r.flags&(fRelease|fLineBreak|fUNA) != 0 || e < 1 || c < 1 {
		return d.Segment(i).Bytes(e, c)
	}
	seps := &d.dialects[r.dia].seps
	b := d.data[r.off : r.off+r.n]
	for ; e > 0; e-- {
		k := bytes.IndexByte(b, seps.Element)
		if k < 0 {
			return nil
		}
		b = b[k+1:]
	}
	if k := bytes.IndexByte(b, seps.Element); k >= 0 {
		b = b[:k]
	}
	if seps.HasRepetition {
		if k := bytes.IndexByte(b, seps.Repetition); k >= 0 {
			b = b[:k]
		}
	}
	for ; c > 1; c-- {
		k := bytes.IndexByte(b, seps.Component)
		if k < 0 {
			return nil
		}
		b = b[k+1:]
	}
	if k := bytes.IndexByte(b, seps.Component); k >= 0 {
		b = b[:k]
	}
	return b
}

// TagAt is segment i's tag as bytes and whether it is a valid tag (not
// UNA): what a check over every segment reads first, without building
// the Segment.
func (d *Document) TagAt(i int) (tag [3]byte, ok bool) {
	d.checkIndex(i)
	r := &d.segs[i]
	return r.tag, r.flags&(fBadTag|fUNA) == 0
}

// RawAt is segment i's bytes as in the input (like Segment(i).Raw) and
// its separators, without building the Segment.
func (d *Document) RawAt(i int) ([]byte, Separators) {
	d.checkIndex(i)
	r := &d.segs[i]
	return d.data[r.off : r.off+r.n], d.dialects[r.dia].seps
}

// PlainAt is RawAt and whether the raw bytes are the values as they are:
// no release character and no layout line break in them, so a value is
// the bytes between two separators (no unescaping, no Segment needed).
func (d *Document) PlainAt(i int) (raw []byte, sp Separators, plain bool) {
	d.checkIndex(i)
	r := &d.segs[i]
	return d.data[r.off : r.off+r.n], d.dialects[r.dia].seps, r.flags&(fRelease|fLineBreak) == 0
}
