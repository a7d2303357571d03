package edi

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/bits"
	"unsafe"
)

var (
	tagUNA = [3]byte{'U', 'N', 'A'}
	tagUNB = [3]byte{'U', 'N', 'B'}
	bom    = []byte{0xEF, 0xBB, 0xBF}
)

// scanner makes the single pass over the input that yields segment
// records; see finder for how it looks at the bytes.
type scanner struct {
	doc   *Document
	data  []byte
	pos   int
	d     dialect
	di    uint16
	known map[dialect]uint16
	inIC  bool // between UNB and UNZ
	una   int  // record index of a UNA not yet followed by UNB, -1
	sized bool // the record slice has been allocated from a terminator count
	find  finder
	// rel lists the issues (indexes in doc.issues) whose Segment counts
	// from this scanner's first record: a scanner forked for the second
	// half of the input (see indexSplit) does not know how many records
	// the first half has, so they are renumbered when the halves join.
	rel []int
	// joined is set when indexSplit used the second half's scan (tests
	// check that the split path is taken, not only correct).
	joined bool
	ctx    context.Context // checked every scanChunk bytes; nil: never
}

// scanChunk is how much scanTo scans between two looks at the context
// (a variable for tests).
var scanChunk = 16 << 20

func newScanner(d *Document) *scanner {
	s := &scanner{doc: d, data: d.data, una: -1, known: map[dialect]uint16{}}
	// Outside any UNB: printable defaults, charset unknown.
	_ = s.setDialect(newDialect(DefaultSeparators(3), CharsetUnknown, 0))
	return s
}

func (s *scanner) setDialect(d dialect) error {
	s.d = d
	s.find = newFinder(&d)
	if i, ok := s.known[d]; ok {
		s.di = i
		return nil
	}
	if len(s.doc.dialects) > 0xFFFF {
		return errTooManyDialects
	}
	s.di = uint16(len(s.doc.dialects))
	s.known[d] = s.di
	s.doc.dialects = append(s.doc.dialects, d)
	return nil
}

// run scans the whole input in one pass.
func (s *scanner) run() error {
	s.skipBOM()
	if err := s.scanTo(len(s.data)); err != nil {
		return err
	}
	s.finish()
	return nil
}

func (s *scanner) skipBOM() {
	if bytes.HasPrefix(s.data, bom) {
		s.pos = len(bom)
		s.doc.issuef(SeverityWarning, CodeBOM, 0, -1, 0,
			"the file starts with a UTF-8 byte order mark (EF BB BF); it is not part of EDIFACT and was skipped")
	}
}

// scanTo scans segments until the scan position reaches stop (or passes
// it: a segment that starts before stop is scanned to its end). Between
// segments the scanner's whole state is its position plus scanState, the
// fact indexSplit relies on, and which lets scanTo go in chunks of
// scanChunk bytes and look at the context between them.
func (s *scanner) scanTo(stop int) error {
	for s.pos < stop {
		if err := s.scanRange(min(s.pos+scanChunk, stop)); err != nil {
			return err
		}
		if s.ctx != nil {
			if err := s.ctx.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// scanRange is scanTo without looking at the context.
func (s *scanner) scanRange(stop int) error {
	data := s.data
	for s.pos < stop {
		c := data[s.pos]
		if s.d.isLayout(c) {
			s.pos++
			continue
		}
		var err error
		switch {
		case isPadding(c) && s.trailingPadding():
			// consumed up to the end of the data
		case (c == ' ' || c == '\t') && s.pos > 0 && s.d.isLayout(data[s.pos-1]) && !s.d.seps.isService(c):
			// Indentation after a line break between segments: layout,
			// like the line break (the next segment is flagged fIndented).
			for s.pos < len(data) && (data[s.pos] == ' ' || data[s.pos] == '\t' || s.d.isLayout(data[s.pos])) {
				s.pos++
			}
		case c == 'U' && s.at(tagUNA):
			err = s.scanUNA()
		case c == 'U' && s.at(tagUNB):
			err = s.scanUNB()
		default:
			if !s.inIC && s.una < 0 && !s.looksLikeSegment() {
				if j := s.findStart(); j > s.pos {
					s.junk(j)
					continue
				}
			}
			if !s.sized {
				if err := s.allocIndex(s.pos); err != nil {
					return err
				}
			}
			s.scanSegment()
			// The line break after a segment, here rather than at the top
			// of the loop: one turn of the loop less per segment.
			for s.pos < len(data) && s.d.isLayout(data[s.pos]) {
				s.pos++
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func isPadding(c byte) bool { return c == ' ' || c == '\t' || c == 0 || c == 0x1A }

// finish reports an input without segments, after the whole scan.
func (s *scanner) finish() {
	if len(s.doc.segs) == 0 {
		s.doc.issuef(SeverityError, CodeEmptyInput, 0, -1, 0,
			"the input holds no EDIFACT segments (%d bytes, only line breaks, padding or a byte order mark); choose the EDIFACT file", len(s.data))
	}
}

// lastIssuef adds an issue about the last record scanned so far (see rel).
func (s *scanner) lastIssuef(sev Severity, code Code, syntax int, off int, format string, args ...any) {
	if s.doc.issuef(sev, code, syntax, len(s.doc.segs)-1, off, format, args...) {
		s.rel = append(s.rel, len(s.doc.issues)-1)
	}
}

// at reports whether a service segment tag starts at pos, followed by a
// character that cannot continue a tag.
func (s *scanner) at(tag [3]byte) bool {
	p := s.pos
	return p+3 < len(s.data) && s.data[p] == tag[0] && s.data[p+1] == tag[1] &&
		s.data[p+2] == tag[2] && !isAlnum(s.data[p+3])
}

// trailingPadding consumes spaces, tabs, NULs, ^Z and line breaks when they
// run to the end of the data: fixed-block transfers and DOS tools append
// them. Anywhere else such bytes start a (broken) segment.
func (s *scanner) trailingPadding() bool {
	i := s.pos
	for i < len(s.data) {
		c := s.data[i]
		if c != ' ' && c != '\t' && c != 0 && c != 0x1A && c != '\r' && c != '\n' {
			return false
		}
		if s.d.seps.isService(c) {
			return false
		}
		i++
	}
	s.lastIssuef(SeverityWarning, CodeTrailingData, 0, s.pos,
		"%d bytes of padding (spaces, tabs, NUL or ^Z) follow the last segment; they are not EDIFACT and were ignored", i-s.pos)
	s.pos = i
	return true
}

// looksLikeSegment: three tag characters followed by the element separator
// or the segment terminator.
func (s *scanner) looksLikeSegment() bool {
	p := s.pos
	if p+3 >= len(s.data) {
		return false
	}
	for _, c := range s.data[p : p+3] {
		if !isTagChar(c) {
			return false
		}
	}
	c := s.data[p+3]
	return c == s.d.seps.Element || c == s.d.seps.Segment
}

// findStart looks for the next plausible start of EDIFACT after junk:
// UNA, UNB, or (for bare messages) UNH followed by the element separator.
func (s *scanner) findStart() int {
	data := s.data
	for from := s.pos; from < len(data); {
		k := bytes.Index(data[from:], []byte("UN"))
		if k < 0 {
			return -1
		}
		j := from + k
		if j+3 < len(data) {
			switch data[j+2] {
			case 'A':
				if j+9 <= len(data) && !isAlnum(data[j+3]) {
					return j
				}
			case 'B':
				if !isAlnum(data[j+3]) {
					return j
				}
			case 'H':
				if data[j+3] == s.d.seps.Element {
					return j
				}
			}
		}
		from = j + 1
	}
	return -1
}

func (s *scanner) junk(j int) {
	s.doc.issuef(SeverityError, CodeJunk, 0, -1, s.pos,
		"%d bytes at offset %d are not EDIFACT (they start with %q); they were skipped up to the %s at offset %d. Remove them before the file is processed",
		j-s.pos, s.pos, preview(s.data[s.pos:j], 24), s.data[j:j+3], j)
	s.pos = j
}

// preview returns up to n bytes of b for quoting in a message.
func preview(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// scanUNA records the service string advice: "UNA" plus exactly six
// characters, the last being the segment terminator.
func (s *scanner) scanUNA() error {
	start := s.pos
	if len(s.data)-start < 9 {
		s.doc.segs = append(s.doc.segs, segRec{off: uint32(start), n: uint32(len(s.data) - start), tag: tagUNA, flags: fUNA, dia: s.di})
		s.lastIssuef(SeverityError, CodeUNAInvalid, SyntaxInvalidServiceChar, start,
			"the UNA service string advice is cut off: it needs six characters after \"UNA\", the data has %d", len(s.data)-start-3)
		s.pos = len(s.data)
		return nil
	}
	seps, problem := unaSeparators(s.data[start+3 : start+9])
	if err := s.setDialect(newDialect(seps, CharsetUnknown, 0)); err != nil {
		return err
	}
	s.doc.segs = append(s.doc.segs, segRec{off: uint32(start), n: 8, tag: tagUNA, flags: fUNA | fTerminated, dia: s.di})
	if problem != "" {
		s.lastIssuef(SeverityError, CodeUNAInvalid, SyntaxInvalidServiceChar, start,
			"the UNA service string advice %q is not usable as given: %s", s.data[start:start+9], problem)
	}
	s.una = len(s.doc.segs) - 1
	s.inIC = false
	s.pos = start + 9
	return nil
}

// scanUNB picks the separators (UNA if it came just before, else by the
// byte after "UNB": IS3 0x1D means the level-B control characters), scans
// the segment, and then settles the dialect from S001: charset from the
// syntax identifier, repetition separator from the version.
func (s *scanner) scanUNB() error {
	control := false
	withUNA := s.una >= 0 && s.una == len(s.doc.segs)-1
	if !withUNA {
		seps := DefaultSeparators(3)
		if s.data[s.pos+3] == 0x1D {
			seps, control = ControlSeparators(3), true
		}
		if err := s.setDialect(newDialect(seps, CharsetUnknown, 0)); err != nil {
			return err
		}
	}
	if !s.sized {
		if err := s.allocIndex(s.pos); err != nil {
			return err
		}
	}
	s.scanSegment()
	i := uint32(len(s.doc.segs) - 1)
	if c := s.doc.shapeCands; len(c) == 0 || c[len(c)-1] != i {
		// Scanned before its dialect got the repetition separator of
		// syntax 4: leave its shape to the full check.
		s.doc.shapeCands = append(c, i)
	}
	seg := s.doc.Segment(int(i))
	version := 0
	if v := seg.Bytes(1, 2); len(v) == 1 && v[0] >= '1' && v[0] <= '9' {
		version = int(v[0] - '0')
	}
	cs, _ := CharsetFor(seg.Value(1, 1))
	if err := s.setDialect(newDialect(s.d.seps.withRepetition(version, control), cs, version)); err != nil {
		return err
	}
	s.doc.segs[i].dia = s.di
	if withUNA {
		s.doc.segs[s.una].dia = s.di
	}
	s.una = -1
	s.inIC = true
	return nil
}

// scanSegment records one segment starting at pos: up to the first
// segment terminator that is not escaped by an odd run of release
// characters, or to the end of the data. It is the hot loop of the
// package, so the finder and the tag check are written inline.
func (s *scanner) scanSegment() {
	data, start := s.data, s.pos
	f := &s.find
	end, i := len(data), start
	var fl uint8
	releaseCheck := false // a release character before something that may not need it
	for {
		p := len(data)
		for ; i+8 <= len(data); i += 8 {
			x := binary.LittleEndian.Uint64(data[i:])
			if m := zeroMask(x^f.term) | zeroMask(x^f.rel) | lessMask(x, lowest); m != 0 {
				p = i + bits.TrailingZeros64(m)>>3
				break
			}
		}
		if p == len(data) {
			p = f.tail(data, i)
			if p == len(data) {
				break
			}
		}
		c := data[p]
		if c == f.term8 {
			if fl&fRelease == 0 || !s.oddReleaseRun(start, p) {
				end, fl = p, fl|fTerminated
				break
			}
		} else if c == f.rel8 && s.d.seps.HasRelease {
			fl |= fRelease
			if p+1 < len(data) && !s.d.seps.isService(data[p+1]) {
				releaseCheck = true
			}
		} else if s.d.isLayout(c) {
			fl |= fLineBreak
		} // else a control character that is data
		i = p + 1
	}
	if fl&fTerminated == 0 {
		end, fl = s.unterminated(start, end, fl)
	}
	if start > 0 && (data[start-1] == ' ' || data[start-1] == '\t') && !s.d.seps.isService(data[start-1]) {
		fl |= fIndented // only scanRange's layout skip leaves a segment right after a blank
	}
	rec := segRec{off: uint32(start), n: uint32(end - start), flags: fl, dia: s.di}
	if fl&fLineBreak == 0 && end-start >= 3 {
		rec.tag = [3]byte{data[start], data[start+1], data[start+2]}
		if !tagChar[rec.tag[0]] || !tagChar[rec.tag[1]] || !tagChar[rec.tag[2]] ||
			(end-start > 3 && data[start+3] != s.d.seps.Element) {
			rec.flags |= fBadTag
		}
	} else {
		s.setTag(&rec)
	}
	s.doc.segs = append(s.doc.segs, rec)
	if rec.n == 0 || rec.flags&(fBadTag|fLineBreak|fIndented) != 0 || fl&fTerminated == 0 || releaseCheck ||
		(rec.n > 3 && s.d.seps.maybeTrailing(data[end-1])) {
		s.doc.shapeCands = append(s.doc.shapeCands, uint32(len(s.doc.segs)-1))
	}
	s.pos = end
	if fl&fTerminated != 0 {
		s.pos++
	}
	if rec.tag[0] == 'U' && rec.tag[1] == 'N' && rec.flags&fBadTag == 0 {
		switch rec.tag[2] {
		case 'Z':
			s.inIC = false
		case 'H':
			s.doc.envelopes.unh++
		case 'G':
			s.doc.envelopes.ung++
		case 'B':
			s.doc.envelopes.unb++
		}
	}
}

// allocIndex sizes the record slice from one count of the terminator:
// exact for the usual single-dialect file, so no growth copies, no slack.
// Large indexes start on a huge page (see adviseHugePages); the skipped
// head is never touched. An index over the memory budget is refused
// before it is allocated.
func (s *scanner) allocIndex(start int) error {
	s.sized = true
	n := len(s.doc.segs) + bytes.Count(s.data[start:], []byte{s.d.seps.Segment}) + 1
	if err := s.doc.reserveIndex(n); err != nil {
		return err
	}
	s.doc.segs = append(newRecords(n), s.doc.segs...)
	return nil
}

// newRecords returns an empty record slice with capacity n; a large one
// starts on a huge page.
func newRecords(n int) []segRec {
	size := unsafe.Sizeof(segRec{})
	if uintptr(n)*size < hugeThreshold {
		return make([]segRec, 0, n)
	}
	raw := make([]segRec, 0, n+hugeSlack/int(size))
	k := hugeAlign(unsafe.Pointer(unsafe.SliceData(raw)), size, uintptr(cap(raw)))
	segs := raw[k : k : k+n]
	adviseHugePages(unsafe.Pointer(unsafe.SliceData(segs)), uintptr(n)*size)
	return segs
}

// unterminated finishes a segment cut off by the end of the data: line
// breaks after it are layout, and a trailing odd release run dangles.
func (s *scanner) unterminated(start, end int, fl uint8) (int, uint8) {
	data := s.data
	for end > start+1 && s.d.isLayout(data[end-1]) {
		end--
	}
	if fl&fLineBreak != 0 && !s.hasLayout(data[start:end]) {
		fl &^= fLineBreak
	}
	if fl&fRelease != 0 && s.oddReleaseRun(start, end) {
		fl |= fDangling
	}
	return end, fl
}

func (s *scanner) hasLayout(b []byte) bool {
	for _, c := range b {
		if s.d.isLayout(c) {
			return true
		}
	}
	return false
}

// finder locates the next byte that matters inside a segment (terminator,
// release character, or a control character below 0x0E, which includes
// CR and LF) eight bytes at a time. Segments are short (20-30 bytes),
// where a SWAR loop beats several bytes.IndexByte calls. Other control
// characters (tab, NUL) are rare in EDIFACT; the scanner passes over them.
type finder struct {
	term, rel   uint64 // broadcast bytes; rel repeats term without release character
	term8, rel8 byte
}

// lowest bounds the control characters the finder stops at: CR and LF.
const lowest = '\r' + 1

func newFinder(d *dialect) finder {
	t, r := d.seps.Segment, d.seps.Segment
	if d.seps.HasRelease {
		r = d.seps.Release
	}
	return finder{term: ones * uint64(t), rel: ones * uint64(r), term8: t, rel8: r}
}

// zeroMask has the high bit set in the first zero byte of y (bits above it
// may be false positives, so only the lowest set bit is meaningful).
func zeroMask(y uint64) uint64 { return (y - ones) &^ y & highs }

// tail checks the last (fewer than 8) bytes one by one.
func (f *finder) tail(data []byte, i int) int {
	for ; i < len(data); i++ {
		if c := data[i]; c == f.term8 || c == f.rel8 || c < lowest {
			return i
		}
	}
	return len(data)
}

// oddReleaseRun reports whether the character at p is escaped: preceded by
// an odd number of release characters (line breaks in between are layout).
func (s *scanner) oddReleaseRun(start, p int) bool {
	n := 0
	for j := p - 1; j >= start; j-- {
		c := s.data[j]
		if c == s.d.seps.Release {
			n++
		} else if !s.d.isLayout(c) {
			break
		}
	}
	return n%2 == 1
}

// setTag stores the first three tag bytes and flags a tag that is not
// three upper-case letters or digits followed by a separator.
func (s *scanner) setTag(r *segRec) {
	raw := s.data[r.off : r.off+r.n]
	if r.flags&fLineBreak == 0 && len(raw) >= 3 {
		r.tag = [3]byte{raw[0], raw[1], raw[2]}
		if !tagChar[raw[0]] || !tagChar[raw[1]] || !tagChar[raw[2]] || (len(raw) > 3 && raw[3] != s.d.seps.Element) {
			r.flags |= fBadTag
		}
		return
	}
	var head [4]byte
	n := 0
	for _, c := range raw {
		if s.d.isLayout(c) {
			continue
		}
		head[n] = c
		if n++; n == 4 {
			break
		}
	}
	copy(r.tag[:], head[:min(n, 3)])
	ok := n >= 3 && isTagChar(head[0]) && isTagChar(head[1]) && isTagChar(head[2]) &&
		(n == 3 || head[3] == s.d.seps.Element)
	if !ok {
		r.flags |= fBadTag
	}
}

// tagChar marks A-Z and 0-9, the characters of a segment tag.
var tagChar = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = isTagChar(byte(c))
	}
	return t
}()
