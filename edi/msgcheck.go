package edi

import (
	"fmt"

	"github.com/nutrab2b/b2bx/edi/dict"
)

// maxStructureIssues caps the structure issues listed per message; the
// rest are counted in one STRUCTURE_PROBLEMS_OMITTED issue, so a file
// declared as the wrong message type does not bury everything else.
const maxStructureIssues = 100

// msgChecker validates every message against its directory structure and
// records each segment's path id (summaries are read on demand:
// Message.Summary). It runs next to the character check on its own
// goroutine, so it collects its issues instead of adding them to the
// Document, and it touches no segment record field but path.
type msgChecker struct {
	d        *Document
	log      issueLog
	matchers []*dict.Matcher // one per structure seen, reused across messages
	notes    map[noteKey]noted
	generic  map[string]string // the notes past maxNotes
	aheadBuf [3]uint32         // ahead's result, reused
}

// noteKey and noted cache namesResolver per message kind: a million
// messages of a type without structure share one note string.
type noteKey struct {
	typ, version, release string
	syntax                int
}

type noted struct {
	r    dict.Resolver
	note string
}

// maxNotes bounds the cache; past it (a file with more different unknown
// message types) messages get a note that does not repeat the type.
const maxNotes = 1024

// checkMessages runs the message layer and returns its issues.
func (d *Document) checkMessages() *issueLog {
	c := &msgChecker{d: d}
	for k := range d.Messages {
		m := &d.Messages[k]
		c.checkStructure(m)
	}
	c.checkDuplicates()
	return &c.log
}

// syntaxOf is the syntax version the message's interchange declares; a
// bare CONTRL (no UNB) is taken to belong to the syntax its version
// names, so it is not flagged for a mismatch nobody can see.
func (d *Document) syntaxOf(m *Message) int {
	ic := &d.Interchanges[m.Interchange]
	if ic.HasUNB && ic.SyntaxVersion > 0 {
		return ic.SyntaxVersion
	}
	if m.Type == "CONTRL" && m.Version == "4" {
		return 4
	}
	return 3
}

// checkStructure looks up the message's structure and matches its
// segments through it.
func (c *msgChecker) checkStructure(m *Message) {
	syntax := c.d.syntaxOf(m)
	st, note, ok := dict.LookupMessage(m.Type, m.Version, m.Release, syntax)
	if !ok {
		m.resolver, m.DirectoryNote = c.namesResolver(m, syntax)
		return
	}
	m.structure, m.Structure, m.DirectoryNote = st, st.Label, note.Text
	m.Directory = directoryID(st.Directory)
	m.resolver = dict.Resolver{Dir: st.Directory, Service: dict.ServiceDirectory(syntax), Fallback: dict.D96A}
	if st.Type == "CONTRL" {
		m.resolver = dict.Resolver{Service: st.Directory}
	}
	switch note.Kind {
	case dict.NoteSyntaxMismatch:
		c.envelopeIssue(m, SeverityError, CodeContrlVersion,
			"CONTRL %s:%s in a syntax version %d interchange: CONTRL 2:2 (or D:3) belongs to syntax 3 and 4:1 to syntax 4; change the UNH message version or the UNB syntax version (checked with the CONTRL %s:%s structure)",
			m.Version, m.Release, syntax, m.Version, m.Release)
	case dict.NoteUnknownVersion:
		c.envelopeIssue(m, SeverityWarning, CodeContrlVersionUnknown,
			"CONTRL version %s:%s is none of 2:2, D:3 (syntax 3) and 4:1 (syntax 4); checked with the CONTRL structure of syntax %d",
			m.Version, m.Release, min(max(syntax, 3), 4))
	}
	c.match(m, c.matcher(st))
}

// envelopeIssue adds an issue at the UNH message identifier (S009).
func (c *msgChecker) envelopeIssue(m *Message, sev Severity, code Code, format string, args ...any) {
	is := Issue{Severity: sev, Code: code, Segment: m.First, Offset: c.d.Segment(m.First).ElementOffset(2)}
	if c.log.room(code) {
		is.Message = fmt.Sprintf(format, args...)
	}
	c.log.add(is)
}

// matcher returns the reusable matcher for a structure.
func (c *msgChecker) matcher(st *dict.Message) *dict.Matcher {
	for _, mt := range c.matchers {
		if mt.Message() == st {
			mt.Reset()
			return mt
		}
	}
	mt := st.NewMatcher()
	c.matchers = append(c.matchers, mt)
	return mt
}

// match feeds the message's segments to the matcher. The common case, a
// segment that repeats or makes a move already seen, costs a few
// nanoseconds (Matcher.Fast); everything else goes through NextKey.
// Path ids are stored as entry index + 1, so 0 keeps meaning "none".
func (c *msgChecker) match(m *Message, mt *dict.Matcher) {
	mt.SetTerse(!c.structureRoom()) // no problem text when none can be listed

	r := reporter{c: c, m: m}
	segs := c.d.segs
	for i := m.First; i <= m.Last; i++ {
		rec := &segs[i]
		if rec.flags&(fBadTag|fUNA) != 0 {
			continue // TAG_INVALID says it already; it matches nothing
		}
		key := dict.PackTag(rec.tag[0], rec.tag[1], rec.tag[2])
		if id, ok := mt.Fast(key); ok {
			rec.path = id + 1
			continue
		}
		st := mt.NextKeyAhead(key, c.ahead(m, i))
		if st.PathID != dict.NoPath {
			rec.path = st.PathID + 1
		}
		for _, p := range st.Problems {
			r.add(mt, i, p, false)
		}
	}
	for _, p := range mt.End() {
		if p.Kind == dict.MissingSegment && p.Tag == "UNT" && p.Group == "" && !m.Closed {
			continue // UNT_MISSING already says so, with the count to use
		}
		r.add(mt, m.Last, p, true)
	}
	r.finish()
}

// ahead returns the keys of the (up to three) segments after segment i in
// message m, for the matcher's resynchronisation; bad tags are skipped as
// the matcher skips them. It only runs on the slow path.
func (c *msgChecker) ahead(m *Message, i int) []uint32 {
	out := c.aheadBuf[:0]
	for j := i + 1; j <= m.Last && len(out) < len(c.aheadBuf); j++ {
		rec := &c.d.segs[j]
		if rec.flags&(fBadTag|fUNA) == 0 {
			out = append(out, dict.PackTag(rec.tag[0], rec.tag[1], rec.tag[2]))
		}
	}
	return out
}

// structureRoom reports whether a structure issue of some kind can still
// be listed (see maxIssuesPerCode).
func (c *msgChecker) structureRoom() bool {
	for _, code := range []Code{CodeSegmentUnexpected, CodeSegmentMissing, CodeGroupMissing, CodeSegmentRepeats, CodeGroupRepeats} {
		if c.log.room(code) {
			return true
		}
	}
	return false
}

// reporter turns matcher problems of one message into issues, up to
// maxStructureIssues.
type reporter struct {
	c        *msgChecker
	m        *Message
	n        int // issues added
	omitted  int
	firstOut int // segment of the first omitted problem
}

func (r *reporter) add(mt *dict.Matcher, i int, p dict.Problem, atEnd bool) {
	if r.n == maxStructureIssues {
		if r.omitted == 0 {
			r.firstOut = i
			mt.SetTerse(true)
		}
		r.omitted++
		return
	}
	r.n++
	d := r.c.d
	code := problemCode(p.Kind)
	is := Issue{Severity: SeverityError, Code: code, Segment: i, Offset: int(d.segs[i].off), SyntaxError: p.SyntaxError}
	if !r.c.log.room(code) { // counted, not listed: no text to build
		r.c.log.omit(is)
		return
	}
	text := fmt.Sprintf("message %q (%s): %s", r.m.Ref, r.m.Type, p.Message)
	switch {
	case atEnd && d.segs[i].tag == [3]byte{'U', 'N', 'T'}:
		text += "; it should come before UNT"
	case atEnd:
		text += fmt.Sprintf("; the message ends at segment %d", i)
	case p.Kind == dict.MissingSegment || p.Kind == dict.MissingGroup:
		text += fmt.Sprintf("; expected before %s (segment %d)", d.Segment(i).Tag(), i)
	}
	is.Message = text
	r.c.log.add(is)
}

// finish records the message's problem count and adds the issue that
// counts the problems not listed.
func (r *reporter) finish() {
	r.m.StructureProblems = r.n + r.omitted
	if r.omitted == 0 {
		return
	}
	d := r.c.d
	is := Issue{Severity: SeverityError, Code: CodeStructureOmitted, Segment: r.firstOut,
		Offset: int(d.segs[r.firstOut].off), Omitted: r.omitted}
	if r.c.log.room(is.Code) {
		is.Message = fmt.Sprintf("message %q (%s): %d more structure problem(s) from segment %d on are not listed (the first %d are); is the message type right?",
			r.m.Ref, r.m.Type, r.omitted, r.firstOut, maxStructureIssues)
	}
	r.c.log.add(is)
}

// problemCode maps a matcher problem kind to its issue code.
func problemCode(k dict.ProblemKind) Code {
	switch k {
	case dict.UnexpectedSegment:
		return CodeSegmentUnexpected
	case dict.MissingSegment:
		return CodeSegmentMissing
	case dict.MissingGroup:
		return CodeGroupMissing
	case dict.TooManySegments:
		return CodeSegmentRepeats
	}
	return CodeGroupRepeats
}

// directoryID is the compact name of a directory used in JSON output.
func directoryID(d dict.Directory) string {
	switch d {
	case dict.D96A:
		return "D96A"
	case dict.D24A:
		return "D24A"
	case dict.Service3:
		return "SYNTAX3"
	case dict.Service4:
		return "SYNTAX4"
	}
	return ""
}

// namesResolver is namesResolverFor, cached per message kind.
func (c *msgChecker) namesResolver(m *Message, syntax int) (dict.Resolver, string) {
	k := noteKey{m.Type, m.Version, m.Release, syntax}
	if n, ok := c.notes[k]; ok {
		return n.r, n.note
	}
	if len(c.notes) < maxNotes {
		r, note := namesResolverFor(m, syntax, m.Type+" "+m.Version+":"+m.Release)
		if c.notes == nil {
			c.notes = map[noteKey]noted{}
		}
		c.notes[k] = noted{r, note}
		return r, note
	}
	r, note := namesResolverFor(m, syntax, "this message type")
	if kept, ok := c.generic[note]; ok { // a few texts in all: one string each
		return r, kept
	}
	if c.generic == nil {
		c.generic = map[string]string{}
	}
	c.generic[note] = note
	return r, note
}

// namesResolverFor picks the directory that names the segments of a
// message without a structure, and the note that says so (id names the
// message kind): its own release when b2bx has it (ORDERS D.24A has a
// structure; INVOIC D.24A only names), else the nearest one for a D
// release (D.96A for 199x, D.24A for 20xx), D.96A for the UN standard
// directory S (S:93A) and, for a message type or version no directory
// has (IATA PADIS, EDIG@S, private types), D.96A for the tags that are UN
// segments. D.96A also names what a later directory dropped (PAT, GIS).
// Service segments always resolve.
func namesResolverFor(m *Message, syntax int, id string) (dict.Resolver, string) {
	r, _ := dict.NewResolver(m.Version, m.Release, syntax)
	r.Fallback = dict.D96A
	note := "no directory structure for " + id + " (b2bx checks every D.96A message, ORDERS, ORDRSP, APERAK in D.24A/D.25A, and CONTRL); envelope checks only"
	switch {
	case r.Dir != 0:
		return r, note
	case m.Version == "D" && len(m.Release) == 3:
		r.Dir = dict.D24A
		if m.Release[0] == '9' {
			r.Dir = dict.D96A
		}
		if r.Dir == dict.D24A {
			return r, note + "; segment names from D.24A (D.96A for segments D.24A no longer has)"
		}
		return r, note + "; segment names from D.96A"
	case m.Version == "S":
		r.Dir = dict.D96A
		return r, note + "; segment names from D.96A (S is the UN standard directory, whose segments D.96A has)"
	}
	r.Dir = dict.D96A
	return r, note + "; service segments named by the service directory, UN segments by D.96A (the message type is in no directory b2bx has)"
}
