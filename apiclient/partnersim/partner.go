package partnersim

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/partnersim/edigen"
	"github.com/nutrab2b/b2bx/edi"
)

// DefaultResponder answers an upload like a trading partner would. It
// parses the interchange with edi and sends a CONTRL (2:2 under syntax
// version 3, 4:1 under 4) that acknowledges it (UCI action 7) or, when edi
// finds error-severity issues or a message is not ORDERS, rejects it (4)
// with a UCM per affected message and UCS/UCD entries giving the segment
// position, element/component position and the 0085 syntax error code.
// For an accepted interchange it also sends one ORDRSP per ORDERS,
// referencing the order (RFF+ON with its BGM number) and answering the
// same lines (same LIN numbers and items) the way real partners do: most
// orders are accepted as ordered, some amended in one line (a quantity
// short-shipped, a price changed, a line rejected, a later delivery
// date), chosen deterministically from the BGM number (see amend). A body
// without an interchange header gets no answer: there is nobody to
// address it to.
type DefaultResponder struct {
	// OrdrspAfter delays the ORDRSPs beyond the CONTRL.
	OrdrspAfter time.Duration
}

// Respond implements Responder.
func (r DefaultResponder) Respond(u Upload) []Reply {
	doc, err := edi.Parse(u.Payload)
	if err != nil {
		return nil
	}
	ic := -1
	for i, x := range doc.Interchanges {
		if x.HasUNB {
			ic = i
			break
		}
	}
	if ic < 0 {
		return nil
	}
	x := doc.Interchanges[ic]
	c := contrlFor(doc, x)
	env := replyEnvelope(u, x, "")
	env.Syntax = 3
	if x.SyntaxVersion == 4 {
		env.Syntax = 4
	}
	replies := []Reply{{MessageType: "CONTRL", Payload: edigen.ContrlMsg(env, c)}}
	if c.Action != edigen.ActionAcknowledged {
		return replies
	}
	for i, m := range x.Messages {
		o := orderFrom(doc, m)
		dir := edigen.D96A
		if m.Release == "25A" {
			dir = edigen.D25A
		}
		env := replyEnvelope(u, x, strconv.Itoa(i+1))
		rsp := edigen.Response{Number: "RSP-" + o.Number, Date: u.ReceivedAt.UTC(), Order: o}
		rsp.Answers, rsp.Status, _ = amend(o)
		body := edigen.Ordrsp(dir, env, rsp)
		if len(body) > MaxPayloadSize { // every payload stays within 16 MiB: accept in the header only
			rsp.Order.Lines, rsp.Answers, rsp.Status = nil, nil, edigen.StatusAccepted
			body = edigen.Ordrsp(dir, env, rsp)
		}
		replies = append(replies, Reply{MessageType: "ORDRSP", Payload: body, After: r.OrdrspAfter})
	}
	return replies
}

// replyEnvelope addresses a reply back to the upload's sender; the control
// reference is derived from the upload id (and salt) so it is stable.
func replyEnvelope(u Upload, x edi.Interchange, salt string) edigen.Envelope {
	sum := sha256.Sum256([]byte(u.ID + "/" + salt))
	ref := fmt.Sprintf("%09d", binary.BigEndian.Uint64(sum[:8])%1_000_000_000)
	return edigen.Envelope{Sender: x.Recipient.ID, Recipient: x.Sender.ID, ControlRef: ref, Prepared: u.ReceivedAt.UTC()}
}

// contrlFor builds the CONTRL for interchange x from edi's error issues.
func contrlFor(doc *edi.Document, x edi.Interchange) edigen.Contrl {
	c := edigen.Contrl{
		InterchangeRef: x.ControlRef, Sender: x.Sender.ID, SenderQual: x.Sender.Qualifier,
		Recipient: x.Recipient.ID, RecipientQual: x.Recipient.Qualifier, Action: edigen.ActionAcknowledged,
	}
	msgs := map[int]*edigen.ContrlMessage{} // by Document message index
	var order []int
	ucm := func(mi int) *edigen.ContrlMessage {
		if m, ok := msgs[mi]; ok {
			return m
		}
		dm := doc.Messages[mi]
		m := &edigen.ContrlMessage{Ref: dm.Ref, Type: dm.Type, Version: dm.Version, Release: dm.Release,
			Agency: dm.Agency, Assoc: dm.Association, Action: edigen.ActionRejected}
		msgs[mi] = m
		order = append(order, mi)
		return m
	}
	for _, is := range doc.Issues() {
		if is.Severity != edi.SeverityError || (is.Segment >= 0 && doc.InterchangeOf(is.Segment) != x.Index) {
			continue
		}
		c.Action = edigen.ActionRejected
		code := syntaxCode(is.SyntaxError)
		mi := -1
		if is.Segment >= 0 {
			mi = doc.MessageOf(is.Segment)
		}
		if mi < 0 { // UNA/UNB/UNZ or bytes outside messages: the interchange itself
			if c.Error == "" {
				c.Error = code
			}
			continue
		}
		m := ucm(mi)
		seg := doc.Segment(is.Segment)
		if tag := seg.Tag(); tag == "UNH" || tag == "UNT" { // errors in UNH/UNT belong to the UCM
			if m.Error == "" {
				m.Error = code
			}
			continue
		}
		cs := edigen.ContrlSegment{Position: seg.Number(), Error: code}
		if el, comp := elementAt(seg, is.Offset); el > 0 {
			cs.Error = ""
			cs.Elements = []edigen.ContrlElement{{Error: code, Position: el, Component: comp}}
		}
		m.Segments = append(m.Segments, cs)
	}
	for _, f := range partnerFindings(doc, x) { // partner_rules.go
		c.Action = edigen.ActionRejected
		m := ucm(f.message)
		m.Segments = append(m.Segments, f.segment)
	}
	for _, dm := range x.Messages {
		if dm.Type != "ORDERS" {
			c.Action = edigen.ActionRejected
			ucm(dm.Index)
		}
	}
	for _, mi := range order {
		c.Messages = append(c.Messages, *msgs[mi])
	}
	return c
}

// syntaxCode renders a 0085 code; 0 (none applies) stays empty.
func syntaxCode(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// elementAt finds the data element (1-based) and component (1-based, 0
// for a simple element) holding byte offset off of seg; 0, 0 when off is
// in the tag or outside the segment.
func elementAt(seg edi.Segment, off int) (int, int) {
	n := seg.ElementCount()
	el := 0
	for e := 1; e <= n; e++ {
		if seg.ElementOffset(e) <= off {
			el = e
		}
	}
	if el == 0 {
		return 0, 0
	}
	raw := seg.Raw()
	sep := seg.Separators()
	start, end := seg.ElementOffset(el)-seg.Offset(), off-seg.Offset()
	if start < 0 || end > len(raw) || start > end {
		return el, 0
	}
	comp := 1
	for i := start; i < end; i++ {
		switch {
		case sep.HasRelease && raw[i] == sep.Release:
			i++
		case raw[i] == sep.Component:
			comp++
		}
	}
	if comp == 1 && seg.Element(el).ComponentCount() <= 1 {
		return el, 0
	}
	return el, comp
}
