package pin

import (
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/mig"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Sources of the pins that are b2bx's own findings rather than an
// answer's errors.
const (
	SourceContract = "contract" // the Partner API's version rules (edi.ContractFindings)
	SourceMIG      = "MIG"      // a rule of the partner's MIG (edi/mig); Pin.Rule says which
)

// Finding reports whether p is one of b2bx's own findings (the contract,
// the partner's rules), not an error a partner's answer reported.
func (p Pin) Finding() bool { return p.Source == SourceContract || p.Source == SourceMIG }

// ContractPins are the contract findings of doc (edi.ContractFindings for
// the connection's directory, "" when unknown) as pins on each message's
// UNH, so a viewer marks them like an answer's errors.
func ContractPins(doc *edi.Document, directory string) []Pin {
	fs := edi.ContractFindings(doc, directory)
	if len(fs) == 0 {
		return nil
	}
	out := make([]Pin, 0, len(fs))
	for _, f := range fs {
		out = append(out, Pin{Source: SourceContract, Level: LevelMessage, Segment: f.Segment, Message: f.Message,
			Position: 1, Text: termsafe.String(f.Text)})
	}
	return out
}

// MIGPins are the findings of the partner's rules on doc as pins: a
// value rule's on its element (and component), a count rule's on the
// message's UNH; Rule is the rule's file:line. Nil rules: none. doc's
// bytes are read: call it inside edi.Guard for a mapped file.
func MIGPins(doc *edi.Document, rules *mig.Rules) []Pin {
	fs := rules.Check(doc)
	if len(fs) == 0 {
		return nil
	}
	out := make([]Pin, 0, len(fs))
	for _, f := range fs {
		p := Pin{Source: SourceMIG, Level: LevelMessage, Segment: f.Segment, Message: f.Message,
			Rule: termsafe.String(f.Where), Text: termsafe.String(f.Where + ": " + f.Text)}
		if e, c, ok := f.Position(doc); ok {
			p.Level, p.Element, p.Component = LevelElement, e, c
		}
		if f.Segment >= 0 && f.Message >= 0 && f.Message < len(doc.Messages) {
			p.Position = f.Segment - doc.Messages[f.Message].First + 1
		}
		out = append(out, p)
	}
	return out
}
