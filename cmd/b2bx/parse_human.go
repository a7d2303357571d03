package main

import (
	"bufio"
	"context"
	"fmt"
	"strconv"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/explain"
	"github.com/nutrab2b/b2bx/edi/jsonout"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// humanWriter prints the human form of b2bx parse. Every value from the
// data goes through termsafe (safe); directory text is trusted.
type humanWriter struct {
	ctx context.Context // looked at per message: the output stops when it is done
	w   *bufio.Writer
	doc *edi.Document
}

// writeParseHuman prints the human form of doc. It stops with ctx's
// error when ctx is done (between messages, and every segmentCheck
// segments of the list).
func writeParseHuman(ctx context.Context, w *bufio.Writer, name string, doc *edi.Document, list segmentList) error {
	v := explain.VerdictOf(doc)
	fmt.Fprintf(w, "%s: %d bytes, %d segments, %d interchange(s), %d message(s), %d error(s), %d warning(s)\n",
		termsafe.String(name), len(doc.Data()), doc.Len(), len(doc.Interchanges), len(doc.Messages), v.Errors, v.Warnings)
	h := &humanWriter{ctx: ctx, w: w, doc: doc}
	for _, ic := range doc.Interchanges {
		if err := h.interchange(ic); err != nil {
			return err
		}
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
	if list.on {
		return writeSegmentsHuman(ctx, w, doc, list.describe)
	}
	return nil
}

// interchange prints one interchange with its messages; the error is the
// context's when it is done.
func (h *humanWriter) interchange(ic edi.Interchange) error {
	w := h.w
	fmt.Fprintln(w)
	if !ic.HasUNB {
		fmt.Fprintf(w, "Segments without interchange envelope (no UNB): segments %d-%d, offset %d\n", ic.First, ic.Last, ic.Offset)
	} else {
		una := "defaults"
		if ic.Separators.FromUNA {
			una = "UNA"
		}
		fmt.Fprintf(w, "Interchange %s  %s (%s)  separators %s (%s)\n", safe(ic.ControlRef), safe(ic.SyntaxLabel()),
			ic.Charset, termsafe.String(ic.Separators.String()), una)
		fmt.Fprintf(w, "  segments    %d-%d, offset %d\n", ic.First, ic.Last, ic.Offset)
		fmt.Fprintf(w, "  sender      %s\n", explain.Party(ic.SyntaxVersion, ic.Sender))
		fmt.Fprintf(w, "  recipient   %s\n", explain.Party(ic.SyntaxVersion, ic.Recipient))
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
			if err := h.message("  ", m); err != nil {
				return err
			}
		}
	}
	for _, g := range ic.Groups {
		if err := h.ctx.Err(); err != nil {
			return err
		}
		fmt.Fprintf(w, "  Group %s  %s %s:%s (%s)  segments %d-%d\n", safe(g.Ref), safe(g.ID), safe(g.Version),
			safe(g.Release), safe(g.Agency), g.First, g.Last)
		for _, m := range g.Messages {
			if err := h.message("    ", m); err != nil {
				return err
			}
		}
	}
	return nil
}

// message prints one message block, unless the context is done.
func (h *humanWriter) message(indent string, m edi.Message) error {
	if err := h.ctx.Err(); err != nil {
		return err
	}
	kind := safe(m.Type) + " " + safe(m.Version) + ":" + safe(m.Release) + ":" + safe(m.Agency)
	if m.Association != "" {
		kind += ":" + safe(m.Association)
	}
	end := "UNT"
	if !m.Closed {
		end = "no UNT"
	}
	fmt.Fprintf(h.w, "%sMessage %s  %s  %d segments (%d-%d, %s)\n", indent, safe(m.Ref), kind, m.Segments(), m.First, m.Last, end)
	in := indent + "  "
	switch n := m.StructureProblems; {
	case m.Structure == "":
		h.line(in, "structure", "none; "+safe(m.DirectoryNote))
	case n == 0:
		h.line(in, "structure", m.Structure+": no problems")
	default:
		h.line(in, "structure", fmt.Sprintf("%s: %d problem(s), see Issues", m.Structure, n))
	}
	if m.Structure != "" && m.DirectoryNote != "" {
		h.line(in, "note", safe(m.DirectoryNote))
	}
	if s := m.Summary(); s != nil {
		h.summary(in, s)
	}
	return nil
}

// line prints one labelled line of a message block.
func (h *humanWriter) line(indent, label, text string) {
	fmt.Fprintf(h.w, "%s%-11s %s\n", indent, label, text)
}

// segmentCheck is how many segments the lists print between two looks
// at the context.
const segmentCheck = 1024

// writeSegmentsHuman prints the segment list; it stops with ctx's error
// when ctx is done.
func writeSegmentsHuman(ctx context.Context, w *bufio.Writer, doc *edi.Document, describe bool) error {
	fmt.Fprintf(w, "\nSegments (index, offset, number in message, tag, group path, name, data):\n")
	names := jsonout.NewSegmentNames(doc)
	var line, num []byte // reused: a million segments, no garbage per number
	for i := 0; i < doc.Len(); i++ {
		if i%segmentCheck == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s := doc.Segment(i)
		num = strconv.AppendInt(num[:0], int64(i), 10)
		line = appendPadded(line[:0], num, 8)
		num = strconv.AppendInt(num[:0], int64(s.Offset()), 10)
		line = appendPadded(line, num, 10)
		num = append(num[:0], '-')
		if k := s.Number(); k > 0 {
			num = strconv.AppendInt(num[:0], int64(k), 10)
		}
		line = appendPadded(line, num, 7)
		line = append(line, "  "...)
		line = appendLeft(line, termsafe.String(s.Tag()), 3)
		line = append(line, "  "...)
		path := "-"
		if p := s.Path(); p != "" {
			path = p
		}
		line = appendLeft(line, path, 14)
		line = append(line, "  "...)
		line = appendLeft(line, names.Of(s), 32)
		line = append(line, "  "...)
		line = append(line, s.Display()...)
		line = append(line, '\n')
		w.Write(line)
		if describe {
			writeFieldsHuman(w, doc.Describe(i))
		}
	}
	return nil
}

// writeFieldsHuman prints the element breakdown of one segment: position,
// reference, name, value and the code's name.
func writeFieldsHuman(w *bufio.Writer, info edi.SegmentInfo) {
	if info.Unknown != "" && len(info.Fields) > 0 {
		fmt.Fprintf(w, "%27s(%s)\n", "", info.Unknown)
	}
	for _, f := range info.Fields {
		fmt.Fprintf(w, "%27s%-8s %-10s %-42s %s\n", "", explain.FieldPosition(f), explain.FieldRef(f), explain.FieldNameIn(info, f), explain.FieldValue(f))
	}
	if info.More > 0 {
		fmt.Fprintf(w, "%27s… %d more value(s) not listed (the first %d are)\n", "", info.More, len(info.Fields))
	}
}

// appendPadded right-aligns v in a field of width n.
func appendPadded(b, v []byte, n int) []byte {
	for k := len(v); k < n; k++ {
		b = append(b, ' ')
	}
	return append(b, v...)
}

// appendLeft left-aligns s in a field of width n (counting bytes; names
// and paths are ASCII).
func appendLeft(b []byte, s string, n int) []byte {
	b = append(b, s...)
	for k := len(s); k < n; k++ {
		b = append(b, ' ')
	}
	return b
}

func safe(s string) string { return termsafe.String(s) }
