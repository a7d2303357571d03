// Package mig reads a partner's message implementation guide rules (a
// small TOML file, one per partner) and checks ORDERS against them: the
// segments (with their qualifier) a message must or must not have and how
// often, the codes an element may take, the format of a value. A rule
// that is broken is a finding that names the rule's file and line, so the
// operator can see which of the partner's rules it is and fix either the
// order or the rule.
//
// The format, with every kind of rule:
//
//	partner = "ACME"                # a label, optional
//
//	[[rule]]                        # NAD+DP at least once per ORDERS
//	segment = "NAD+DP"              # tag, optionally + the qualifier (element 1)
//	min = 1
//
//	[[rule]]                        # at most one DTM+2
//	segment = "DTM+2"
//	max = 1
//
//	[[rule]]                        # no NAD+IV (max = 0 forbids)
//	segment = "NAD+IV"
//	max = 0
//
//	[[rule]]                        # QTY 6063 only 21
//	segment = "QTY"
//	element = "6063"                # a data element id of the segment
//	codes = ["21"]
//
//	[[rule]]                        # BGM 1004: PO- and digits
//	segment = "BGM"
//	element = "1004"
//	format = "^PO-[0-9]+$"          # a Go regular expression (RE2)
//	why = "ACME's order numbers"    # optional, shown with the finding
//
// Elements are found by their id in the D.96A and D.24A (D.25A)
// directories, so one rule serves both.
package mig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/dict"
)

// maxFileSize bounds what Load reads: a MIG is a few KiB.
const maxFileSize = 1 << 20

// Rules are one partner's rules, as loaded from Path.
type Rules struct {
	Path    string // as given to Load
	Partner string
	Rules   []Rule

	// byTag groups the rules by the tag they name, so a segment costs one
	// short scan of the distinct tags and only its own rules.
	byTag []tagRules
}

// tagRules are the indexes (in Rules) of the rules of one tag.
type tagRules struct {
	tag   [3]byte
	rules []int
}

// Rule is one rule of the file.
type Rule struct {
	Line      int    // the line of its [[rule]] header
	Segment   string // "NAD+DP" as written
	Tag       string // "NAD"
	Qualifier string // "DP"; "" for any
	Min, Max  int    // Max < 0: no maximum
	Element   string // "6063"; "" for a count rule
	Codes     []string
	Format    *regexp.Regexp
	Why       string

	// pos is the element's position per directory: element (1-based) and
	// component (1-based; 0 for a simple element).
	pos map[dict.Directory][2]int
}

// Where is "acme.toml:12", the rule's place for a finding.
func (r *Rule) Where(path string) string { return fmt.Sprintf("%s:%d", path, r.Line) }

// rawRule is the TOML shape of a rule.
type rawRule struct {
	Segment string   `toml:"segment"`
	Min     *int     `toml:"min"`
	Max     *int     `toml:"max"`
	Element string   `toml:"element"`
	Codes   []string `toml:"codes"`
	Format  string   `toml:"format"`
	Why     string   `toml:"why"`
}

type rawFile struct {
	Partner string    `toml:"partner"`
	Rule    []rawRule `toml:"rule"`
}

// Error is a problem of the rules file at a line.
type Error struct {
	Path string
	Line int // 0: the file as a whole
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Load reads and validates the rules file at path. Every problem is an
// *Error with the file and line.
func Load(path string) (*Rules, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("partner rules: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("partner rules: %w", err)
	}
	if len(data) > maxFileSize {
		return nil, &Error{Path: path, Msg: "is larger than 1 MiB: a rules file has a few rules"}
	}
	return Parse(path, data)
}

// Parse validates rules from data; path names them in errors.
func Parse(path string, data []byte) (*Rules, error) {
	var raw rawFile
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{Path: path, Line: pe.Position.Line, Msg: "not valid TOML: " + pe.Message}
		}
		return nil, &Error{Path: path, Line: typeErrorLine(err), Msg: "not a rules file: " + strings.TrimPrefix(err.Error(), "toml: ")}
	}
	lines := ruleLines(data)
	if len(raw.Rule) > 0 && len(lines) != len(raw.Rule) {
		return nil, &Error{Path: path, Msg: "write each rule as its own [[rule]] table (one per line that starts with [[rule]])"}
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		line := 0
		if len(k) >= 1 && k[0] == "rule" {
			line = keyLine(data, lines, k)
		}
		return nil, &Error{Path: path, Line: line, Msg: fmt.Sprintf("unknown key %q: a rule has segment, min, max, element, codes, format and why", k.String())}
	}
	rs := &Rules{Path: path, Partner: raw.Partner}
	for n, rr := range raw.Rule {
		r, msg := compile(rr)
		if msg != "" {
			return nil, &Error{Path: path, Line: lines[n], Msg: msg}
		}
		r.Line = lines[n]
		rs.Rules = append(rs.Rules, r)
		t := [3]byte{r.Tag[0], r.Tag[1], r.Tag[2]}
		if g := rs.group(t); g != nil {
			g.rules = append(g.rules, n)
		} else {
			rs.byTag = append(rs.byTag, tagRules{tag: t, rules: []int{n}})
		}
	}
	return rs, nil
}

// ruleLines are the lines (1-based) of the [[rule]] headers.
func ruleLines(data []byte) []int {
	var out []int
	for n, l := range bytes.Split(data, []byte("\n")) {
		t := strings.TrimSpace(string(l))
		if strings.HasPrefix(t, "[[") && strings.TrimSpace(strings.Trim(strings.SplitN(t, "#", 2)[0], "[] \t")) == "rule" {
			out = append(out, n+1)
		}
	}
	return out
}

// keyLine finds the line of an undecoded key inside its rule (the
// header's line when the key is not found).
func keyLine(data []byte, lines []int, k toml.Key) int {
	if len(lines) == 0 {
		return 0
	}
	all := bytes.Split(data, []byte("\n"))
	name := k[len(k)-1]
	for _, start := range lines {
		for i := start; i < len(all); i++ {
			t := strings.TrimSpace(string(all[i]))
			if strings.HasPrefix(t, "[") {
				break
			}
			if strings.HasPrefix(t, name) && strings.HasPrefix(strings.TrimSpace(t[len(name):]), "=") {
				return i + 1
			}
		}
	}
	return lines[0]
}

// typeErrorLine is the line a decode (type) error names ("toml: line 3
// (last key ...): incompatible types ..."); 0 when it names none.
func typeErrorLine(err error) int {
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

var lineRE = regexp.MustCompile(`line (\d+)`)

// compile checks one rule; the message says what is wrong.
func compile(rr rawRule) (Rule, string) {
	r := Rule{Segment: rr.Segment, Min: 0, Max: -1, Element: rr.Element, Codes: rr.Codes, Why: rr.Why}
	tag, qual, _ := strings.Cut(rr.Segment, "+")
	if len(tag) != 3 || strings.ToUpper(tag) != tag || strings.ContainsAny(tag, " +:'?") {
		return r, fmt.Sprintf("segment %q: write a segment tag of three capitals, optionally with its qualifier: \"NAD+DP\"", rr.Segment)
	}
	if strings.ContainsAny(qual, "+:'? ") {
		return r, fmt.Sprintf("segment %q: the qualifier is one code (element 1), e.g. \"NAD+DP\"", rr.Segment)
	}
	r.Tag, r.Qualifier = tag, qual
	if rr.Min != nil {
		r.Min = *rr.Min
	}
	if rr.Max != nil {
		r.Max = *rr.Max
	}
	switch {
	case r.Min < 0 || (rr.Max != nil && r.Max < 0):
		return r, "min and max count segments per message: 0 or more"
	case r.Max >= 0 && r.Min > r.Max:
		return r, fmt.Sprintf("min %d is more than max %d", r.Min, r.Max)
	}
	counts := rr.Min != nil || rr.Max != nil
	values := rr.Element != "" || len(rr.Codes) > 0 || rr.Format != ""
	switch {
	case !counts && !values:
		return r, fmt.Sprintf("rule for %s says nothing: give min/max (how often), or element with codes or format", rr.Segment)
	case counts && values:
		return r, "a rule either counts segments (min, max) or checks an element (element with codes or format): split it in two rules"
	case values && rr.Element == "":
		return r, "codes and format need the element they apply to: element = \"6063\""
	case values && len(rr.Codes) == 0 && rr.Format == "":
		return r, fmt.Sprintf("element %s: give codes = [...] or format = \"...\"", rr.Element)
	}
	if rr.Format != "" {
		re, err := regexp.Compile(rr.Format)
		if err != nil {
			return r, fmt.Sprintf("format %q is not a regular expression: %v", rr.Format, err)
		}
		r.Format = re
	}
	if values {
		r.pos = map[dict.Directory][2]int{}
		for _, d := range []dict.Directory{dict.D96A, dict.D24A} {
			if p, ok := elementPosition(d, tag, rr.Element); ok {
				r.pos[d] = p
			}
		}
		if len(r.pos) == 0 {
			return r, fmt.Sprintf("segment %s has no data element %q in D.96A or D.25A: give the 4-digit id of one of its elements", tag, rr.Element)
		}
	}
	return r, ""
}

// elementPosition finds the element id in segment tag of directory d.
func elementPosition(d dict.Directory, tag, id string) ([2]int, bool) {
	seg, ok := dict.LookupSegment(d, tag)
	if !ok {
		return [2]int{}, false
	}
	for e := range seg.Elements {
		el := &seg.Elements[e]
		if !el.Composite() {
			if el.ID == id {
				return [2]int{e + 1, 0}, true
			}
			continue
		}
		for c := range el.Components {
			if el.Components[c].ID == id {
				return [2]int{e + 1, c + 1}, true
			}
		}
	}
	return [2]int{}, false
}

// Finding is one broken rule in one message. Text is the explanation
// (it may quote the data: sanitise it for display).
type Finding struct {
	Rule    *Rule
	Where   string // "acme.toml:12"
	Message int    // index in Document.Messages
	Segment int    // the segment concerned; the UNH for a count
	Text    string
}

// group is the rules of tag; nil when no rule names it.
func (rs *Rules) group(tag [3]byte) *tagRules {
	for g := range rs.byTag {
		if rs.byTag[g].tag == tag {
			return &rs.byTag[g]
		}
	}
	return nil
}

// position is where a value rule's element is in one directory.
type position struct {
	elem, comp int // 1-based; comp 1 for a simple element
	ok         bool
}

// Check checks every ORDERS message of doc against the rules.
func (rs *Rules) Check(doc *edi.Document) []Finding {
	if rs == nil || len(rs.Rules) == 0 {
		return nil
	}
	var out []Finding
	counts := make([]int, len(rs.Rules))
	// The value rules' element positions for the message's directory,
	// looked up once per directory, not per segment.
	pos := make([]position, len(rs.Rules))
	var posDir dict.Directory
	posSet := false
	for k := range doc.Messages {
		m := &doc.Messages[k]
		if m.Type != "ORDERS" {
			continue
		}
		d, _, _ := dict.DirectoryFor(m.Version, m.Release)
		if !posSet || d != posDir {
			rs.positions(d, pos)
			posDir, posSet = d, true
		}
		clear(counts)
		for i := m.First + 1; i < m.Last; i++ {
			// The tag first, as bytes: most segments of a 16 MiB file
			// have no rule, and cost no Segment.
			tag, ok := doc.TagAt(i)
			if !ok {
				continue
			}
			g := rs.group(tag)
			if g == nil {
				continue
			}
			s := segRef{doc: doc, i: i}
			s.raw, s.sp, s.plain = doc.PlainAt(i)
			var qual []byte
			haveQual := false
			for _, n := range g.rules {
				r := &rs.Rules[n]
				if r.Qualifier != "" {
					if !haveQual {
						qual, haveQual = value(s, 1, 1), true
					}
					if string(qual) != r.Qualifier {
						continue
					}
				}
				counts[n]++
				if r.Element != "" && pos[n].ok {
					if f, ok := rs.checkValue(r, pos[n], s, m); ok {
						f.Message = k
						out = append(out, f)
					}
				}
			}
		}
		for n := range rs.Rules {
			r := &rs.Rules[n]
			if r.Element != "" {
				continue
			}
			c := counts[n]
			var text string
			switch {
			case r.Max == 0 && c > 0:
				text = fmt.Sprintf("ORDERS %q has %s, which the partner forbids", m.Ref, plural(c, r.Segment))
			case c < r.Min:
				text = fmt.Sprintf("ORDERS %q has %s; the partner requires at least %d", m.Ref, plural(c, r.Segment), r.Min)
			case r.Max >= 0 && c > r.Max:
				text = fmt.Sprintf("ORDERS %q has %s; the partner allows at most %d", m.Ref, plural(c, r.Segment), r.Max)
			default:
				continue
			}
			out = append(out, rs.finding(r, k, m.First, text))
		}
	}
	return out
}

// positions fills pos with each value rule's element position in d.
func (rs *Rules) positions(d dict.Directory, pos []position) {
	for n := range rs.Rules {
		p, ok := rs.Rules[n].pos[d]
		c := p[1]
		if c == 0 {
			c = 1
		}
		pos[n] = position{elem: p[0], comp: c, ok: ok}
	}
}

// Position is the element (1-based) and component (1-based, 0 for a
// simple element) a value rule's finding is about, in the directory of
// its message; ok false for a count rule's finding.
func (f Finding) Position(doc *edi.Document) (element, component int, ok bool) {
	if f.Rule == nil || f.Rule.Element == "" || f.Message < 0 || f.Message >= len(doc.Messages) {
		return 0, 0, false
	}
	m := &doc.Messages[f.Message]
	d, _, _ := dict.DirectoryFor(m.Version, m.Release)
	p, ok := f.Rule.pos[d]
	return p[0], p[1], ok
}

func (rs *Rules) finding(r *Rule, msg, seg int, text string) Finding {
	if r.Why != "" {
		text += " (" + r.Why + ")"
	}
	return Finding{Rule: r, Where: r.Where(rs.Path), Message: msg, Segment: seg, Text: text}
}

// checkValue checks the rule's element, at p, in segment s.
func (rs *Rules) checkValue(r *Rule, p position, s segRef, m *edi.Message) (Finding, bool) {
	b := value(s, p.elem, p.comp)
	if len(b) == 0 {
		return Finding{}, false // absent: a count rule says whether it must be there
	}
	// The common case, a good value, costs no allocation.
	var why string
	switch {
	case len(r.Codes) > 0:
		for _, code := range r.Codes {
			if string(b) == code {
				return Finding{}, false
			}
		}
		why = " is not one of the codes the partner allows: " + strings.Join(r.Codes, ", ")
	case r.Format != nil && !r.Format.Match(b):
		why = " does not have the partner's format " + r.Format.String()
	default:
		return Finding{}, false
	}
	seg := s.doc.Segment(s.i)
	at := fmt.Sprintf("%s (segment %d of ORDERS %q) element %s %q", r.Segment, seg.Number(), m.Ref, r.Element, seg.Text(p.elem, p.comp))
	return rs.finding(r, 0, s.i, at+why), true
}

// segRef is segment i of doc by its raw bytes: the Segment is built only
// for a finding or a value that needs unescaping.
type segRef struct {
	doc   *edi.Document
	i     int
	raw   []byte
	sp    edi.Separators
	plain bool // no release character, no line break (edi.Document.PlainAt)
}

// value is component c (1-based) of element e of s, read from its raw
// bytes; through Segment.Bytes (slower, exact) when it has a release
// character or a line break in it.
func value(s segRef, e, c int) []byte {
	if s.plain {
		return plainValue(s.raw, s.sp.Element, s.sp.Component, e, c)
	}
	raw, sp := s.raw, s.sp
	ce, cc, start := 0, 1, 0
	special := false
	for j := 0; ; j++ {
		last := j == len(raw)
		if !last {
			b := raw[j]
			switch {
			case sp.HasRelease && b == sp.Release:
				special = true
				j++
				continue
			case b == '\r' || b == '\n':
				special = true
				continue
			case b != sp.Element && b != sp.Component:
				continue
			}
		}
		if ce == e && cc == c {
			if special {
				return s.doc.Segment(s.i).Bytes(e, c)
			}
			return raw[start:j]
		}
		if last {
			return nil
		}
		if raw[j] == sp.Element {
			ce, cc = ce+1, 1
			if ce > e {
				return nil
			}
		} else {
			cc++
		}
		start, special = j+1, false
	}
}

// plainValue is value for a segment whose raw bytes need no unescaping:
// only the two separators matter.
func plainValue(raw []byte, elem, comp byte, e, c int) []byte {
	ce, cc, start := 0, 1, 0
	for j, b := range raw {
		if b != elem && b != comp {
			continue
		}
		if ce == e && cc == c {
			return raw[start:j]
		}
		if b == elem {
			if ce++; ce > e {
				return nil
			}
			cc = 1
		} else {
			cc++
		}
		start = j + 1
	}
	if ce == e && cc == c {
		return raw[start:]
	}
	return nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %s", n, what)
}
