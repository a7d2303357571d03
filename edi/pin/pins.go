package pin

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/explain"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Level says how precisely an answer names the place of an error.
type Level string

// Levels, from the whole interchange down to one data element.
const (
	LevelInterchange Level = "interchange" // UCI: the interchange (UNA, UNB, UNZ)
	LevelMessage     Level = "message"     // UCM, or an APERAK error without a line
	LevelSegment     Level = "segment"     // UCS: one segment
	LevelElement     Level = "element"     // UCD: one data element (component)
)

// Pin is one error of an answer placed on the ORDERS it answers.
type Pin struct {
	// Source is "CONTRL" or "APERAK".
	Source string `json:"source"`
	Level  Level  `json:"level"`
	// Segment is the index in the ORDERS document of the segment the
	// error names (UNB for an interchange error without a service
	// segment, UNH for a message error); -1 when the answer names a
	// place the ORDERS does not have (see Text).
	Segment int `json:"segment"`
	// Message is the index in the document's Messages, -1 for an
	// interchange-level error.
	Message int `json:"message"`
	// Position is the segment's position in its message as the CONTRL
	// counts it (UNH = 1), 0 for service segments outside a message.
	Position int `json:"position,omitempty"`
	// Element and Component are the 1-based S011 position (0: none).
	Element   int `json:"element,omitempty"`
	Component int `json:"component,omitempty"`
	// Code is the syntax error code (0085) or the APERAK error code
	// (9321); "" when the answer gives none (a rejection without a code).
	Code string `json:"code,omitempty"`
	// Text is the error in words, terminal-safe: what, where, the value.
	Text string `json:"text"`
	// Rule is where the partner rule of a MIG pin is written
	// ("acme.toml:12"); "" for the other pins.
	Rule string `json:"rule,omitempty"`
}

// ErrOtherInterchange: the CONTRL answers an interchange the ORDERS
// document does not hold.
var ErrOtherInterchange = errors.New("the CONTRL answers another interchange")

// Pins returns the errors of every CONTRL and APERAK message in answer
// placed on orders, in the answer's order. A CONTRL that answers another
// interchange (and an APERAK referring to none of the orders' BGM
// numbers) adds no pins; err is ErrOtherInterchange only when answer
// holds CONTRLs and none of them answers orders.
func Pins(orders, answer *edi.Document) ([]Pin, error) {
	var out []Pin
	contrls, matched := 0, 0
	for i := range answer.Messages {
		s := answer.Messages[i].Summary()
		switch {
		case s == nil:
		case s.Contrl != nil:
			contrls++
			p, err := ContrlPins(orders, s.Contrl)
			if err == nil {
				matched++
				out = append(out, p...)
			}
		case s.Aperak != nil:
			out = append(out, AperakPins(orders, s.Aperak)...)
		}
	}
	if contrls > 0 && matched == 0 {
		return out, ErrOtherInterchange
	}
	return out, nil
}

// ContrlPins places a CONTRL's errors on the interchange of orders it
// answers (UCI 0020 = UNB 0020, and the UCI sender when it names one):
//
//   - UCI: a syntax error, or action 4/6 (rejected) when no message
//     response says why: a pin on the service segment it names (UNB when
//     it names none), element S011;
//   - UCM: an error, or action 4/6 without segment errors: a pin on the
//     message's UNH (or the UNT it names), matched by the UNH reference
//     (0062);
//   - UCS: a pin on segment 0096 of that message (UNH = 1);
//   - UCD: a pin on the element and component S011 of that segment.
//
// A position outside the message is pinned on its UNH with a text
// saying so, never dropped.
func ContrlPins(orders *edi.Document, c *edi.ContrlSummary) ([]Pin, error) {
	ic := interchangeFor(orders, c)
	if ic == nil {
		return nil, fmt.Errorf("%w: the CONTRL answers interchange %s from %s; the ORDERS holds %s", ErrOtherInterchange,
			termsafe.String(c.InterchangeRef), termsafe.String(c.Sender.ID), refsOf(orders))
	}
	var out []Pin
	if hasError(c.ContrlError) || (rejects(c.Action.Code) && len(c.Messages) == 0 && len(c.Groups) == 0) {
		seg := serviceSegment(orders, ic, c.ServiceSegment)
		p := Pin{Source: "CONTRL", Level: LevelInterchange, Segment: seg, Message: -1}
		p.Code, p.Element, p.Component = codeOf(c.SyntaxError), elementOf(c.Element), componentOf(c.Element)
		p.Text = "interchange " + termsafe.String(c.InterchangeRef) + " " + explain.Action(c.Action, c.Verdict) + errorWords(c.ContrlError)
		if p.Element > 0 {
			p.Level = LevelElement
			p.Text += valueWords(orders, seg, p.Element, p.Component)
		}
		out = append(out, p)
	}
	msgs := append([]edi.ContrlMessage(nil), c.Messages...)
	for _, g := range c.Groups {
		msgs = append(msgs, g.Messages...)
	}
	for _, cm := range msgs {
		out = append(out, messagePins(orders, ic, cm)...)
	}
	return out, nil
}

// interchangeFor finds the interchange a CONTRL answers.
func interchangeFor(orders *edi.Document, c *edi.ContrlSummary) *edi.Interchange {
	for i := range orders.Interchanges {
		x := &orders.Interchanges[i]
		if x.HasUNB && x.ControlRef == c.InterchangeRef && (c.Sender.ID == "" || c.Sender.ID == x.Sender.ID) {
			return x
		}
	}
	return nil
}

func refsOf(orders *edi.Document) string {
	var refs []string
	for _, x := range orders.Interchanges {
		if x.HasUNB {
			refs = append(refs, termsafe.String(x.ControlRef)+" from "+termsafe.String(x.Sender.ID))
		}
	}
	if len(refs) == 0 {
		return "no interchange"
	}
	return "interchange " + strings.Join(refs, ", ")
}

// messagePins places one UCM and its UCS/UCD.
func messagePins(orders *edi.Document, ic *edi.Interchange, cm edi.ContrlMessage) []Pin {
	m := messageFor(orders, ic, cm.Ref)
	what := "message " + termsafe.String(cm.Ref)
	if cm.Type != "" {
		what += " (" + termsafe.String(cm.Type) + ")"
	}
	if m == nil {
		if !rejects(cm.Action.Code) && !hasError(cm.ContrlError) && len(cm.Segments) == 0 {
			return nil
		}
		return []Pin{{Source: "CONTRL", Level: LevelMessage, Segment: -1, Message: -1, Code: codeOf(cm.SyntaxError),
			Text: what + " " + explain.Action(cm.Action, cm.Verdict) + errorWords(cm.ContrlError) + "; the ORDERS has no message with that reference"}}
	}
	var out []Pin
	if hasError(cm.ContrlError) || (rejects(cm.Action.Code) && len(cm.Segments) == 0) {
		seg := m.First
		if strings.EqualFold(cm.ServiceSegment, "UNT") {
			seg = m.Last
		}
		p := Pin{Source: "CONTRL", Level: LevelMessage, Segment: seg, Message: m.Index, Position: seg - m.First + 1,
			Code: codeOf(cm.SyntaxError), Element: elementOf(cm.Element), Component: componentOf(cm.Element)}
		p.Text = what + " " + explain.Action(cm.Action, cm.Verdict) + errorWords(cm.ContrlError)
		if p.Element > 0 {
			p.Level = LevelElement
			p.Text += valueWords(orders, seg, p.Element, p.Component)
		}
		out = append(out, p)
	}
	for _, us := range cm.Segments {
		seg, inside := m.First+us.Position-1, us.Position >= 1 && m.First+us.Position-1 <= m.Last
		base := Pin{Source: "CONTRL", Level: LevelSegment, Segment: seg, Message: m.Index, Position: us.Position}
		if !inside {
			base.Segment = m.First
			base.Text = fmt.Sprintf("segment position %d of %s: the message has %d segments", us.Position, what, m.Last-m.First+1)
		} else {
			base.Text = segmentWords(orders, seg, us.Position)
		}
		if us.SyntaxError != nil || len(us.Elements) == 0 {
			p := base
			p.Code = codeOf(us.SyntaxError)
			p.Text = "error" + codeWords(us.SyntaxError) + " in " + base.Text
			out = append(out, p)
		}
		for _, ud := range us.Elements {
			p := base
			p.Level, p.Code = LevelElement, codeOf(ud.SyntaxError)
			p.Element, p.Component = ud.Element.Element, ud.Element.Component
			p.Text = "error" + codeWords(ud.SyntaxError) + " in " + base.Text + ", element " + explain.Position(ud.Element)
			if inside {
				p.Text += valueWords(orders, seg, p.Element, p.Component)
			}
			out = append(out, p)
		}
	}
	return out
}

// messageFor finds the message with UNH reference ref in ic; the only
// message when ref is empty.
func messageFor(orders *edi.Document, ic *edi.Interchange, ref string) *edi.Message {
	for i := range ic.Messages {
		if m := &ic.Messages[i]; m.Ref == ref || (ref == "" && len(ic.Messages) == 1) {
			return &orders.Messages[m.Index]
		}
	}
	return nil
}

// serviceSegment is the index of the interchange's UNA, UNB or UNZ (the
// UNB for any other or no tag).
func serviceSegment(orders *edi.Document, ic *edi.Interchange, tag string) int {
	first, last := ic.First, ic.Last
	want := strings.ToUpper(tag)
	if want != "UNA" && want != "UNZ" {
		want = "UNB"
	}
	if want == "UNZ" {
		for i := last; i >= first; i-- {
			if orders.Segment(i).Tag() == "UNZ" {
				return i
			}
		}
	}
	for i := first; i <= last && i <= first+1; i++ {
		s := orders.Segment(i)
		if (want == "UNA") == s.IsUNA() && (s.IsUNA() || s.Tag() == "UNB") {
			return i
		}
	}
	return first
}

// segmentWords names a segment: "NAD (Name and address) at position 5".
func segmentWords(orders *edi.Document, seg, pos int) string {
	info := orders.Describe(seg)
	s := termsafe.String(info.Tag)
	if info.Name != "" {
		s += " (" + info.Name + ")"
	}
	return s + " at position " + strconv.Itoa(pos)
}

// valueWords names the value at element el, component comp of segment
// seg: ` C082.3039 Party identifier, value "4012345000085"`.
func valueWords(orders *edi.Document, seg, el, comp int) string {
	if seg < 0 || seg >= orders.Len() {
		return ""
	}
	info := orders.Describe(seg)
	for _, f := range info.Fields {
		if f.Element != el || f.Repetition != 0 || (f.Component != comp && !(comp <= 1 && f.Component <= 1)) {
			continue
		}
		s := " ("
		if f.Ref != "" {
			s += f.Ref + " "
		}
		return s + explain.FieldName(f) + `): value "` + f.Display() + `"`
	}
	return " (empty)"
}

func codeWords(c *edi.Coded) string {
	if c == nil {
		return ""
	}
	return " " + explain.Coded(*c)
}

func errorWords(e edi.ContrlError) string {
	if s := explain.ContrlError(e); s != "" {
		return ": " + s
	}
	return ""
}

func codeOf(c *edi.Coded) string {
	if c == nil {
		return ""
	}
	return c.Code
}

func elementOf(p *edi.ElementPosition) int {
	if p == nil {
		return 0
	}
	return p.Element
}

func componentOf(p *edi.ElementPosition) int {
	if p == nil {
		return 0
	}
	return p.Component
}

func hasError(e edi.ContrlError) bool {
	return e.SyntaxError != nil || e.ServiceSegment != "" || e.Element != nil
}

// rejects reports a 0083 action that rejects the level: 4 (this level
// and all lower levels rejected) or 6 (rejected, errors not listed).
func rejects(action string) bool { return action == "4" || action == "6" }
