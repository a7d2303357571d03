package partnersim

import (
	"fmt"
	"slices"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/partnersim/edigen"
	"github.com/nutrab2b/b2bx/edi"
)

// StoryResponder is a partner with a few scripted business outcomes, for
// demos and tests of tracking: an upload carrying an order number listed
// in Reject gets a CONTRL rejecting that message (as if the partner's
// system refused its BGM: UCS for segment 2, error 12 "invalid value"),
// one listed in Silent gets no answer at all (it will be overdue), every
// other upload is answered by Next (nil: DefaultResponder).
type StoryResponder struct {
	Reject []string
	Silent []string
	Next   Responder
}

// DemoRejected and DemoSilent are the order numbers `b2bx demo`'s partner
// rejects and leaves unanswered.
const (
	DemoRejected = "PO-4712"
	DemoSilent   = "PO-4713"
)

// DemoStories is the partner of `b2bx demo`.
func DemoStories() StoryResponder {
	return StoryResponder{Reject: []string{DemoRejected}, Silent: []string{DemoSilent}}
}

// Respond implements Responder.
func (r StoryResponder) Respond(u Upload) []Reply {
	next := r.Next
	if next == nil {
		next = DefaultResponder{}
	}
	doc, err := edi.Parse(u.Payload)
	if err != nil || len(doc.Interchanges) == 0 {
		return next.Respond(u)
	}
	x := doc.Interchanges[0]
	var rejected []edigen.ContrlMessage
	silent := false
	for _, m := range x.Messages {
		s := m.Summary()
		if s == nil || s.Orders == nil {
			continue
		}
		n := s.Orders.Document.Number
		if slices.Contains(r.Silent, n) {
			silent = true
		}
		if slices.Contains(r.Reject, n) {
			rejected = append(rejected, edigen.ContrlMessage{Ref: m.Ref, Type: m.Type, Version: m.Version, Release: m.Release,
				Agency: m.Agency, Assoc: m.Association, Action: edigen.ActionRejected,
				Segments: []edigen.ContrlSegment{{Position: 2, Elements: []edigen.ContrlElement{{Error: "12", Position: 2}}}}})
		}
	}
	switch {
	case silent:
		return nil
	case len(rejected) > 0:
		env := replyEnvelope(u, x, "")
		env.Syntax = 3
		c := edigen.Contrl{InterchangeRef: x.ControlRef, Sender: x.Sender.ID, SenderQual: x.Sender.Qualifier,
			Recipient: x.Recipient.ID, RecipientQual: x.Recipient.Qualifier, Action: edigen.ActionRejected, Messages: rejected}
		return []Reply{{MessageType: "CONTRL", Payload: edigen.ContrlMsg(env, c)}}
	}
	return next.Respond(u)
}

// DemoOrders are the ORDERS `b2bx demo` offers to upload, by file name:
// PO-4711 (answered with a CONTRL and an ORDRSP), PO-4712 (the partner's
// CONTRL rejects it) and PO-4713 (never answered: overdue once the
// profile's sla.contrl has passed). Each is valid and has its own
// interchange control reference.
func DemoOrders(at time.Time) map[string][]byte {
	buyer := edigen.Party{GLN: "4012345000009", Name: "Nordwerk Einkauf GmbH", City: "Köln", PostCode: "50667", Country: "DE"}
	supplier := edigen.Party{GLN: "4098765000003", Name: "ACME Supplies", City: "Wien", PostCode: "1010", Country: "AT"}
	out := map[string][]byte{}
	for i, n := range []string{"PO-4711", DemoRejected, DemoSilent} {
		env := edigen.Envelope{Syntax: 3, Sender: buyer.GLN, Recipient: supplier.GLN, ControlRef: fmt.Sprintf("DEMO%06d", 4711+i), Prepared: at.UTC()}
		o := edigen.Order{Ref: "1", Number: n, Date: at.UTC(), Delivery: at.UTC().Add(7 * 24 * time.Hour), Buyer: buyer, Supplier: supplier, DeliverTo: buyer,
			Currency: "EUR", Lines: []edigen.Line{
				{GTIN: "4000862141404", Description: "Schrauben M6", Qty: 100 + 10*i, Unit: "PCE", PriceCents: 12},
				{GTIN: "4000862141411", Description: "Muttern M6", Qty: 50, Unit: "PCE", PriceCents: 5},
			}}
		out[n+".edi"] = edigen.Orders(edigen.D96A, env, o)
	}
	return out
}
