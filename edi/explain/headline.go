package explain

import (
	"strconv"
	"strings"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/human"
)

// Headline is a message's summary in one line, what a support engineer
// wants to read first:
//
//	CONTRL for interchange 4711: REJECTED, 2 errors
//	ORDRSP to order PO-123: 3 lines changed (of 5)
//	APERAK about PO-4711: error 12: Unknown article number 4000862141411
//	ORDERS PO-123: 5 lines
//	INVOIC D:01B:UN message M1: 12 segments
//
// It reads the message's summary (Message.Summary reads the segments each
// time); HeadlineOf takes one already read.
func Headline(m *edi.Message) string { return HeadlineOf(m, m.Summary()) }

// HeadlineOf is Headline for a message whose summary s (nil for message
// types without one) the caller has read already.
func HeadlineOf(m *edi.Message, s *edi.Summary) string {
	if s != nil {
		switch {
		case s.Contrl != nil:
			return contrlHeadline(s.Contrl)
		case s.Ordrsp != nil:
			return ordrspHeadline(s.Ordrsp)
		case s.Aperak != nil:
			return aperakHeadline(s.Aperak)
		case s.Orders != nil:
			return ordersHeadline(s.Orders)
		}
	}
	kind := safe(m.Type)
	if kind == "" {
		kind = "message without type"
	}
	if m.Version != "" || m.Release != "" {
		kind += " " + safe(m.Version) + ":" + safe(m.Release) + ":" + safe(m.Agency)
	}
	return kind + " message " + safe(m.Ref) + ": " + human.Count(m.Segments(), "segment", "segments")
}

func contrlHeadline(c *edi.ContrlSummary) string {
	if c.Segment < 0 {
		return "CONTRL without UCI: it does not say which interchange it answers"
	}
	verdict := strings.ToUpper(c.Verdict)
	if verdict == "" {
		verdict = "action " + CodedOr(c.Action, "missing")
	}
	errs := "no errors reported"
	if n := ContrlErrors(c); n > 0 {
		errs = human.Count(n, "error", "errors")
	}
	return "CONTRL for interchange " + safe(c.InterchangeRef) + ": " + verdict + ", " + errs
}

// ContrlErrors counts the errors a CONTRL reports: each level (UCI, UCF,
// UCM) that carries an error, each data element error (UCD), and each
// segment error (UCS) that has a syntax error code or no element errors
// under it (a UCS that only leads to its UCDs is not counted twice).
// Only the listed messages count (edi lists the first 1000 per level).
func ContrlErrors(c *edi.ContrlSummary) int {
	n := 0
	if hasContrlError(c.ContrlError) {
		n++
	}
	n += messageErrors(c.Messages)
	for _, g := range c.Groups {
		if hasContrlError(g.ContrlError) {
			n++
		}
		n += messageErrors(g.Messages)
	}
	return n
}

func messageErrors(ms []edi.ContrlMessage) int {
	n := 0
	for _, m := range ms {
		if hasContrlError(m.ContrlError) {
			n++
		}
		for _, s := range m.Segments {
			if s.SyntaxError != nil || len(s.Elements) == 0 {
				n++
			}
			n += len(s.Elements)
		}
	}
	return n
}

func ordrspHeadline(o *edi.OrdrspSummary) string {
	head := "ORDRSP"
	switch {
	case o.OrderNumber != "":
		head += " to order " + safe(o.OrderNumber)
	case o.Document.Number != "":
		head += " " + safe(o.Document.Number) + " (no order number)"
	}
	changed := "no lines changed"
	if o.ChangedLines > 0 {
		changed = human.Count(o.ChangedLines, "line", "lines") + " changed"
	}
	return head + ": " + changed + " (of " + strconv.Itoa(o.Lines) + ")"
}

func aperakHeadline(a *edi.AperakSummary) string {
	head := "APERAK"
	if len(a.Document.References) > 0 {
		head += " about " + safe(a.Document.References[0].Value)
	} else if a.Document.Number != "" {
		head += " " + safe(a.Document.Number)
	}
	if a.ErrorsTotal == 0 || len(a.Errors) == 0 {
		return head + ": no errors"
	}
	e := a.Errors[0]
	text := "error " + safe(e.Code)
	if e.Name != "" {
		text += " (" + e.Name + ")"
	}
	if len(e.Texts) > 0 {
		text += ": " + safe(e.Texts[0])
	}
	if more := a.ErrorsTotal - 1; more > 0 {
		text += " (and " + human.Count(more, "more error", "more errors") + ")"
	}
	return head + ": " + text
}

func ordersHeadline(o *edi.OrdersSummary) string {
	head := "ORDERS"
	if o.Document.Number != "" {
		head += " " + safe(o.Document.Number)
	}
	text := head + ": " + human.Count(o.Lines, "line", "lines")
	for _, c := range o.Controls {
		if c.LinesMatch != nil && !*c.LinesMatch {
			text += ", but CNT says " + safe(c.Value)
		}
	}
	return text
}
