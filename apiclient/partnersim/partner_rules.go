package partnersim

import (
	"github.com/nutrab2b/b2bx/apiclient/partnersim/edigen"
	"github.com/nutrab2b/b2bx/edi"
)

// partnerFinding is an error the simulated partner finds beyond edi's
// syntax checks: what its own inbound validation rejects although b2bx's
// pre-flight passes the interchange (so the demo and tests have an ORDERS
// that the partner's CONTRL rejects: testdata/edifact/orders_rejectable.edi).
type partnerFinding struct {
	message int // index in Document.Messages
	segment edigen.ContrlSegment
}

// partnerFindings checks interchange x the way the simulated partner's
// inbound validation does: the buyer (NAD+BY) identified as a GS1 GLN
// (C082/3055 = 9) must be 13 digits with a correct mod-10 check digit.
// A wrong one is reported like a syntax error in the value: UCS at the
// NAD's position, UCD 12 (invalid value) at element 2, component 1.
func partnerFindings(doc *edi.Document, x edi.Interchange) []partnerFinding {
	var out []partnerFinding
	for _, m := range x.Messages {
		if m.Type != "ORDERS" {
			continue
		}
		for i := m.First + 1; i < m.Last; i++ {
			s := doc.Segment(i)
			if !s.TagValid() || s.Tag() != "NAD" || s.Text(1, 1) != "BY" || s.Text(2, 3) != "9" {
				continue
			}
			if edigen.ValidGLN(s.Text(2, 1)) {
				continue
			}
			out = append(out, partnerFinding{message: m.Index, segment: edigen.ContrlSegment{
				Position: s.Number(), Elements: []edigen.ContrlElement{{Error: "12", Position: 2, Component: 1}}}})
		}
	}
	return out
}
