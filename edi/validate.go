package edi

import (
	"bytes"
	"sort"
)

// validate runs the checks that need no structure state: segment shape
// (empty, tag, termination, line breaks, release use, trailing separators)
// and characters against the declared syntax level.
func (d *Document) validate() {
	for k := range d.Interchanges {
		ic := &d.Interchanges[k]
		d.checkSegments(ic)
		d.checkCharacters(ic)
	}
}

// tally counts occurrences of one kind of problem within an interchange
// and remembers the first, so a file with the same fault in every segment
// gets one issue instead of a million.
type tally struct {
	n, seg, off int
	c           byte
}

func (t *tally) add(seg, off int, c byte) {
	if t.n == 0 {
		t.seg, t.off, t.c = seg, off, c
	}
	t.n++
}

// checkSegments runs the segment-shape checks on the interchange's
// candidates the scanner listed (Document.shapeCands): every segment that
// is empty, has a bad tag, is unterminated or hard-wrapped, has a release
// character before a byte that is no service character, ends with a byte
// that may be a separator, or is a UNB (whose separators the scanner
// knew only in part). The others cannot have a shape problem, so a clean
// file costs nothing here.
func (d *Document) checkSegments(ic *Interchange) {
	var wraps, releases, trailing, indented tally
	seps := ic.Separators // pre-filter: only a segment ending in a separator gets the full check
	from := sort.Search(len(d.shapeCands), func(k int) bool { return int(d.shapeCands[k]) >= ic.First })
	for _, c := range d.shapeCands[from:] {
		i := int(c)
		if i > ic.Last {
			break
		}
		r := &d.segs[i]
		if r.flags&fUNA != 0 {
			continue
		}
		switch {
		case r.n == 0:
			d.segIssuef(SeverityError, CodeSegmentEmpty, 0, i,
				"empty segment: two segment terminators in a row; remove the extra terminator")
		case r.flags&fBadTag != 0:
			s := d.Segment(i)
			d.segIssuef(SeverityError, CodeTagInvalid, 0, i,
				"segment tag %q is not three upper-case letters or digits followed by the element separator %s", s.Tag(), charText(s.dia.seps.Element))
		}
		if r.flags&fTerminated == 0 {
			d.checkUnterminated(i)
		}
		if r.flags&fIndented != 0 {
			indented.add(i, int(r.off), 0)
		}
		if r.flags&(fLineBreak|fRelease) != 0 {
			if r.flags&fLineBreak != 0 {
				wraps.add(i, int(r.off), 0)
			}
			if r.flags&fRelease != 0 {
				d.checkReleases(i, &releases)
			}
		}
		if r.n > 3 && r.flags&fBadTag == 0 {
			if c := d.data[r.off+r.n-1]; c == seps.Element || c == seps.Component || c == seps.Repetition || r.flags&fLineBreak != 0 {
				d.checkTrailingSeparator(i, &trailing)
			}
		}
	}
	if wraps.n > 0 {
		d.issuef(SeverityWarning, CodeLineBreakInSegment, 0, wraps.seg, wraps.off,
			"%d segment(s) contain line breaks inside them (the file was hard-wrapped); the line breaks were ignored as layout, never read as data", wraps.n)
	}
	if indented.n > 0 {
		d.issuef(SeverityWarning, CodeIndented, 0, indented.seg, indented.off,
			"%d segment(s) are indented: spaces or tabs follow the line break before them (first before segment %d); they were ignored as layout, like the line breaks, but ISO 9735 has no such layout and a strict receiver may reject the file", indented.n, indented.seg)
	}
	if releases.n > 0 {
		d.issuef(SeverityWarning, CodeReleaseInvalid, 0, releases.seg, releases.off,
			"release character %s before %s, which is no separator and needs no escaping (%d time(s) in this interchange); the release character was dropped",
			charText(ic.Separators.Release), charText(releases.c), releases.n)
	}
	if trailing.n > 0 {
		code := 0
		if ic.SyntaxVersion >= 4 {
			code = SyntaxTrailingSeparator
		}
		d.issuef(SeverityWarning, CodeTrailingSeparator, code, trailing.seg, trailing.off,
			"%d segment(s) end with a separator before the terminator (first %q); ISO 9735 says empty trailing elements and components are left out together with their separators",
			trailing.n, preview(d.Segment(trailing.seg).Raw(), 40))
	}
}

func (d *Document) checkUnterminated(i int) {
	r := &d.segs[i]
	s := d.Segment(i)
	if r.flags&fDangling != 0 {
		d.issuef(SeverityError, CodeDanglingRelease, 0, i, int(r.off+r.n)-1,
			"the data ends with the release character %s, which has nothing left to escape; the last segment is also unterminated", charText(s.dia.seps.Release))
		return
	}
	d.issuef(SeverityError, CodeUnterminated, 0, i, int(r.off+r.n),
		"the last segment %s is not terminated: the data ends without the segment terminator %s (the file may be truncated)", s.Tag(), charText(s.dia.seps.Segment))
}

// checkReleases finds release characters before characters that are not
// service characters ("?A"); ISO 9735 allows the release character only
// before separators and itself.
func (d *Document) checkReleases(i int, t *tally) {
	r := &d.segs[i]
	dia := &d.dialects[r.dia]
	raw := d.data[r.off : r.off+r.n]
	for j := 0; j < len(raw); j++ {
		if raw[j] != dia.seps.Release {
			n := bytes.IndexByte(raw[j:], dia.seps.Release)
			if n < 0 {
				return
			}
			j += n
		}
		k := j + 1
		for k < len(raw) && dia.isLayout(raw[k]) {
			k++
		}
		if k < len(raw) && !dia.seps.isService(raw[k]) {
			t.add(i, int(r.off)+j, raw[k])
		}
		j = k
	}
}

// checkTrailingSeparator flags a segment whose last byte (ignoring line
// breaks) is an unescaped element, component or repetition separator.
func (d *Document) checkTrailingSeparator(i int, t *tally) {
	r := &d.segs[i]
	dia := &d.dialects[r.dia]
	raw := d.data[r.off : r.off+r.n]
	j := len(raw) - 1
	for j >= 0 && dia.isLayout(raw[j]) {
		j--
	}
	if j < 3 {
		return
	}
	c := raw[j]
	if c != dia.seps.Element && c != dia.seps.Component && !(dia.seps.HasRepetition && c == dia.seps.Repetition) {
		return
	}
	if r.flags&fRelease != 0 {
		n := 0
		for k := j - 1; k >= 0 && raw[k] == dia.seps.Release; k-- {
			n++
		}
		if n%2 == 1 {
			return
		}
	}
	t.add(i, int(r.off)+j, c)
}

// segmentAt returns the index of the segment containing byte offset off
// (or the last segment starting before it).
func (d *Document) segmentAt(off int) int {
	return sort.Search(len(d.segs), func(k int) bool { return int(d.segs[k].off) > off }) - 1
}
