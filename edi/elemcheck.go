package edi

import (
	"strconv"

	"github.com/nutrab2b/b2bx/edi/dict"
)

// Element checks: every data element and component against its
// directory's representation (a, n, an; fixed or maximum length) and, for
// a closed code list (dict.CodeListClosed), against the codes. Service
// segments (UNB, UNH, UCI...) are checked against the service directory
// of the syntax version and get errors; the segments of a message with a
// structure get warnings from the structure's directory. The codes of a
// composite that names its own code list (1131 given, or 3055 given and
// not 6, UN/ECE) are not checked: they come from that list; the 1131
// and 3055 themselves are, against their own lists. GS1 numbers (GLN,
// GTIN) get their check digit checked (gs1.go).
//
// The walk is one pass over each segment's bytes, with the rules of a
// segment compiled once per document and found by the segment's
// structure entry, so a clean 16 MiB file costs a few milliseconds.

// Representation kinds.
const (
	reprAN uint8 = iota // an: any characters
	reprA               // a: no digits
	reprN               // n: digits, one decimal mark, a leading minus sign
)

// compRule is the rule of one simple element or component.
type compRule struct {
	id       string // "0054"
	ref      string // "S009.0054" or "0062"
	name     string
	repr     string // as the directory writes it: "an..3"
	kind     uint8
	min, max int
	// code is set for a closed code list; role marks the 1131 and 3055
	// components that make a composite's codes another list's.
	code bool
	role uint8
	// last caches the last value found in the code list.
	last string
	// slow: the value needs more than a length compare (not an, a fixed
	// or minimum length, a code list, 1131/3055).
	slow bool
}

const (
	roleNone   uint8 = iota
	roleList         // 1131 code list identification
	roleAgency       // 3055 code list responsible agency
)

// elemRule is a stand-alone element (one component) or a composite.
type elemRule struct {
	comps     []compRule
	composite bool
	qualified bool // has a 1131 or 3055 component: its codes wait for the element's end
}

// segRule is the compiled rule of one segment in one directory.
type segRule struct {
	tag     string
	dir     dict.Directory // where codes are looked up
	service bool
	elems   []elemRule
	gs1     uint8  // which values are GS1 numbers (gs1.go)
	last    []byte // the body of the last segment found clean (a view of the input)
	lastDia uint16 // and its dialect: the same bytes may count otherwise in another
}

// ruleKey identifies a compiled rule.
type ruleKey struct {
	dir dict.Directory
	tag [3]byte
}

// elemChecker checks the elements of a document's segments; it lives in
// the msgChecker (on its goroutine) and collects into its log.
type elemChecker struct {
	d      *Document
	log    issueLog
	rules  map[ruleKey]*segRule
	class  [256]uint8     // character classes for a and n
	tables []*[256]uint8  // per dialect: class and clSpecial, built on first use
	w      walk           // checkSegment's state, reused
	slots  [256]cacheSlot // see cached

	lastDia   uint16
	lastTable *[256]uint8
	// byTag indexes the rules of the current message's directories by
	// tag (A-Z, 0-9 each: 36^3 slots), rebuilt when they change.
	byTag        []*segRule
	byTagDone    []bool
	byDir, bySvc dict.Directory
}

// Character classes for the representation check.
const (
	clDigit   uint8 = 1 << iota // 0-9
	clMark                      // . , (decimal marks) and - (sign)
	clOther                     // anything else
	clMinus                     // '-' (also clMark)
	clDecimal                   // '.' or ',' (also clMark)
)

func newElemChecker(d *Document) *elemChecker {
	ec := &elemChecker{d: d, rules: map[ruleKey]*segRule{}}
	for b := 0; b < 256; b++ {
		switch {
		case b >= '0' && b <= '9':
			ec.class[b] = clDigit
		case b == '.' || b == ',':
			ec.class[b] = clMark | clDecimal
		case b == '-':
			ec.class[b] = clMark | clMinus
		default:
			ec.class[b] = clOther
		}
	}
	return ec
}

// rule returns the compiled rule for tag in directory dir, nil when the
// directory does not have the segment.
func (ec *elemChecker) rule(dir dict.Directory, tag [3]byte) *segRule {
	k := ruleKey{dir, tag}
	if r, ok := ec.rules[k]; ok {
		return r
	}
	seg, ok := dict.LookupSegment(dir, string(tag[:]))
	var r *segRule
	if ok {
		r = compileRule(dir, seg)
	}
	ec.rules[k] = r
	return r
}

// compileRule turns a directory segment into a segRule.
func compileRule(dir dict.Directory, seg *dict.Segment) *segRule {
	r := &segRule{tag: seg.Tag, dir: dir, service: dir == dict.Service3 || dir == dict.Service4, elems: make([]elemRule, len(seg.Elements))}
	r.gs1 = gs1Kind(seg.Tag, r.service)
	for k := range seg.Elements {
		e := &seg.Elements[k]
		if !e.Composite() {
			r.elems[k] = elemRule{comps: []compRule{newCompRule(dir, e.ID, e.ID, e.Name, e.Repr)}}
			continue
		}
		er := elemRule{composite: true, comps: make([]compRule, len(e.Components))}
		for j := range e.Components {
			c := &e.Components[j]
			er.comps[j] = newCompRule(dir, c.ID, e.ID+"."+c.ID, c.Name, c.Repr)
			if c.ID == "1131" || c.ID == "3055" {
				er.qualified = true
			}
		}
		r.elems[k] = er
	}
	return r
}

// ownCheck are the service elements Parse checks in a way of its own
// (control counts, syntax version): no second issue for them.
var ownCheck = map[string]bool{"0002": true, "0036": true, "0060": true, "0074": true}

func newCompRule(dir dict.Directory, id, ref, name, repr string) compRule {
	cr := compRule{id: id, ref: ref, name: name, repr: repr, code: dict.CodeListClosed(dir, id)}
	cr.kind, cr.min, cr.max = parseRepr(repr)
	if ownCheck[id] && (dir == dict.Service3 || dir == dict.Service4) {
		cr.kind, cr.min, cr.max, cr.code = reprAN, 0, 1<<30, false
	}
	switch id {
	case "1131":
		cr.role = roleList
	case "3055":
		cr.role = roleAgency
	}
	if cr.role != roleNone {
		// 1131 and 3055 name another list for their composite's codes,
		// but their own values come from their own lists (open or not).
		cr.code = dict.HasCodeList(dir, id)
	}
	cr.slow = cr.kind != reprAN || cr.min > 1 || cr.code || cr.role != roleNone
	return cr
}

// parseRepr reads "an..35", "n6", "a3": kind, minimum and maximum length
// (minimum 1 for "..": an element that is there has a character).
func parseRepr(s string) (kind uint8, minLen, maxLen int) {
	kind = reprAN
	switch {
	case len(s) >= 2 && s[:2] == "an":
		s = s[2:]
	case len(s) >= 1 && s[0] == 'a':
		kind, s = reprA, s[1:]
	case len(s) >= 1 && s[0] == 'n':
		kind, s = reprN, s[1:]
	default:
		return reprAN, 0, 1 << 30
	}
	fixed := true
	if len(s) >= 2 && s[:2] == ".." {
		fixed, s = false, s[2:]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return reprAN, 0, 1 << 30
	}
	if fixed {
		return kind, n, n
	}
	return kind, 1, n
}

// ruleFor is rule for a tag of a message: service tags from svc.
func (ec *elemChecker) ruleFor(dir, svc dict.Directory, tag [3]byte) *segRule {
	if tag[0] == 'U' || dir == dict.Service3 || dir == dict.Service4 {
		return ec.rule(svc, tag)
	}
	return ec.rule(dir, tag)
}

// checkMessage checks segments from..to-1 of m: service segments always,
// the others when m's type has a structure (from that structure's
// directory).
func (ec *elemChecker) checkMessage(m *Message, from, to int) {
	d := ec.d
	syntax := d.syntaxOf(m)
	if ic := &d.Interchanges[m.Interchange]; ic.HasUNB && (ic.SyntaxVersion < 1 || ic.SyntaxVersion > 4) {
		return // no syntax version to check against (SYNTAX_VERSION_INVALID says so)
	}
	svc := dict.ServiceDirectory(syntax)
	var dir dict.Directory // 0: service segments only
	if st, _, ok := dict.LookupMessage(m.Type, m.Version, m.Release, syntax); ok {
		dir = st.Directory
		if dir == dict.Service3 || dir == dict.Service4 {
			svc = dir // CONTRL: its own syntax version's segments
		}
	}
	if to-from < 4096 { // a small message: the slot cache, no 46,656-entry index to clear
		for i := from; i < to; i++ {
			p := &d.segs[i]
			tag, flags := p.tag, p.flags
			if flags&(fBadTag|fUNA) != 0 || (dir == 0 && tag[0] != 'U') {
				continue
			}
			if r := ec.cached(dir, svc, tag); r != nil {
				ec.checkSegment(i, r)
			}
		}
		return
	}
	if ec.byTag == nil || ec.byDir != dir || ec.bySvc != svc {
		if ec.byTag == nil {
			ec.byTag, ec.byTagDone = make([]*segRule, 36*36*36), make([]bool, 36*36*36)
		} else {
			clear(ec.byTag)
			clear(ec.byTagDone)
		}
		ec.byDir, ec.bySvc = dir, svc
	}
	for i := from; i < to; i++ {
		p := &d.segs[i]
		tag, flags := p.tag, p.flags
		if flags&(fBadTag|fUNA) != 0 || (dir == 0 && tag[0] != 'U') {
			continue
		}
		x := int(tagIndex[tag[0]])*1296 + int(tagIndex[tag[1]])*36 + int(tagIndex[tag[2]])
		if !ec.byTagDone[x] {
			ec.byTag[x], ec.byTagDone[x] = ec.ruleFor(dir, svc, tag), true
		}
		if r := ec.byTag[x]; r != nil {
			ec.checkSegment(i, r)
		}
	}
}

// checkEnvelope checks segment i outside any message when it is a UNB,
// UNZ, UNG or UNE, against its interchange's service directory.
func (ec *elemChecker) checkEnvelope(i int) {
	d := ec.d
	p := &d.segs[i]
	tag, flags := p.tag, p.flags
	if flags&(fBadTag|fUNA) != 0 || tag[0] != 'U' || tag[1] != 'N' {
		return
	}
	switch tag[2] {
	case 'B', 'Z', 'G', 'E':
	default:
		return
	}
	k := d.InterchangeOf(i)
	if k < 0 {
		return
	}
	ic := &d.Interchanges[k]
	if !ic.HasUNB || ic.SyntaxVersion < 1 || ic.SyntaxVersion > 4 {
		return
	}
	svc := dict.ServiceDirectory(ic.SyntaxVersion)
	if r := ec.cached(svc, svc, tag); r != nil {
		ec.checkSegment(i, r)
	}
}

// cacheSlot is one entry of the rule cache.
type cacheSlot struct {
	key  uint64
	rule *segRule
}

// cached is ruleFor through a small direct-mapped cache: a message uses a
// few dozen tags, and a map lookup per segment would cost more than the
// check.
func (ec *elemChecker) cached(dir, svc dict.Directory, tag [3]byte) *segRule {
	key := uint64(tag[0])<<16 | uint64(tag[1])<<8 | uint64(tag[2]) | uint64(dir)<<24 | uint64(svc)<<32 | 1<<40
	h := (uint32(key) * 2654435761) >> 24
	if sl := &ec.slots[h]; sl.key == key {
		return sl.rule
	}
	r := ec.ruleFor(dir, svc, tag)
	ec.slots[h] = cacheSlot{key, r}
	return r
}

// pendingCode is a coded value waiting for the end of its composite, when
// it is known whether 1131/3055 name another list.
type pendingCode struct {
	rule       *compRule
	elem, comp int32 // 0-based element and component, for the position
	start, end int32 // the value in the walk's data
}

// clSpecial marks the bytes that end or interrupt a value in a dialect's
// byte table: separators, the release character, layout line breaks.
const clSpecial uint8 = 1 << 7

// table returns the byte table of dialect k: the class of every byte,
// with clSpecial on the separators, release character and layout.
func (ec *elemChecker) table(k uint16) *[256]uint8 {
	if ec.lastTable != nil && ec.lastDia == k {
		return ec.lastTable
	}
	t := ec.buildTable(k)
	ec.lastDia, ec.lastTable = k, t
	return t
}

func (ec *elemChecker) buildTable(k uint16) *[256]uint8 {
	for int(k) >= len(ec.tables) {
		ec.tables = append(ec.tables, nil)
	}
	if t := ec.tables[k]; t != nil {
		return t
	}
	t := new([256]uint8)
	*t = ec.class
	dia := &ec.d.dialects[k]
	seps := &dia.seps
	t[seps.Element] |= clSpecial
	t[seps.Component] |= clSpecial
	if seps.HasRepetition {
		t[seps.Repetition] |= clSpecial
	}
	if seps.HasRelease {
		t[seps.Release] |= clSpecial
	}
	for _, c := range []byte{'\r', '\n'} {
		if dia.isLayout(c) {
			t[c] |= clSpecial
		}
	}
	ec.tables[k] = t
	return t
}

// walk is the state of one segment's element walk.
type walk struct {
	ec      *elemChecker
	i       int
	r       *segRule
	data    []byte
	base    int
	rel     bool
	utf     bool
	e, k    int
	pend    [4]pendingCode
	np      int
	foreign bool
	gs1     gs1Values // the values a GS1 check reads, when r.gs1 is set
}

// checkSegment checks segment i against rule r: one pass over its bytes,
// a table lookup per byte; a value costs a length compare unless its rule
// needs more (see compRule.slow).
func (ec *elemChecker) checkSegment(i int, r *segRule) {
	d := ec.d
	rec := &d.segs[i]
	n, flags, dk := rec.n, rec.flags, rec.dia
	if n <= 4 || flags&(fBadTag|fUNA) != 0 {
		return
	}
	base := int(rec.off) + 4
	data := d.data[base : rec.off+n]
	if r.last != nil && r.lastDia == dk && string(r.last) == string(data) {
		return // the same bytes as the last segment found clean with this rule, in the same dialect
	}
	dia := &d.dialects[dk]
	seps := &dia.seps
	t := ec.table(dk)
	w := &ec.w // reused: zeroing a fresh one per segment costs more than the walk
	w.ec, w.i, w.r, w.data, w.base, w.rel = ec, i, r, data, base, seps.HasRelease && flags&fRelease != 0
	w.e, w.k, w.np, w.foreign = 0, 0, 0, false
	if r.gs1 != gs1None {
		w.gs1 = gs1Values{}
	}
	w.utf = dia.charset == CharsetUTF8
	before := ec.log.count()
	es, cs := seps.Element, seps.Component
	elems := r.elems
	var cr *compRule
	if len(elems) > 0 {
		cr = &elems[0].comps[0]
	}
	start, extra := 0, 0 // extra: release characters and layout, no characters of their own
	for j := 0; ; j++ {
		j = plainEnd(t, data, j) // the value's plain bytes: the hot loop
		if j < len(data) {
			if b := data[j]; b != es && b != cs && (!seps.HasRepetition || b != seps.Repetition) {
				if t[b]&clSpecial != 0 {
					extra++ // release character or layout inside the value
					if b == seps.Release && seps.HasRelease && j+1 < len(data) {
						j++
					}
				}
				continue
			}
		}
		if r.gs1 != gs1None && w.e < gs1Elems && w.k < gs1Comps && extra == 0 {
			w.gs1[w.e][w.k] = [2]int32{int32(start), int32(j)}
		}
		if cr != nil && j > start && (cr.slow || j-start-extra > cr.max) {
			w.value(cr, start, j, j-start-extra)
		}
		if j >= len(data) {
			break
		}
		if data[j] == cs {
			w.k++
		} else {
			if w.np > 0 || w.foreign {
				w.flush()
			}
			if data[j] == es {
				w.e++
			}
			w.k = 0
		}
		cr = nil
		if w.e < len(elems) && w.k < len(elems[w.e].comps) {
			cr = &elems[w.e].comps[w.k]
		}
		start, extra = j+1, 0
	}
	if w.np > 0 || w.foreign {
		w.flush()
	}
	if r.gs1 != gs1None {
		ec.checkGS1(i, r, data, base, &w.gs1)
	}
	if ec.log.count() == before {
		r.last, r.lastDia = data, dk
	}
}

// plainEnd is the index of the first byte of data from j on whose class
// in t is clSpecial, or len(data). It is inlined; written as a range over
// data[j:] it compiles without the per-byte bounds check that the loop
// written inside checkSegment's own loop kept.
func plainEnd(t *[256]uint8, data []byte, j int) int {
	if j >= len(data) {
		return len(data)
	}
	for k, c := range data[j:] {
		if t[c]&clSpecial != 0 {
			return j + k
		}
	}
	return len(data)
}

// continuationBytes counts UTF-8 continuation bytes (0x80-0xBF).
func continuationBytes(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 == 0x80 {
			n++
		}
	}
	return n
}

// value checks one value (bytes start..end of the walk's data, n
// characters) and queues its code check.
func (w *walk) value(cr *compRule, start, end, n int) {
	var cls uint8
	if cr.kind != reprAN {
		cls = w.classes(start, end)
	}
	if w.utf {
		n -= continuationBytes(w.data[start:end]) // characters, not bytes
	}
	elems := w.r.elems
	if n > cr.max || n < cr.min || cr.kind != reprAN {
		w.ec.checkValue(w.i, w.r, w.e, w.k, elems[w.e].composite, cr, w.data, w.base, start, end, n, cls)
	}
	switch {
	case cr.role != roleNone:
		if cr.code {
			w.ec.checkCode(w.i, w.r, w.e, w.k, elems[w.e].composite, cr, w.data, w.base, start, end, w.rel)
		}
		if cr.role == roleList || !(end-start == 1 && w.data[start] == '6') {
			w.foreign = true
		}
	case cr.code && !elems[w.e].qualified:
		w.ec.checkCode(w.i, w.r, w.e, w.k, elems[w.e].composite, cr, w.data, w.base, start, end, w.rel)
	case cr.code && w.np < len(w.pend):
		w.pend[w.np] = pendingCode{rule: cr, elem: int32(w.e), comp: int32(w.k), start: int32(start), end: int32(end)}
		w.np++
	}
}

// classes is the union of the classes of the value's characters (bytes
// start..end of the walk's data; a release character stands for the
// byte after it).
func (w *walk) classes(start, end int) uint8 {
	t := &w.ec.class
	v := w.data[start:end]
	var cls uint8
	if !w.rel {
		for _, c := range v {
			cls |= t[c]
		}
		return cls
	}
	rc := w.ec.d.dialects[w.ec.d.segs[w.i].dia].seps.Release
	for j := 0; j < len(v); j++ {
		c := v[j]
		if c == rc && j+1 < len(v) {
			j++
			c = v[j]
		}
		cls |= t[c]
	}
	return cls
}

// flush runs the queued code checks of the element just ended, unless a
// 1131/3055 in it named another list.
func (w *walk) flush() {
	if !w.foreign {
		for p := 0; p < w.np; p++ {
			pc := &w.pend[p]
			w.ec.checkCode(w.i, w.r, int(pc.elem), int(pc.comp), w.r.elems[pc.elem].composite, pc.rule, w.data, w.base, int(pc.start), int(pc.end), w.rel)
		}
	}
	w.np, w.foreign = 0, false
}
