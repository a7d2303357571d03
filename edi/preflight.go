package edi

import (
	"bytes"
	"fmt"
	"strings"
)

// OrdersFacts is what an ORDERS upload needs from its payload: the parsed
// document and the values idempotency keys are built from.
type OrdersFacts struct {
	Doc                *Document
	SenderID           string // UNB S002/0004
	SenderQualifier    string // UNB S002/0007
	RecipientID        string // UNB S003/0010
	RecipientQualifier string // UNB S003/0007
	ControlRef         string // UNB 0020 interchange control reference
	Messages           []OrderFact
}

// OrderFact describes one ORDERS message of the interchange.
type OrderFact struct {
	Ref       string // UNH 0062 message reference
	DocNumber string // BGM document number (data element 1004), "" when absent
}

// PreflightKind classifies why a payload cannot be uploaded.
type PreflightKind string

// Reasons a pre-flight check fails.
const (
	PreflightEmpty            PreflightKind = "empty"          // no bytes, or only layout
	PreflightTooLarge         PreflightKind = "too-large"      // 4 GiB or more
	PreflightNoInterchange    PreflightKind = "no-interchange" // no UNB
	PreflightManyInterchanges PreflightKind = "many-interchanges"
	PreflightNoMessages       PreflightKind = "no-messages"
	PreflightNotOrders        PreflightKind = "not-orders" // a message of another type
	PreflightEnvelope         PreflightKind = "envelope"   // error-severity issues
	PreflightNoDocNumber      PreflightKind = "no-document-number"
)

// PreflightError explains why a payload is not exactly one clean
// interchange of ORDERS messages. Its message says what is wrong and what
// to do; it may quote values from the file, so sanitise it for display.
type PreflightError struct {
	Kind   PreflightKind
	Detail string  // the human explanation (what Error returns)
	Issues []Issue // for PreflightEnvelope: the error-severity issues
}

// Error returns the explanation.
func (e *PreflightError) Error() string { return "edi pre-flight: " + e.Detail }

func preflightErr(kind PreflightKind, format string, args ...any) *PreflightError {
	return &PreflightError{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

// maxListedIssues bounds how many issues a PreflightEnvelope message lists.
const maxListedIssues = 3

// PreflightOrders checks that data is exactly one parseable interchange
// holding only ORDERS messages and extracts what idempotency keys need.
// Every failure is a *PreflightError. Warnings (for example lower-case
// letters in UNOA) do not fail the check; errors do. The size limit of
// the upload endpoint is the caller's business.
func PreflightOrders(data []byte) (*OrdersFacts, error) {
	if len(bytes.Trim(data, "\r\n\t \x00")) == 0 {
		return nil, preflightErr(PreflightEmpty, "the file is empty (%d bytes, no EDIFACT data); choose the ORDERS interchange to upload", len(data))
	}
	doc, err := Parse(data)
	if err != nil {
		return nil, &PreflightError{Kind: PreflightTooLarge, Detail: err.Error()}
	}
	if err := checkInterchanges(doc); err != nil {
		return nil, err
	}
	ic := &doc.Interchanges[0]
	for _, m := range ic.Messages {
		if m.Type != "ORDERS" {
			return nil, preflightErr(PreflightNotOrders,
				"message %d (reference %q, UNH at segment %d) is %q, not ORDERS; only ORDERS can be uploaded to the inbox — remove the other messages or upload the right file",
				m.Index+1, m.Ref, m.First, m.Type)
		}
	}
	if errs := errorIssues(doc); len(errs) > 0 {
		return nil, envelopeError(errs)
	}
	facts := &OrdersFacts{
		Doc: doc, SenderID: ic.Sender.ID, SenderQualifier: ic.Sender.Qualifier,
		RecipientID: ic.Recipient.ID, RecipientQualifier: ic.Recipient.Qualifier,
		ControlRef: ic.ControlRef,
	}
	for _, m := range ic.Messages {
		facts.Messages = append(facts.Messages, OrderFact{Ref: m.Ref, DocNumber: bgmNumber(doc, m)})
	}
	if len(facts.Messages) == 1 && facts.Messages[0].DocNumber == "" {
		m := ic.Messages[0]
		return nil, preflightErr(PreflightNoDocNumber,
			"ORDERS message %q has no BGM document number (BGM element 2, data element 1004), which the idempotency key needs; add it or pass an explicit key",
			m.Ref)
	}
	return facts, nil
}

func checkInterchanges(doc *Document) error {
	var withUNB, bare int
	for _, ic := range doc.Interchanges {
		if ic.HasUNB {
			withUNB++
		} else {
			bare++
		}
	}
	switch {
	case withUNB == 0 && len(doc.Messages) > 0:
		return preflightErr(PreflightNoInterchange,
			"the file has %d message(s) but no interchange envelope (no UNB ... UNZ); the inbox accepts exactly one complete interchange — wrap the messages in UNB/UNZ", len(doc.Messages))
	case withUNB == 0:
		return preflightErr(PreflightNoInterchange,
			"the file contains no EDIFACT interchange (no UNB segment found); choose the ORDERS interchange to upload")
	case withUNB > 1:
		return preflightErr(PreflightManyInterchanges,
			"the file contains %d interchanges; the inbox accepts exactly one per upload — split the file at each UNB and upload them one by one", withUNB)
	case bare > 0:
		return preflightErr(PreflightManyInterchanges,
			"the file holds segments outside its interchange (before UNB or after UNZ); the inbox accepts exactly one interchange and nothing else — remove the extra data")
	case len(doc.Interchanges[0].Messages) == 0:
		return preflightErr(PreflightNoMessages,
			"the interchange %q contains no messages; there is no order to upload", doc.Interchanges[0].ControlRef)
	}
	return nil
}

func errorIssues(doc *Document) []Issue {
	var errs []Issue
	for _, is := range doc.Issues() {
		if is.Severity == SeverityError {
			errs = append(errs, is)
		}
	}
	return errs
}

func envelopeError(errs []Issue) *PreflightError {
	var b strings.Builder
	fmt.Fprintf(&b, "the interchange has %d error(s); fix them before uploading (b2bx parse FILE shows all):", len(errs))
	for k, is := range errs {
		if k == maxListedIssues {
			fmt.Fprintf(&b, " ... and %d more", len(errs)-k)
			break
		}
		fmt.Fprintf(&b, " [%s at segment %d, offset %d: %s]", is.Code, is.Segment, is.Offset, is.Message)
	}
	return &PreflightError{Kind: PreflightEnvelope, Detail: b.String(), Issues: errs}
}

// bgmNumber reads the document number of message m: BGM element 2,
// component 1, which is the simple element 1004 in D.96A and the first
// component of C106 from D.01B on.
func bgmNumber(doc *Document, m Message) string {
	for i := m.First + 1; i <= m.Last; i++ {
		if r := doc.segs[i]; r.tag == [3]byte{'B', 'G', 'M'} && r.flags&fBadTag == 0 {
			return doc.Segment(i).Text(2, 1)
		}
	}
	return ""
}
