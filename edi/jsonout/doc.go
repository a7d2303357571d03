// Package jsonout writes a parsed EDIFACT document as the JSON of `b2bx
// parse --json`: the interchanges, groups, messages, issues and counts,
// and with Options.Segments the segment list, streamed one value at a
// time so a 16 MiB file never becomes one string. The app's `:export
// PATH.json` in the segment viewer writes the same bytes.
//
// jsonout.go moved here from cmd/b2bx/parse_json.go unchanged but for
// its package clause; this file holds what it used from cmd/b2bx and
// the exported names.
package jsonout

import (
	"bufio"
	"context"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/nutrab2b/b2bx/internal/termsafe"

	"github.com/nutrab2b/b2bx/edi"
)

// Options choose what Write includes.
type Options struct {
	// Segments adds the segment list (`parse --json --segments`);
	// Describe adds every segment's fields to it (`--describe`).
	Segments, Describe bool
}

// Write prints doc as one JSON value, streamed, under the file name
// name; it stops with ctx's error when ctx is done. It is `b2bx parse
// --json`, byte for byte.
func Write(ctx context.Context, w *bufio.Writer, name string, doc *edi.Document, o Options) error {
	return writeParseJSON(ctx, w, name, doc, segmentList{on: o.Segments, describe: o.Describe})
}

// The values of the document's JSON, for callers that build it whole
// (the test that the streamed output equals the marshalled one).
type (
	Interchange = interchangeJSON
	Group       = groupJSON
	Message     = messageJSON
)

// NewInterchange, NewGroup and NewMessage build those values.
func NewInterchange(ic edi.Interchange) Interchange { return newInterchangeJSON(ic) }

// NewGroup builds a functional group's value.
func NewGroup(g edi.Group) Group { return newGroupJSON(g) }

// NewMessage builds a message's value.
func NewMessage(m edi.Message) Message { return newMessageJSON(m) }

// Safe makes JSON output terminal-safe without changing its meaning:
// DEL and dangerous runes (C1 controls, bidi overrides, ...) become \u
// escapes.
func Safe(b []byte) []byte { return jsonSafe(b) }

// AppendString appends s (valid UTF-8) as a JSON string.
func AppendString(b []byte, s string) []byte { return appendJSONString(b, s) }

// PlainASCII reports whether b has no byte of 0x7F or above.
func PlainASCII(b []byte) bool { return plainASCII(b) }

// segmentList is what parse lists of the segments (cmd/b2bx's type of
// the same name).
type segmentList struct{ on, describe bool }

// segmentCheck is how many segments the list prints between two looks
// at the context (as in cmd/b2bx).
const segmentCheck = 1024

// SegmentNames caches segment names per message (or interchange, for
// segments outside messages) and tag, so listing a million segments costs
// a map lookup each instead of two binary searches. The JSON writer and
// cmd/b2bx's human segment list both use it.
type SegmentNames struct {
	doc   *edi.Document
	cache map[nameKey]string
}

type nameKey struct {
	scope int // message index, or -1-interchange index outside messages
	tag   string
}

// NewSegmentNames returns an empty cache over doc.
func NewSegmentNames(doc *edi.Document) *SegmentNames {
	return &SegmentNames{doc: doc, cache: map[nameKey]string{}}
}

// Of returns s's name (s.Name()), looked up once per scope and tag.
func (n *SegmentNames) Of(s edi.Segment) string {
	k := nameKey{scope: s.Message(), tag: s.Tag()}
	if k.scope < 0 {
		k.scope = -1 - n.doc.InterchangeOf(s.Index())
	}
	name, ok := n.cache[k]
	if !ok {
		name = s.Name()
		n.cache[k] = name
	}
	return name
}

// EscapeDangerous rewrites the runes of encoded JSON that a terminal
// would interpret as \u escapes. Outside strings JSON is printable ASCII,
// so every such rune is inside a string, where the escape is exact.
func EscapeDangerous(b []byte) []byte { return escapeDangerous(b) }

// escapeDangerous is EscapeDangerous (moved from cmd/b2bx/client.go).
func escapeDangerous(b []byte) []byte {
	safe := true
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if needsEscape(r) {
			safe = false
			break
		}
		i += n
	}
	if safe {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if !needsEscape(r) {
			out = append(out, b[i:i+n]...)
		} else if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += n
	}
	return out
}

// needsEscape reports whether encoded JSON must not carry r raw: DEL and
// the non-ASCII runes termsafe flags (encoding/json escapes C0 itself).
func needsEscape(r rune) bool {
	return r == 0x7f || (r >= 0x80 && termsafe.Dangerous(r))
}
