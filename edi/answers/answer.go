package answers

import (
	"time"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/explain"
)

// Upload is one upload the server accepted, as the upload history
// remembers it. It does not depend on the history's storage: the caller
// fills it from its records.
type Upload struct {
	Key           string    `json:"key"`                     // Idempotency-Key
	Sender        string    `json:"sender"`                  // UNB S002/0004
	Recipient     string    `json:"recipient,omitempty"`     // UNB S003/0010
	ControlRef    string    `json:"controlRef"`              // UNB 0020
	BGMNumbers    []string  `json:"bgmNumbers,omitempty"`    // BGM 1004 of every ORDERS in it
	UploadID      string    `json:"uploadId,omitempty"`      // the server's uploadId
	InterchangeID string    `json:"interchangeId,omitempty"` // the server's interchangeId
	At            time.Time `json:"at"`                      // when it was sent (this machine's clock); zero if unknown
	// ServerAt is when the server took it, on the server's clock (the
	// Date of its upload answer); zero when the answer had none. Answers
	// are dated on that clock too, so the link compares like with like.
	ServerAt time.Time `json:"serverAt,omitzero"`
	// Buyer and Supplier are the GLNs of the first ORDERS' NAD+BY and
	// NAD+SU; empty when unknown. Order numbers are unique per buyer.
	Buyer    string `json:"buyer,omitempty"`
	Supplier string `json:"supplier,omitempty"`
	// Fixes names the upload this one resends (its UploadID, else its
	// Key), "" for others: the link a fix records.
	Fixes string `json:"fixes,omitempty"`
	// Replay is true for the record of a replay (200, the same uploadId):
	// the same upload, sent again; Distinct keeps the first record's time.
	Replay bool `json:"replay,omitempty"`
}

// Answer is one CONTRL, ORDRSP or APERAK message the partner sent.
type Answer struct {
	// ID is the caller's handle for the delivery: its deliveryAttemptId,
	// or a file name.
	ID string `json:"id"`
	// At is when the answer was created (the mailbox's createdAt); zero
	// if unknown.
	At time.Time `json:"at"`
	// Received is when it was stored after its download (the clock of
	// the machine that fetched it); zero if unknown. An upload sent after
	// it cannot be the one it answers, whatever the mailbox's whole-second
	// createdAt says.
	Received time.Time `json:"received,omitzero"`
	Type     string    `json:"type"`    // CONTRL, ORDRSP or APERAK
	Message  int       `json:"message"` // index in its document's Messages
	From     string    `json:"from"`    // the answer's own UNB sender: the partner
	To       string    `json:"to"`      // the answer's own UNB recipient: us

	// CONTRL: the interchange it answers (UCI) and what the partner did.
	InterchangeRef       string    `json:"interchangeRef,omitempty"`       // UCI 0020
	InterchangeSender    string    `json:"interchangeSender,omitempty"`    // UCI S002
	InterchangeRecipient string    `json:"interchangeRecipient,omitempty"` // UCI S003
	Action               edi.Coded `json:"action,omitzero"`                // UCI 0083
	// Verdict is edi's word for the action: "acknowledged", "rejected",
	// "accepted", "received", "partly rejected" ...
	Verdict string `json:"verdict,omitempty"`

	// ORDRSP and APERAK.
	Number string `json:"number,omitempty"` // the answer's own BGM 1004
	// Refs are the order numbers it refers to: the ORDRSP's first RFF+ON,
	// the APERAK's header references (ON first).
	Refs         []string  `json:"refs,omitempty"`
	Status       edi.Coded `json:"status,omitzero"` // BGM 1225, e.g. 29, 4, 27
	Lines        int       `json:"lines,omitempty"` // ORDRSP: LIN count
	ChangedLines int       `json:"changedLines,omitempty"`
	// Errors counts what a CONTRL (explain.ContrlErrors) or an APERAK
	// (ERC groups) reports.
	Errors int `json:"errors,omitempty"`
	// FirstError is an APERAK's first error: code and text.
	FirstError string `json:"firstError,omitempty"`
	// Buyer and Supplier are the GLNs of an ORDRSP's or APERAK's NAD+BY
	// and NAD+SU; empty when it has none.
	Buyer    string `json:"buyer,omitempty"`
	Supplier string `json:"supplier,omitempty"`
}

// OrdersParties returns the buyer and supplier GLNs (NAD+BY, NAD+SU) of
// the first ORDERS in doc, for Upload.Buyer and Upload.Supplier.
func OrdersParties(doc *edi.Document) (buyer, supplier string) {
	for i := range doc.Messages {
		if s := doc.Messages[i].Summary(); s != nil && s.Orders != nil {
			return parties(&s.Orders.Document)
		}
	}
	return "", ""
}

// FromDocument returns the answers in a parsed payload: one per CONTRL,
// ORDRSP or APERAK message, in order. id and at are the delivery's
// handle and creation time. The answers hold copies: they stay valid
// after the document's input is released.
func FromDocument(doc *edi.Document, id string, at time.Time) []Answer {
	sums := make([]*edi.Summary, len(doc.Messages))
	for i := range doc.Messages {
		sums[i] = doc.Messages[i].Summary()
	}
	return FromSummaries(doc, sums, id, at)
}

// FromSummaries is FromDocument with each message's summary given
// (sums[i] is doc.Messages[i].Summary(), which a caller that needs them
// too computes once: an ORDRSP of many lines takes milliseconds).
func FromSummaries(doc *edi.Document, sums []*edi.Summary, id string, at time.Time) []Answer {
	var out []Answer
	for i := range doc.Messages {
		m := &doc.Messages[i]
		s := sums[i]
		if s == nil {
			continue
		}
		a := Answer{ID: id, At: at, Type: m.Type, Message: i}
		if m.Interchange >= 0 && m.Interchange < len(doc.Interchanges) {
			x := &doc.Interchanges[m.Interchange]
			a.From, a.To = x.Sender.ID, x.Recipient.ID
		}
		switch {
		case s.Contrl != nil:
			fromContrl(&a, s.Contrl)
		case s.Ordrsp != nil:
			fromOrdrsp(&a, s.Ordrsp)
		case s.Aperak != nil:
			fromAperak(&a, s.Aperak)
		default:
			continue
		}
		out = append(out, a)
	}
	return out
}

func fromContrl(a *Answer, c *edi.ContrlSummary) {
	a.InterchangeRef = c.InterchangeRef
	a.InterchangeSender, a.InterchangeRecipient = c.Sender.ID, c.Recipient.ID
	a.Action, a.Verdict = c.Action, c.Verdict
	a.Errors = explain.ContrlErrors(c)
}

// parties returns the IDs of the document's NAD+BY and NAD+SU (the
// first of each).
func parties(d *edi.DocumentSummary) (buyer, supplier string) {
	for _, p := range d.Parties {
		switch p.Role.Code {
		case "BY":
			if buyer == "" {
				buyer = p.ID
			}
		case "SU":
			if supplier == "" {
				supplier = p.ID
			}
		}
	}
	return buyer, supplier
}

func fromOrdrsp(a *Answer, o *edi.OrdrspSummary) {
	a.Number, a.Status = o.Document.Number, o.Document.Function
	a.Buyer, a.Supplier = parties(&o.Document)
	if o.OrderNumber != "" {
		a.Refs = []string{o.OrderNumber}
	}
	a.Lines, a.ChangedLines = o.Lines, o.ChangedLines
}

func fromAperak(a *Answer, p *edi.AperakSummary) {
	a.Number, a.Status = p.Document.Number, p.Document.Function
	a.Buyer, a.Supplier = parties(&p.Document)
	for _, r := range p.Document.References {
		if r.Qualifier.Code == "ON" && r.Value != "" {
			a.Refs = append(a.Refs, r.Value)
		}
	}
	for _, r := range p.Document.References {
		if r.Qualifier.Code != "ON" && r.Value != "" {
			a.Refs = append(a.Refs, r.Value)
		}
	}
	a.Errors = p.ErrorsTotal
	if len(p.Errors) > 0 {
		e := p.Errors[0]
		a.FirstError = e.Code
		if len(e.Texts) > 0 {
			a.FirstError += ": " + e.Texts[0]
		}
	}
}
