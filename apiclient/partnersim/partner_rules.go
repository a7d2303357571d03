package partnersim

import (
	"github.com/nutrab2b/b2bx/apiclient/partnersim/edigen"
	"github.com/nutrab2b/b2bx/edi"
)

// partnerFinding is an error the simulated partner finds beyond edi's
// checks: what its own inbound validation rejects although b2bx's
// pre-flight passes the interchange (so the demo and tests have an ORDERS
// that the partner's CONTRL rejects: testdata/edifact/orders_rejectable.edi).
// A wrong GS1 check digit is no longer one of them: edi reports it, so
// b2bx's pre-flight blocks it and the CONTRL reports it from the issues.
type partnerFinding struct {
	message int // index in Document.Messages
	segment edigen.ContrlSegment
}

// partnerFindings checks interchange x the way the simulated partner's
// inbound validation does: it takes orders only from the buyer who sends
// them, so a buyer (NAD+BY) identified by a GS1 GLN (C082/3055 = 9) must
// be the interchange's sender when the sender is a GLN too (UNB 0007 =
// 14). Another buyer (a valid GLN, so no check of edi's catches it) is
// reported like an invalid value: UCS at the NAD's position, UCD 12 at
// element 2, component 1.
func partnerFindings(doc *edi.Document, x edi.Interchange) []partnerFinding {
	if x.Sender.Qualifier != "14" || !edigen.ValidGLN(x.Sender.ID) {
		return nil
	}
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
			if gln := s.Text(2, 1); !edigen.ValidGLN(gln) || gln == x.Sender.ID {
				continue // a wrong check digit is edi's issue, already in the CONTRL
			}
			out = append(out, partnerFinding{message: m.Index, segment: edigen.ContrlSegment{
				Position: s.Number(), Elements: []edigen.ContrlElement{{Error: "12", Position: 2, Component: 1}}}})
		}
	}
	return out
}
