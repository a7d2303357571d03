package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "parse", summary: "show an EDIFACT file: envelopes, messages, issues (--json, --segments)", run: runParse})
}

// maxStdin bounds what parse reads from standard input; edi indexes up to
// 4 GiB, files larger than that are refused by edi.Parse itself.
const maxStdin = 1<<32 - 1

func runParse(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "parse", "FILE|-")
	asJSON := fs.Bool("json", false, "print one JSON document instead of the human summary")
	withSegs := fs.Bool("segments", false, "also list every segment (index, offset, number in message, tag, data)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(e.stderr, "b2bx parse: give exactly one FILE, or - for standard input")
		fs.Usage()
		return exitUsage
	}
	// The input and its index stay live for the whole command: collecting
	// garbage while they are built only costs time (~20% on 16 MiB).
	gc := debug.SetGCPercent(-1)
	name, data, err := readParseInput(e, pos[0])
	if err != nil {
		debug.SetGCPercent(gc)
		fmt.Fprintf(e.stderr, "b2bx parse: %s\n", termsafe.String(err.Error()))
		return exitUsage
	}
	doc, err := edi.Parse(data)
	debug.SetGCPercent(gc)
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx parse: %s: %s\n", termsafe.String(name), termsafe.String(err.Error()))
		return exitUsage
	}
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	if *asJSON {
		err = writeParseJSON(w, name, doc, *withSegs)
	} else {
		writeParseHuman(w, name, doc, *withSegs)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx parse: writing the output failed: %s\n", termsafe.String(err.Error()))
		return exitUsage
	}
	if doc.HasErrors() {
		return exitFileError
	}
	return exitOK
}

// readParseInput reads FILE (edi.ReadFile: a plain read, with a huge-page
// hint for large files), or standard input for "-".
func readParseInput(e *env, arg string) (name string, data []byte, err error) {
	if arg == "-" {
		data, err = io.ReadAll(io.LimitReader(e.stdin, maxStdin+1))
		if err != nil {
			return "-", nil, fmt.Errorf("reading standard input: %w", err)
		}
		return "(stdin)", data, nil
	}
	data, err = edi.ReadFile(arg)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return arg, nil, fmt.Errorf("cannot read %s: %w", arg, err)
	}
	return arg, data, nil
}

// --- JSON ---

type parseJSON struct {
	File         string            `json:"file"`
	Bytes        int               `json:"bytes"`
	Interchanges []interchangeJSON `json:"interchanges"`
	Issues       []edi.Issue       `json:"issues"`
	Errors       int               `json:"errors"`
	Warnings     int               `json:"warnings"`
	Segments     int               `json:"segments"`
}

type syntaxJSON struct {
	Identifier string `json:"identifier"`
	Version    int    `json:"version"`
	Charset    string `json:"charset"`
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
	Summary      struct{}     `json:"summary"`
}

func sepString(c byte, ok bool) string {
	if !ok {
		return ""
	}
	return string(rune(c))
}

func newParseJSON(name string, doc *edi.Document) *parseJSON {
	out := &parseJSON{File: name, Bytes: len(doc.Data()), Issues: doc.Issues(), Segments: doc.Len(),
		Interchanges: []interchangeJSON{}}
	if out.Issues == nil {
		out.Issues = []edi.Issue{}
	}
	for _, is := range doc.Issues() {
		if is.Severity == edi.SeverityError {
			out.Errors++
		} else {
			out.Warnings++
		}
	}
	for _, ic := range doc.Interchanges {
		out.Interchanges = append(out.Interchanges, newInterchangeJSON(ic))
	}
	return out
}

func newInterchangeJSON(ic edi.Interchange) interchangeJSON {
	s := ic.Separators
	j := interchangeJSON{
		Index: ic.Index, Offset: ic.Offset, FirstSegment: ic.First, LastSegment: ic.Last,
		UNA: ic.HasUNA, UNB: ic.HasUNB, UNZ: ic.HasUNZ,
		Syntax: syntaxJSON{Identifier: ic.SyntaxID, Version: ic.SyntaxVersion, Charset: ic.Charset.String()},
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
	for _, g := range ic.Groups {
		gj := groupJSON{Index: g.Index, ID: g.ID, Ref: g.Ref, Sender: g.Sender, Recipient: g.Recipient,
			Agency: g.Agency, Version: g.Version, Release: g.Release, Association: g.Association,
			FirstSegment: g.First, LastSegment: g.Last, Messages: len(g.Messages)}
		if g.Closed {
			gj.Trailer = &trailerJSON{Count: g.TrailerCount, Ref: g.TrailerRef}
		}
		j.FunctionalGroups = append(j.FunctionalGroups, gj)
	}
	for _, m := range ic.Messages {
		mj := messageJSON{Index: m.Index, Ref: m.Ref, Type: m.Type, Version: m.Version, Release: m.Release,
			Agency: m.Agency, Association: m.Association, Segments: m.Segments(),
			FirstSegment: m.First, LastSegment: m.Last, Offset: m.Offset, Group: m.Group}
		if m.Closed {
			mj.Trailer = &trailerJSON{Count: m.TrailerCount, Ref: m.TrailerRef}
		}
		j.Messages = append(j.Messages, mj)
	}
	return j
}

// writeParseJSON prints the document; with segments the list is streamed
// after the summary so a large file never builds one huge value.
func writeParseJSON(w *bufio.Writer, name string, doc *edi.Document, segments bool) error {
	b, err := json.MarshalIndent(newParseJSON(name, doc), "", "  ")
	if err != nil {
		return err
	}
	if !segments {
		b = append(b, '\n')
		_, err = w.Write(jsonSafe(b))
		return err
	}
	b = bytes.TrimSuffix(b, []byte("\n}"))
	b = append(b, ",\n  \"segmentList\": ["...)
	if _, err := w.Write(jsonSafe(b)); err != nil {
		return err
	}
	var line []byte
	for i := 0; i < doc.Len(); i++ {
		s := doc.Segment(i)
		line = append(line[:0], "\n    "...)
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
		line = append(line, `,"data":`...)
		line = appendJSONString(line, s.Charset().Decode(s.Raw()))
		line = append(line, '}')
		if _, err := w.Write(jsonSafe(line)); err != nil {
			return err
		}
	}
	_, err = w.WriteString("\n  ]\n}\n")
	return err
}

// appendJSONString appends s (valid UTF-8) as a JSON string, escaping
// quotes, backslashes and C0 controls like encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// jsonSafe makes JSON output terminal-safe without changing its meaning:
// DEL and dangerous runes (C1 controls, bidi overrides, ...) become \u
// escapes; encoding/json already escapes C0 controls.
func jsonSafe(b []byte) []byte {
	if bytes.IndexByte(b, 0x7F) >= 0 {
		b = bytes.ReplaceAll(b, []byte{0x7F}, []byte(`\u007f`))
	}
	return escapeDangerous(b)
}

// --- human output ---

func writeParseHuman(w *bufio.Writer, name string, doc *edi.Document, segments bool) {
	errs, warns := 0, 0
	for _, is := range doc.Issues() {
		if is.Severity == edi.SeverityError {
			errs++
		} else {
			warns++
		}
	}
	fmt.Fprintf(w, "%s: %d bytes, %d segments, %d interchange(s), %d message(s), %d error(s), %d warning(s)\n",
		termsafe.String(name), len(doc.Data()), doc.Len(), len(doc.Interchanges), len(doc.Messages), errs, warns)
	for _, ic := range doc.Interchanges {
		writeInterchangeHuman(w, ic)
	}
	if len(doc.Issues()) > 0 {
		fmt.Fprintf(w, "\nIssues (segment = 0-based index, @ = byte offset):\n")
		for _, is := range doc.Issues() {
			code := ""
			if is.SyntaxError != 0 {
				code = " [0085:" + strconv.Itoa(is.SyntaxError) + "]"
			}
			seg := "-"
			if is.Segment >= 0 {
				seg = strconv.Itoa(is.Segment)
			}
			fmt.Fprintf(w, "  %-7s %s%s segment %s @%d: %s\n", is.Severity, is.Code, code, seg, is.Offset, termsafe.String(is.Message))
		}
	}
	if segments {
		writeSegmentsHuman(w, doc)
	}
}

func writeInterchangeHuman(w *bufio.Writer, ic edi.Interchange) {
	fmt.Fprintln(w)
	if !ic.HasUNB {
		fmt.Fprintf(w, "Segments without interchange envelope (no UNB): segments %d-%d, offset %d\n", ic.First, ic.Last, ic.Offset)
	} else {
		una := "defaults"
		if ic.Separators.FromUNA {
			una = "UNA"
		}
		fmt.Fprintf(w, "Interchange %s  %s:%d (%s)  separators %s (%s)\n", safe(ic.ControlRef), safe(ic.SyntaxID),
			ic.SyntaxVersion, ic.Charset, termsafe.String(ic.Separators.String()), una)
		fmt.Fprintf(w, "  segments    %d-%d, offset %d\n", ic.First, ic.Last, ic.Offset)
		fmt.Fprintf(w, "  sender      %s\n", party(ic.Sender))
		fmt.Fprintf(w, "  recipient   %s\n", party(ic.Recipient))
		prepared := safe(ic.PreparedDate) + ":" + safe(ic.PreparedTime)
		if !ic.PreparedAt.IsZero() {
			prepared = ic.PreparedAt.Format("2006-01-02 15:04") + " (" + prepared + ")"
		}
		fmt.Fprintf(w, "  prepared    %s\n", prepared)
		if ic.AppRef != "" {
			fmt.Fprintf(w, "  app ref     %s\n", safe(ic.AppRef))
		}
		if ic.TestIndicator != "" {
			fmt.Fprintf(w, "  test        %s\n", safe(ic.TestIndicator))
		}
		trailer := "missing"
		if ic.HasUNZ {
			trailer = fmt.Sprintf("UNZ count %d, ref %s", ic.TrailerCount, safe(ic.TrailerRef))
		}
		fmt.Fprintf(w, "  trailer     %s\n", trailer)
	}
	for _, m := range ic.Messages {
		if m.Group < 0 {
			writeMessageHuman(w, "  ", m)
		}
	}
	for _, g := range ic.Groups {
		fmt.Fprintf(w, "  Group %s  %s %s:%s (%s)  segments %d-%d\n", safe(g.Ref), safe(g.ID), safe(g.Version),
			safe(g.Release), safe(g.Agency), g.First, g.Last)
		for _, m := range g.Messages {
			writeMessageHuman(w, "    ", m)
		}
	}
}

func writeMessageHuman(w *bufio.Writer, indent string, m edi.Message) {
	kind := safe(m.Type) + " " + safe(m.Version) + ":" + safe(m.Release) + ":" + safe(m.Agency)
	if m.Association != "" {
		kind += ":" + safe(m.Association)
	}
	end := "UNT"
	if !m.Closed {
		end = "no UNT"
	}
	fmt.Fprintf(w, "%sMessage %s  %s  %d segments (%d-%d, %s)\n", indent, safe(m.Ref), kind, m.Segments(), m.First, m.Last, end)
}

func writeSegmentsHuman(w *bufio.Writer, doc *edi.Document) {
	fmt.Fprintf(w, "\nSegments (index, offset, number in message, tag, data):\n")
	var line []byte
	for i := 0; i < doc.Len(); i++ {
		s := doc.Segment(i)
		line = appendPadded(line[:0], strconv.AppendInt(nil, int64(i), 10), 8)
		line = appendPadded(line, strconv.AppendInt(nil, int64(s.Offset()), 10), 10)
		num := []byte("-")
		if k := s.Number(); k > 0 {
			num = strconv.AppendInt(nil, int64(k), 10)
		}
		line = appendPadded(line, num, 7)
		line = append(line, "  "...)
		tag := termsafe.String(s.Tag())
		line = append(line, tag...)
		for n := len(tag); n < 3; n++ {
			line = append(line, ' ')
		}
		line = append(line, "  "...)
		line = append(line, s.Display()...)
		line = append(line, '\n')
		w.Write(line)
	}
}

// appendPadded right-aligns v in a field of width n.
func appendPadded(b, v []byte, n int) []byte {
	for k := len(v); k < n; k++ {
		b = append(b, ' ')
	}
	return append(b, v...)
}

func safe(s string) string { return termsafe.String(s) }

func party(p edi.Party) string {
	s := safe(p.ID)
	if p.Qualifier != "" {
		s += " (qualifier " + safe(p.Qualifier) + ")"
	}
	if p.Routing != "" {
		s += " routing " + safe(p.Routing)
	}
	return s
}
