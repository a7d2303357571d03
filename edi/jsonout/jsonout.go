package jsonout

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/nutrab2b/b2bx/edi"
)

type syntaxJSON struct {
	Identifier  string `json:"identifier"`
	Version     *int   `json:"version"`               // null when UNB has no (valid) syntax version
	VersionText string `json:"versionText,omitempty"` // "missing" or the invalid value, when version is null
	Charset     string `json:"charset"`
}

type separatorsJSON struct {
	Component  string `json:"component"`
	Element    string `json:"element"`
	Decimal    string `json:"decimal"`
	Release    string `json:"release"`
	Repetition string `json:"repetition"`
	Segment    string `json:"segment"`
	FromUNA    bool   `json:"fromUNA"`
}

type trailerJSON struct {
	Count int    `json:"count"`
	Ref   string `json:"ref"`
}

type interchangeJSON struct {
	Index            int            `json:"index"`
	Offset           int            `json:"offset"`
	FirstSegment     int            `json:"firstSegment"`
	LastSegment      int            `json:"lastSegment"`
	UNA              bool           `json:"una"`
	UNB              bool           `json:"unb"`
	UNZ              bool           `json:"unz"`
	Syntax           syntaxJSON     `json:"syntax"`
	Separators       separatorsJSON `json:"separators"`
	Sender           edi.Party      `json:"sender"`
	Recipient        edi.Party      `json:"recipient"`
	ControlRef       string         `json:"controlRef"`
	PreparedAt       string         `json:"preparedAt"`
	PreparedDate     string         `json:"preparedDate"`
	PreparedTime     string         `json:"preparedTime"`
	ApplicationRef   string         `json:"applicationRef"`
	TestIndicator    string         `json:"testIndicator"`
	Trailer          *trailerJSON   `json:"trailer"`
	Groups           int            `json:"groups"`
	FunctionalGroups []groupJSON    `json:"functionalGroups"`
	Messages         []messageJSON  `json:"messages"`
}

type groupJSON struct {
	Index        int          `json:"index"`
	ID           string       `json:"id"`
	Ref          string       `json:"ref"`
	Sender       edi.Party    `json:"sender"`
	Recipient    edi.Party    `json:"recipient"`
	Agency       string       `json:"agency"`
	Version      string       `json:"version"`
	Release      string       `json:"release"`
	Association  string       `json:"association"`
	FirstSegment int          `json:"firstSegment"`
	LastSegment  int          `json:"lastSegment"`
	Messages     int          `json:"messages"`
	Trailer      *trailerJSON `json:"trailer"`
}

type messageJSON struct {
	Index        int          `json:"index"`
	Ref          string       `json:"ref"`
	Type         string       `json:"type"`
	Version      string       `json:"version"`
	Release      string       `json:"release"`
	Agency       string       `json:"agency"`
	Association  string       `json:"association"`
	Segments     int          `json:"segments"`
	FirstSegment int          `json:"firstSegment"`
	LastSegment  int          `json:"lastSegment"`
	Offset       int          `json:"offset"`
	Group        int          `json:"group"`
	Trailer      *trailerJSON `json:"trailer"`
	// Structure is the directory structure the message was checked
	// against ("ORDERS D.96A"), Directory its directory ("D96A", "D24A",
	// "SYNTAX3", "SYNTAX4"); both empty when b2bx has none for the
	// message, and DirectoryNote then says so.
	Structure       string `json:"structure"`
	Directory       string `json:"directory"`
	DirectoryNote   string `json:"directoryNote,omitempty"`
	StructureIssues int    `json:"structureIssues"`
	// Summary is null for message types b2bx does not summarise.
	Summary *edi.Summary `json:"summary"`
}

func sepString(c byte, ok bool) string {
	if !ok {
		return ""
	}
	return string(rune(c))
}

// newInterchangeJSON is an interchange's JSON without its groups and
// messages (empty lists), which are written one at a time.
func newInterchangeJSON(ic edi.Interchange) interchangeJSON {
	s := ic.Separators
	j := interchangeJSON{
		Index: ic.Index, Offset: ic.Offset, FirstSegment: ic.First, LastSegment: ic.Last,
		UNA: ic.HasUNA, UNB: ic.HasUNB, UNZ: ic.HasUNZ,
		Syntax: newSyntaxJSON(&ic),
		Separators: separatorsJSON{
			Component: sepString(s.Component, true), Element: sepString(s.Element, true),
			Decimal: sepString(s.Decimal, true), Release: sepString(s.Release, s.HasRelease),
			Repetition: sepString(s.Repetition, s.HasRepetition), Segment: sepString(s.Segment, true),
			FromUNA: s.FromUNA,
		},
		Sender: ic.Sender, Recipient: ic.Recipient, ControlRef: ic.ControlRef,
		PreparedDate: ic.PreparedDate, PreparedTime: ic.PreparedTime,
		ApplicationRef: ic.AppRef, TestIndicator: ic.TestIndicator,
		Groups: len(ic.Groups), FunctionalGroups: []groupJSON{}, Messages: []messageJSON{},
	}
	if !ic.PreparedAt.IsZero() {
		j.PreparedAt = ic.PreparedAt.Format("2006-01-02T15:04:05")
	}
	if ic.HasUNZ {
		j.Trailer = &trailerJSON{Count: ic.TrailerCount, Ref: ic.TrailerRef}
	}
	return j
}

func newGroupJSON(g edi.Group) groupJSON {
	gj := groupJSON{Index: g.Index, ID: g.ID, Ref: g.Ref, Sender: g.Sender, Recipient: g.Recipient,
		Agency: g.Agency, Version: g.Version, Release: g.Release, Association: g.Association,
		FirstSegment: g.First, LastSegment: g.Last, Messages: len(g.Messages)}
	if g.Closed {
		gj.Trailer = &trailerJSON{Count: g.TrailerCount, Ref: g.TrailerRef}
	}
	return gj
}

// newMessageJSON reads the message's summary (a fresh one each call).
func newMessageJSON(m edi.Message) messageJSON {
	mj := messageJSON{Index: m.Index, Ref: m.Ref, Type: m.Type, Version: m.Version, Release: m.Release,
		Agency: m.Agency, Association: m.Association, Segments: m.Segments(),
		FirstSegment: m.First, LastSegment: m.Last, Offset: m.Offset, Group: m.Group,
		Structure: m.Structure, Directory: m.Directory, DirectoryNote: m.DirectoryNote,
		StructureIssues: m.StructureProblems, Summary: m.Summary()}
	if m.Closed {
		mj.Trailer = &trailerJSON{Count: m.TrailerCount, Ref: m.TrailerRef}
	}
	return mj
}

// jsonStream writes one indented JSON document a value at a time, the
// bytes json.MarshalIndent(whole, "", "  ") would give, so that no part
// of the output is held larger than one message (a file with 100,000
// empty messages made 110 MB of JSON, built in memory at 1 GB). The first
// error (the writer's, or the context's) sticks.
type jsonStream struct {
	ctx context.Context
	w   *bufio.Writer
	err error
}

// indent is the prefix of a line at depth (two spaces a level).
func indent(depth int) string { return strings.Repeat("  ", depth) }

func (j *jsonStream) raw(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
	}
}

// value writes v as it appears at depth (its first line unindented).
func (j *jsonStream) value(v any, depth int) {
	if j.err != nil {
		return
	}
	b, err := json.MarshalIndent(v, indent(depth), "  ")
	if err != nil {
		j.err = err
		return
	}
	_, j.err = j.w.Write(jsonSafe(b))
}

// list writes an array of n items at depth, each written by item at
// depth+1; it looks at the context before each item.
func (j *jsonStream) list(n, depth int, item func(k int)) {
	if n == 0 {
		j.raw("[]")
		return
	}
	j.raw("[")
	for k := 0; k < n && j.err == nil; k++ {
		if j.err = j.ctx.Err(); j.err != nil {
			return
		}
		if k > 0 {
			j.raw(",")
		}
		j.raw("\n" + indent(depth+1))
		item(k)
	}
	j.raw("\n" + indent(depth) + "]")
}

// interchange writes ic at depth: its fields, then its groups and
// messages one at a time.
func (j *jsonStream) interchange(ic edi.Interchange, depth int) {
	if j.err != nil {
		return
	}
	b, err := json.MarshalIndent(newInterchangeJSON(ic), indent(depth), "  ")
	if err != nil {
		j.err = err
		return
	}
	// The lists are the last two fields, empty: write the rest, then
	// them one item at a time.
	tail := `"functionalGroups": [],` + "\n" + indent(depth+1) + `"messages": []` + "\n" + indent(depth) + "}"
	head, ok := bytes.CutSuffix(b, []byte(tail))
	if !ok {
		j.err = errors.New("b2bx: internal error: unexpected interchange JSON layout")
		return
	}
	if _, j.err = j.w.Write(jsonSafe(head)); j.err != nil {
		return
	}
	j.raw(`"functionalGroups": `)
	j.list(len(ic.Groups), depth+1, func(k int) { j.value(newGroupJSON(ic.Groups[k]), depth+2) })
	j.raw(",\n" + indent(depth+1) + `"messages": `)
	j.list(len(ic.Messages), depth+1, func(k int) { j.value(newMessageJSON(ic.Messages[k]), depth+2) })
	j.raw("\n" + indent(depth) + "}")
}

// writeParseJSON prints the document as one JSON value, streamed: the
// interchanges, groups, messages, issues and segments are written one at
// a time. It stops with ctx's error when ctx is done.
func writeParseJSON(ctx context.Context, w *bufio.Writer, name string, doc *edi.Document, list segmentList) error {
	j := &jsonStream{ctx: ctx, w: w}
	errs, warns := doc.IssueCounts()
	issues := doc.Issues()
	j.raw("{\n  \"file\": ")
	j.value(name, 1)
	j.raw(",\n  \"bytes\": ")
	j.value(len(doc.Data()), 1)
	j.raw(",\n  \"interchanges\": ")
	j.list(len(doc.Interchanges), 1, func(k int) { j.interchange(doc.Interchanges[k], 2) })
	j.raw(",\n  \"issues\": ")
	j.list(len(issues), 1, func(k int) { j.value(issues[k], 2) })
	j.raw(",\n  \"errors\": ")
	j.value(errs, 1)
	j.raw(",\n  \"warnings\": ")
	j.value(warns, 1)
	j.raw(",\n  \"segments\": ")
	j.value(doc.Len(), 1)
	if !list.on {
		j.raw("\n}\n")
		return j.err
	}
	j.raw(",\n  \"segmentList\": [")
	if j.err != nil {
		return j.err
	}
	names := NewSegmentNames(doc)
	var line []byte
	var err error
	for i := 0; i < doc.Len(); i++ {
		if i%segmentCheck == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if line, err = appendSegmentJSON(line[:0], doc, i, names, list.describe); err != nil {
			return err
		}
		if _, err := w.Write(jsonSafe(line)); err != nil {
			return err
		}
	}
	_, err = w.WriteString("\n  ]\n}\n")
	return err
}

// appendSegmentJSON appends one entry of the segment list (built by hand:
// encoding/json per segment would triple the time for a 16 MiB file).
func appendSegmentJSON(line []byte, doc *edi.Document, i int, names *SegmentNames, describe bool) ([]byte, error) {
	s := doc.Segment(i)
	line = append(line, "\n    "...)
	if i > 0 {
		line = append(line[:0], ",\n    "...)
	}
	line = append(line, `{"index":`...)
	line = strconv.AppendInt(line, int64(i), 10)
	line = append(line, `,"offset":`...)
	line = strconv.AppendInt(line, int64(s.Offset()), 10)
	line = append(line, `,"number":`...)
	line = strconv.AppendInt(line, int64(s.Number()), 10)
	line = append(line, `,"tag":`...)
	line = appendJSONString(line, s.Charset().Decode([]byte(s.Tag())))
	if name := names.Of(s); name != "" {
		line = append(line, `,"name":`...)
		line = appendJSONString(line, name)
	}
	if e, ok := s.Entry(); ok {
		line = append(line, `,"path":`...)
		line = appendJSONString(line, e.Path)
		line = append(line, `,"fullPath":`...)
		line = appendJSONString(line, e.FullPath)
	}
	line = append(line, `,"data":`...)
	line = appendJSONString(line, s.Charset().Decode(s.Raw()))
	if describe {
		info := doc.Describe(i)
		if info.Fields == nil {
			info.Fields = []edi.Field{}
		}
		b, err := json.Marshal(info.Fields)
		if err != nil {
			return nil, err
		}
		line = append(line, `,"fields":`...)
		line = append(line, b...)
		if info.More > 0 {
			line = append(line, `,"moreFields":`...)
			line = strconv.AppendInt(line, int64(info.More), 10)
		}
	}
	return append(line, '}'), nil
}

// appendJSONString appends s (valid UTF-8) as a JSON string, escaping
// quotes, backslashes and C0 controls like encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	done := 0 // s[:done] is in b
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[done:i]...)
		done = i + 1
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
	}
	b = append(b, s[done:]...)
	return append(b, '"')
}

// jsonSafe makes JSON output terminal-safe without changing its meaning:
// DEL and dangerous runes (C1 controls, bidi overrides, ...) become \u
// escapes; encoding/json already escapes C0 controls.
func jsonSafe(b []byte) []byte {
	if plainASCII(b) {
		return b // the usual segment line: nothing to do
	}
	if bytes.IndexByte(b, 0x7F) >= 0 {
		b = bytes.ReplaceAll(b, []byte{0x7F}, []byte(`\u007f`))
	}
	return escapeDangerous(b)
}

// plainASCII reports whether b has no byte of 0x7F or above, eight bytes
// at a time: such JSON has no DEL and no rune the terminal could act on.
func plainASCII(b []byte) bool {
	const highs, ones = 0x8080808080808080, 0x0101010101010101
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// x+1 per byte carries into the high bit exactly for 0x7F and
		// keeps it for bytes above; no byte below 0x7F carries out.
		if (x|(x+ones))&highs != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= 0x7F {
			return false
		}
	}
	return true
}

// newSyntaxJSON gives the syntax version as a number, or null with the
// reason: a missing version is not version 0.
func newSyntaxJSON(ic *edi.Interchange) syntaxJSON {
	out := syntaxJSON{Identifier: ic.SyntaxID, Charset: ic.Charset.String()}
	if ic.SyntaxVersion > 0 {
		v := ic.SyntaxVersion
		out.Version = &v
	} else {
		out.VersionText = ic.SyntaxVersionText()
	}
	return out
}
