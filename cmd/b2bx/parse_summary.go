package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/explain"
)

// maxHumanItems bounds the per-item lines (changed lines, errors) of a
// summary in human output; --json lists up to edi's own bound.
const maxHumanItems = 20

// summary prints a message summary under its message line.
func (h *humanWriter) summary(in string, s *edi.Summary) {
	switch {
	case s.Orders != nil:
		o := s.Orders
		h.document(in, o.Document)
		h.line(in, "lines", strconv.Itoa(o.Lines)+" (LIN)")
		h.controls(in, o.Controls, o.Lines)
	case s.Ordrsp != nil:
		h.ordrsp(in, s.Ordrsp)
	case s.Aperak != nil:
		h.aperak(in, s.Aperak)
	case s.Contrl != nil:
		h.contrl(in, s.Contrl)
	}
}

// coded shows a code and its directory name: "220 Order".
func coded(c edi.Coded) string {
	return explain.Coded(c)
}

// document prints BGM, the document date and the header references and
// parties shared by ORDERS, ORDRSP and APERAK.
func (h *humanWriter) document(in string, d edi.DocumentSummary) {
	var what []string
	if d.Name.Code != "" {
		what = append(what, coded(d.Name))
	}
	if d.Function.Code != "" {
		what = append(what, "function "+coded(d.Function))
	}
	if d.ResponseType.Code != "" {
		what = append(what, "response "+coded(d.ResponseType))
	}
	number := safe(d.Number)
	if number == "" {
		number = "(no document number)"
	}
	if len(what) > 0 {
		number += "  (" + strings.Join(what, ", ") + ")"
	}
	h.line(in, "document", number)
	if d.Date != nil {
		h.line(in, "date", dateText(*d.Date))
	}
	for _, dt := range d.Dates {
		if d.Date == nil || dt.Segment != d.Date.Segment {
			h.line(in, "date", dateText(dt))
		}
	}
	for _, r := range d.References {
		h.line(in, "reference", coded(r.Qualifier)+": "+safe(r.Value))
	}
	for _, p := range d.Parties {
		h.line(in, "party", partyText(p))
	}
}

// dateText shows a DTM: the ISO date when b2bx understands the format,
// with qualifier and format.
func dateText(d edi.DateTime) string {
	return explain.Date(d)
}

func partyText(p edi.PartySummary) string {
	return explain.PartySummary(p)
}

// controls prints CNT totals and whether the line count matches.
func (h *humanWriter) controls(in string, cs []edi.ControlTotal, lines int) {
	for _, c := range cs {
		text := coded(c.Qualifier) + " = " + safe(c.Value)
		if c.LinesMatch != nil {
			if *c.LinesMatch {
				text += " (matches the LIN count)"
			} else {
				text += fmt.Sprintf(" (does NOT match: the message has %d LIN)", lines)
			}
		}
		h.line(in, "control", text)
	}
}

func (h *humanWriter) ordrsp(in string, o *edi.OrdrspSummary) {
	h.document(in, o.Document)
	if o.OrderNumber != "" {
		h.line(in, "order", safe(o.OrderNumber)+" (RFF+ON)")
	}
	var actions []string
	for _, a := range o.Actions {
		actions = append(actions, fmt.Sprintf("%d with %s", a.Lines, codedOr(a.Action, "no action code")))
	}
	lines := strconv.Itoa(o.Lines) + " (LIN)"
	if len(actions) > 0 {
		lines += ": " + strings.Join(actions, ", ")
	}
	h.line(in, "lines", lines)
	h.line(in, "changed", fmt.Sprintf("%d line(s) (action code other than 4, 5, 11 or none)", o.ChangedLines))
	for k, c := range o.Changed {
		if k == maxHumanItems {
			fmt.Fprintf(h.w, "%s  ... and %d more (b2bx parse --json lists up to 1000)\n", in, o.ChangedLines-k)
			break
		}
		text := "line " + safe(c.Line)
		if c.Item != "" {
			text += "  item " + safe(c.Item)
			if c.ItemType.Code != "" {
				text += " (" + safe(c.ItemType.Code) + ")"
			}
		}
		text += "  " + coded(c.Action)
		for _, q := range c.Quantities {
			text += "  qty " + coded(q.Qualifier) + " " + safe(q.Value)
			if q.Unit != "" {
				text += " " + safe(q.Unit)
			}
		}
		fmt.Fprintf(h.w, "%s  %s\n", in, text)
	}
	h.controls(in, o.Controls, o.Lines)
}

// codedOr is coded, or alt for an empty code.
func codedOr(c edi.Coded, alt string) string {
	return explain.CodedOr(c, alt)
}

func (h *humanWriter) aperak(in string, a *edi.AperakSummary) {
	h.document(in, a.Document)
	for _, t := range a.Texts {
		h.line(in, "text", safe(t))
	}
	h.line(in, "errors", fmt.Sprintf("%d (ERC)", a.ErrorsTotal))
	for k, e := range a.Errors {
		if k == maxHumanItems {
			fmt.Fprintf(h.w, "%s  ... and %d more\n", in, a.ErrorsTotal-k)
			break
		}
		text := "ERC " + safe(e.Code)
		if e.Name != "" {
			text += " " + e.Name
		}
		if e.CodeList != "" || e.Agency.Code != "" {
			text += " (list " + safe(e.CodeList) + ", agency " + coded(e.Agency) + ")"
		}
		for _, t := range e.Texts {
			text += ": " + safe(t)
		}
		fmt.Fprintf(h.w, "%s  %s\n", in, text)
		for _, r := range e.References {
			fmt.Fprintf(h.w, "%s    reference %s: %s\n", in, coded(r.Qualifier), safe(r.Value))
		}
	}
}

func (h *humanWriter) contrl(in string, c *edi.ContrlSummary) {
	if c.Segment < 0 {
		h.line(in, "answers", "unknown: the CONTRL has no UCI")
		return
	}
	h.line(in, "answers", fmt.Sprintf("interchange %s from %s to %s", safe(c.InterchangeRef), partyIDText(c.Sender), partyIDText(c.Recipient)))
	h.line(in, "action", actionText(c.Action, c.Verdict))
	if t := contrlErrorText(c.ContrlError); t != "" {
		h.line(in, "error", t)
	}
	h.contrlMessages(in, "", c.Messages)
	for _, g := range c.Groups {
		text := "group " + safe(g.Ref) + ": " + actionText(g.Action, g.Verdict)
		if t := contrlErrorText(g.ContrlError); t != "" {
			text += "; " + t
		}
		h.line(in, "group", text)
		h.contrlMessages(in, "  ", g.Messages)
	}
}

func (h *humanWriter) contrlMessages(in, extra string, ms []edi.ContrlMessage) {
	for _, m := range ms {
		text := fmt.Sprintf("%s %s %s:%s:%s: %s", safe(m.Ref), safe(m.Type), safe(m.Version), safe(m.Release), safe(m.Agency),
			actionText(m.Action, m.Verdict))
		if t := contrlErrorText(m.ContrlError); t != "" {
			text += "; " + t
		}
		h.line(in+extra, "message", text)
		for _, s := range m.Segments {
			text := fmt.Sprintf("segment %d of the message", s.Position)
			if s.PositionInvalid != "" {
				text = fmt.Sprintf("segment position %s (UCS 0096 is no segment number: which segment is meant is unknown)", safe(strconv.Quote(s.PositionInvalid)))
			}
			if s.SyntaxError != nil {
				text += ": " + coded(*s.SyntaxError)
			}
			fmt.Fprintf(h.w, "%s%s  %s\n", in, extra, text)
			for _, e := range s.Elements {
				text := "element " + positionText(e.Element)
				if e.SyntaxError != nil {
					text += ": " + coded(*e.SyntaxError)
				}
				fmt.Fprintf(h.w, "%s%s    %s\n", in, extra, text)
			}
		}
	}
}

func partyIDText(p edi.PartyID) string {
	return explain.PartyID(p)
}

func actionText(a edi.Coded, verdict string) string {
	return explain.Action(a, verdict)
}

// contrlErrorText shows a level's syntax error with its place, "" when
// there is none.
func contrlErrorText(e edi.ContrlError) string {
	return explain.ContrlError(e)
}

// positionText shows an S011 position as element[:component][*occurrence].
func positionText(p edi.ElementPosition) string {
	return explain.Position(p)
}
