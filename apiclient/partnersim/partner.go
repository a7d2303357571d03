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
// referencing the order (RFF+ON with its BGM number) and confirming the
// same lines. A body without an interchange header gets no answer: there
// is nobody to address it to.
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
		rsp := edigen.Response{Number: "RSP-" + o.Number, Date: u.ReceivedAt.UTC(), Status: edigen.StatusAccepted, Order: o}
		body := edigen.Ordrsp(dir, env, rsp)
		if len(body) > MaxPayloadSize { // every payload stays within 16 MiB: confirm the header only
			rsp.Order.Lines = nil
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

// orderFrom reads what an ORDRSP needs from one ORDERS message.
func orderFrom(doc *edi.Document, m edi.Message) edigen.Order {
	var o edigen.Order
	var line *edigen.Line
	for i := m.First; i <= m.Last; i++ {
		s := doc.Segment(i)
		switch s.Tag() {
		case "BGM":
			o.Number = s.Value(2, 1)
		case "DTM":
			if t, ok := parseDTM(s.Value(1, 2), s.Value(1, 3)); ok && s.Value(1, 1) == "137" {
				o.Date = t
			}
		case "NAD":
			switch s.Value(1, 1) {
			case "BY":
				o.Buyer = edigen.Party{GLN: s.Value(2, 1)}
			case "SU":
				o.Supplier = edigen.Party{GLN: s.Value(2, 1), Name: s.Text(4, 1)}
			}
		case "CUX":
			o.Currency = s.Value(1, 2)
		case "LIN":
			o.Lines = append(o.Lines, edigen.Line{GTIN: s.Value(3, 1)})
			line = &o.Lines[len(o.Lines)-1]
		case "PIA":
			if line != nil && line.SupplierArticle == "" {
				line.SupplierArticle = s.Value(2, 1)
			}
		case "IMD":
			if line != nil && line.Description == "" {
				line.Description = s.Text(3, 4)
			}
		case "QTY":
			if line != nil && s.Value(1, 1) == "21" {
				line.Qty, _ = strconv.Atoi(s.Value(1, 2))
				line.Unit = s.Value(1, 3)
			}
		}
	}
	return o
}

// parseDTM reads DTM C507 values in format 102 (CCYYMMDD) or 203
// (CCYYMMDDHHMM).
func parseDTM(v, format string) (time.Time, bool) {
	layout := map[string]string{"102": "20060102", "203": "200601021504"}[format]
	if layout == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(layout, v)
	return t, err == nil
}
