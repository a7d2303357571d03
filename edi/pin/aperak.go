package pin

import (
	"strings"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// AperakPins places an APERAK's application errors (ERC groups) on the
// ORDERS message it answers: the one whose BGM document number is one of
// the APERAK's header references (RFF+ON first, then the others, e.g.
// ACW). An error pins the LIN of the line it names — an RFF+LI (line
// number) in its group, or an item number of a LIN quoted in its text —
// else the message's BGM. An APERAK that refers to none of the orders'
// numbers adds no pins.
func AperakPins(orders *edi.Document, a *edi.AperakSummary) []Pin {
	m := aperakMessage(orders, a)
	if m == nil {
		return nil
	}
	bgm := findTag(orders, m, "BGM")
	out := make([]Pin, 0, len(a.Errors))
	for _, e := range a.Errors {
		p := Pin{Source: "APERAK", Level: LevelMessage, Segment: bgm, Message: m.Index, Code: e.Code}
		text := "APERAK error " + termsafe.String(e.Code)
		if e.Name != "" {
			text += " " + e.Name
		}
		if len(e.Texts) > 0 {
			text += ": " + termsafe.String(strings.Join(e.Texts, " "))
		}
		if lin, why := aperakLine(orders, m, e); lin >= 0 {
			p.Segment, p.Level = lin, LevelSegment
			text += " (line " + why + ")"
		}
		if p.Segment >= 0 {
			p.Position = p.Segment - m.First + 1
		}
		p.Text = text
		out = append(out, p)
	}
	return out
}

// aperakMessage is the ORDERS message whose BGM number the APERAK
// refers to, ON references first.
func aperakMessage(orders *edi.Document, a *edi.AperakSummary) *edi.Message {
	refs := a.Document.References
	for _, onFirst := range []bool{true, false} {
		for _, r := range refs {
			if (r.Qualifier.Code == "ON") != onFirst || r.Value == "" {
				continue
			}
			for i := range orders.Messages {
				m := &orders.Messages[i]
				if m.Type == "ORDERS" && bgmNumber(orders, m) == r.Value {
					return m
				}
			}
		}
	}
	return nil
}

// aperakLine finds the LIN an error names and says how: "2, RFF+LI" or
// "1, item 4000862141411"; -1 when it names none.
func aperakLine(orders *edi.Document, m *edi.Message, e edi.AppError) (int, string) {
	for _, r := range e.References {
		if r.Qualifier.Code != "LI" || r.Value == "" {
			continue
		}
		for i := m.First; i <= m.Last; i++ {
			if s := orders.Segment(i); s.TagValid() && s.Tag() == "LIN" && s.Text(1, 1) == r.Value {
				return i, termsafe.String(r.Value) + ", RFF+LI"
			}
		}
	}
	text := strings.Join(e.Texts, " ")
	if text == "" {
		return -1, ""
	}
	for i := m.First; i <= m.Last; i++ {
		s := orders.Segment(i)
		if !s.TagValid() || s.Tag() != "LIN" {
			continue
		}
		if item := s.Text(3, 1); len(item) >= 4 && strings.Contains(text, item) {
			return i, termsafe.String(s.Text(1, 1)) + ", item " + termsafe.String(item)
		}
	}
	return -1, ""
}

// bgmNumber is BGM element 2, component 1 of message m ("" without).
func bgmNumber(orders *edi.Document, m *edi.Message) string {
	if i := findTag(orders, m, "BGM"); i >= 0 {
		return orders.Segment(i).Text(2, 1)
	}
	return ""
}

// findTag is the index of the first segment with tag in m, -1 without.
func findTag(orders *edi.Document, m *edi.Message, tag string) int {
	for i := m.First; i <= m.Last; i++ {
		if s := orders.Segment(i); s.TagValid() && s.Tag() == tag {
			return i
		}
	}
	return -1
}
