package track

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/answers"
	"github.com/nutrab2b/b2bx/internal/orders"
)

// maxRead bounds a stored file the index parses: the Partner API's limit.
const maxRead = orders.MaxSize

// docKeys adds the keys of a parsed interchange file: UNB control
// references and parties, UNH references, NAD party IDs, order numbers
// (ORDERS BGM 1004, RFF+ON) and, for a CONTRL, the interchange it answers.
func docKeys(k *keySet, doc *edi.Document) {
	for i := range doc.Interchanges {
		x := &doc.Interchanges[i]
		k.add(KeyICR, x.ControlRef)
		k.add(KeyGLN, x.Sender.ID, x.Recipient.ID)
	}
	for i := range doc.Messages {
		m := &doc.Messages[i]
		k.add(KeyMsg, m.Ref)
		s := m.Summary()
		if s == nil {
			continue
		}
		var d *edi.DocumentSummary
		switch {
		case s.Orders != nil:
			d = &s.Orders.Document
			k.add(KeyPO, d.Number)
			k.add(KeyConv, convPO(d.Number))
		case s.Ordrsp != nil:
			d = &s.Ordrsp.Document
			k.add(KeyPO, s.Ordrsp.OrderNumber)
			k.add(KeyConv, convPO(s.Ordrsp.OrderNumber))
			k.add(KeyID, d.Number)
		case s.Aperak != nil:
			d = &s.Aperak.Document
			k.add(KeyID, d.Number)
		case s.Contrl != nil:
			c := s.Contrl
			k.add(KeyICR, c.InterchangeRef)
			k.add(KeyConv, convICR(c.Sender.ID, c.InterchangeRef))
			for _, cm := range c.Messages {
				k.add(KeyMsg, cm.Ref)
			}
		}
		if d == nil {
			continue
		}
		for _, r := range d.References {
			if r.Qualifier.Code == "ON" {
				k.add(KeyPO, r.Value)
				k.add(KeyConv, convPO(r.Value))
			}
		}
		for _, p := range d.Parties {
			k.add(KeyGLN, p.ID)
		}
	}
}

// readDoc opens and parses a stored file (a regular file of at most
// maxRead bytes) and runs fn on it inside edi.Guard.
func readDoc(ctx context.Context, path string, wantSize int64, fn func(*edi.Document) error) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("the stored payload cannot be read: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("the stored payload %s is no longer a regular file (%s)", path, fi.Mode().Type())
	}
	if wantSize >= 0 && fi.Size() != wantSize {
		return fmt.Errorf("the stored payload %s has %d bytes, not the %d that were verified: it changed since the download", path, fi.Size(), wantSize)
	}
	f, err := edi.OpenFileContext(ctx, path, maxRead)
	if err != nil {
		return fmt.Errorf("the stored payload cannot be read: %w", err)
	}
	defer f.Close()
	data := f.Bytes()
	err = edi.Guard(data, func() error {
		doc, err := edi.ParseContext(ctx, data, edi.Options{})
		if err != nil {
			return err
		}
		return fn(doc)
	})
	if err != nil {
		return fmt.Errorf("the stored payload cannot be parsed: %w", err)
	}
	return nil
}

// deliveryItem indexes one stored delivery: its sidecar always, its
// payload when it still parses (else Note says why).
func deliveryItem(ctx context.Context, st spool.Stored) Item {
	m := &st.Meta
	at := m.CreatedAt
	if at.IsZero() {
		at = m.ReceivedAt
	}
	it := Item{Conn: m.ConnectionID, Kind: KindDelivery, Ref: m.DeliveryAttemptID, Type: strings.ToUpper(m.MessageType), At: at, State: "stored"}
	d := deliveryDetail{Interchange: m.InterchangeID, Receipt: m.ReceiptID}
	if m.AcknowledgedAt != nil {
		it.State = "acknowledged"
	}
	var k keySet
	k.add(KeyID, m.DeliveryAttemptID, m.InterchangeID)
	if m.InterchangeID != "" {
		k.add(KeyConv, convID(m.InterchangeID)) // what the platform's events name
	}
	var outcomes []string
	err := readDoc(ctx, st.Path, m.Size, func(doc *edi.Document) error {
		docKeys(&k, doc)
		for _, a := range answers.FromDocument(doc, m.DeliveryAttemptID, at) {
			d.Answers = append(d.Answers, toAnswerDetail(a))
			outcomes = append(outcomes, a.Outcome())
		}
		if it.Type == "" && len(doc.Messages) > 0 {
			it.Type = doc.Messages[0].Type
		}
		return nil
	})
	if err != nil {
		it.Note = err.Error()
		it.Status = "not readable: indexed from its sidecar"
	} else {
		it.Status = strings.Join(outcomes, "; ")
	}
	it.Detail = mustJSON(d)
	it.Keys = k.keys
	return it
}

// uploadItems indexes a connection's upload history, one item per attempt
// (spool.Attempts), each with the keys of the file it sent when a copy is
// kept (sent reads it; nil skips).
func uploadItems(ctx context.Context, conn string, hist []spool.UploadRecord, sentPath func(sha string) (string, error)) []Item {
	var out []Item
	parsed := map[string]*keySet{} // by SHA-256: the same bytes parse once
	for _, r := range spool.Attempts(hist) {
		// dated on the server's clock when its answer said (the Date
		// header), like the answers it is linked to
		it := Item{Conn: conn, Kind: KindUpload, Ref: r.Key, Type: "ORDERS", At: orders.UploadOf(r).Time().UTC(), State: string(r.Outcome)}
		it.Status = string(r.Outcome)
		if r.HTTPStatus != 0 {
			it.Status += " (HTTP " + strconv.Itoa(r.HTTPStatus) + ")"
		}
		if r.Replay {
			it.Status += ", replay"
		}
		var k keySet
		k.add(KeyKey, r.Key)
		k.add(KeyID, r.UploadID, r.InterchangeID, r.CorrelationID)
		k.add(KeyICR, r.ControlRef)
		k.add(KeyGLN, r.SenderID, r.RecipientID)
		k.add(KeyPO, r.DocNumbers...)
		for _, n := range r.DocNumbers {
			k.add(KeyConv, convPO(n))
		}
		if len(r.DocNumbers) == 0 && r.BusinessID != "" && r.ControlRef == "" {
			k.add(KeyPO, r.BusinessID)
			k.add(KeyConv, convPO(r.BusinessID))
		}
		if r.ControlRef != "" {
			k.add(KeyConv, convICR(r.SenderID, r.ControlRef))
		}
		if r.CorrelationID != "" {
			k.add(KeyConv, convCorr(r.CorrelationID))
		}
		for _, id := range []string{r.UploadID, r.InterchangeID} {
			if id != "" {
				k.add(KeyConv, convID(id)) // what the platform's events name
			}
		}
		if sentPath != nil && r.SHA256 != "" {
			sk, ok := parsed[r.SHA256]
			if !ok {
				sk = &keySet{}
				if p, err := sentPath(r.SHA256); err == nil {
					if err := readDoc(ctx, p, -1, func(doc *edi.Document) error { docKeys(sk, doc); return nil }); err != nil {
						it.Note = err.Error()
					}
				}
				parsed[r.SHA256] = sk
			}
			for _, key := range sk.keys {
				k.add(key.Kind, key.Value)
			}
		}
		it.Detail = mustJSON(uploadDetail{Upload: orders.UploadOf(r), SHA256: r.SHA256, File: r.File, HTTP: r.HTTPStatus,
			Corr: r.CorrelationID, Error: r.ErrorCode})
		it.Keys = k.keys
		out = append(out, it)
	}
	return out
}

// seenItems indexes a seen journal.
func seenItems(conn string, recs []spool.SeenRecord) []Item {
	out := make([]Item, 0, len(recs))
	for _, r := range recs {
		c := conn
		if r.ConnectionID != "" {
			c = r.ConnectionID
		}
		it := Item{Conn: c, Kind: KindSeen, Ref: r.DeliveryAttemptID, Type: strings.ToUpper(r.MessageType), At: r.Time, State: string(r.State)}
		switch {
		case len(r.Checks) > 0:
			it.Status = string(r.State) + ": " + strings.Join(r.Checks, ", ")
		case r.Step != "":
			it.Status = string(r.State) + " at " + r.Step
		default:
			it.Status = string(r.State)
		}
		it.Note = r.Error
		var k keySet
		k.add(KeyID, r.DeliveryAttemptID, r.InterchangeID)
		// the delivery's conversation is unknown (nothing stored): it
		// joins the stored delivery of the same ID (see closure)
		k.add(KeyConv, seenConv(r.DeliveryAttemptID))
		it.Keys = k.keys
		out = append(out, it)
	}
	return out
}

// eventItems indexes the webhook events of one capture file or directory.
func eventItems(path string) ([]Item, error) {
	ds, err := events.ReadPath(path)
	if err != nil {
		return nil, err
	}
	rep := events.Inspect(ds, events.Options{})
	findings := map[int][]string{}
	for _, f := range rep.Findings {
		if f.Event >= 0 {
			findings[f.Event] = append(findings[f.Event], string(f.Severity)+" "+string(f.Code))
		}
	}
	out := make([]Item, 0, len(rep.Events))
	for i, ev := range rep.Events {
		it := Item{Kind: KindEvent, Ref: ev.ID, Type: ev.Type, State: string(ev.Outcome)}
		it.At = parseEventTime(ev.Time)
		it.Status = fmt.Sprintf("%s, sequence %d", ev.Outcome, ev.Sequence)
		if fs := findings[i]; len(fs) > 0 {
			it.Status += " — " + strings.Join(fs, ", ")
		}
		if ev.Delivery >= 0 && ev.Delivery < len(rep.Deliveries) {
			it.Note = rep.Deliveries[ev.Delivery].Name
		}
		var k keySet
		ids := []string{ev.CorrelationID, ev.DataString("uploadId"), ev.DataString("interchangeId"), ev.DataString("deliveryAttemptId")}
		k.add(KeyID, ev.ID, ev.CausationID)
		k.add(KeyID, ids...)
		k.add(KeyKey, ev.IdempotencyKey)
		k.add(KeyPO, ev.Subject, ev.DataString("orderNumber"))
		k.add(KeyGLN, ev.Sender, ev.Receiver)
		k.add(KeyConv, convPO(ev.Subject), convPO(ev.DataString("orderNumber")), convCorr(ev.CorrelationID))
		// an event belongs to the conversation of any ID it carries: the
		// upload's, its interchange's, the delivery's (their items carry
		// the same conversation keys)
		for _, id := range ids {
			if id != "" {
				k.add(KeyConv, convID(id))
			}
		}
		it.Detail = mustJSON(eventDetail{Cause: ev.CausationID})
		it.Keys = k.keys
		out = append(out, it)
	}
	return out, nil
}

// parseEventTime reads an event's time (RFC 3339); zero when it has none.
func parseEventTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// seenConv is the conversation key of what was seen of a delivery before
// it was stored (and of the events that name the delivery).
func seenConv(deliveryID string) string { return convID(deliveryID) }

// convID is the conversation key of a server ID: an upload's, an
// interchange's or a delivery's.
func convID(id string) string { return "id:" + id }

// eventDetail is the detail of an event item.
type eventDetail struct {
	Cause string `json:"c,omitempty"` // causationid: it follows that event
}
