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
	interchangeKeys(k, doc)
	for i := range doc.Messages {
		messageKeys(k, &doc.Messages[i], doc.Messages[i].Summary())
	}
}

// interchangeKeys adds the keys of a file's interchanges (UNB).
func interchangeKeys(k *keySet, doc *edi.Document) {
	for i := range doc.Interchanges {
		x := &doc.Interchanges[i]
		k.add(KeyICR, x.ControlRef)
		k.add(KeyGLN, x.Sender.ID, x.Recipient.ID)
	}
}

// messageKeys adds the keys of one message (see docKeys) with its
// summary s (m.Summary()).
func messageKeys(k *keySet, m *edi.Message, s *edi.Summary) {
	k.add(KeyMsg, m.Ref)
	if s == nil {
		return
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
		return
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

// readDoc opens and parses a stored file (a regular file of at most
// maxRead bytes) and runs fn on it inside edi.Guard.
func readDoc(ctx context.Context, path string, wantSize int64, fn func(*edi.Document) error) error {
	return readPayload(ctx, path, wantSize, func(data []byte) error { return parseDoc(ctx, data, fn) })
}

// readPayload opens a stored file (a regular file of at most maxRead
// bytes, of wantSize bytes unless it is negative) and runs fn on its
// bytes, which are valid only until fn returns.
func readPayload(ctx context.Context, path string, wantSize int64, fn func(data []byte) error) error {
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
	return fn(f.Bytes())
}

// parseDoc parses data and runs fn on it inside edi.Guard.
func parseDoc(ctx context.Context, data []byte, fn func(*edi.Document) error) error {
	err := edi.Guard(data, func() error {
		doc, err := edi.ParseContext(ctx, data, edi.Options{StructureOnly: true}) // items read no character or element finding
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

// wideConvs bounds the conversations one delivery item joins: a delivery
// whose messages name more (one interchange of many orders, each message
// with its own RFF+ON) is indexed as a head item (the interchange: its
// IDs, references and parties, its messages that name no conversation)
// and one part item per conversation (its messages' keys and answers).
// A query then reads the parts it asks for, never the whole interchange
// once per order, and no item bridges thousands of conversations into
// one.
const wideConvs = 64

// maxOutcomes bounds the answers an item's status lists by name.
const maxOutcomes = 3

// deliveryItems indexes one stored delivery: its sidecar always, its
// payload when it still parses (else Note says why). It is one item, or
// a head and its parts when the payload names more than wideConvs
// conversations.
func deliveryItems(ctx context.Context, st spool.Stored) []Item {
	var f payloadFacts
	if err := readPayload(ctx, st.Path, st.Meta.Size, func(data []byte) error {
		f = sharedParses.facts(ctx, data, st.Meta.SHA256, false)
		return nil
	}); err != nil {
		f = payloadFacts{err: err}
	}
	return deliveryItemsFrom(st, &f)
}

// deliveryItemsFrom is deliveryItems with the payload's facts f (of the
// stored file, or of bytes a team store was handed).
func deliveryItemsFrom(st spool.Stored, f *payloadFacts) []Item {
	m := &st.Meta
	at := m.CreatedAt
	if at.IsZero() {
		at = m.ReceivedAt
	}
	it := Item{Conn: m.ConnectionID, Kind: KindDelivery, Ref: m.DeliveryAttemptID, Type: strings.ToUpper(m.MessageType), At: at, State: "stored"}
	if m.AcknowledgedAt != nil {
		it.State = "acknowledged"
	}
	if it.Type == "" {
		it.Type = f.firstType
	}
	var k keySet
	k.add(KeyID, m.DeliveryAttemptID, m.InterchangeID)
	if m.InterchangeID != "" {
		k.add(KeyConv, convID(m.InterchangeID)) // what the platform's events name
	}
	as := f.answersFor(m.DeliveryAttemptID, at, m.ReceivedAt)
	var parts []Item
	for _, key := range f.xKeys {
		k.add(key.Kind, key.Value)
	}
	if !f.wide { // as docKeys adds them
		for _, mk := range f.msgKeys {
			for _, key := range mk {
				k.add(key.Kind, key.Value)
			}
		}
	} else {
		k.add(KeyConv, seenConv(m.DeliveryAttemptID)) // the head stands for the delivery
		parts, as = splitParts(&it, &k, f.msgTypes, f.msgKeys, as)
	}
	if f.err != nil {
		it.Note = f.err.Error()
		it.Status = "not readable: indexed from its sidecar"
	} else {
		it.Status = outcomesText(as)
		if len(parts) > 0 {
			it.Status = fmt.Sprintf("%d messages for %d conversations, each indexed on its own (find po:NUMBER)", len(f.msgTypes), len(parts))
		}
	}
	it.Detail = answersDetail(as, m, f.versions...)
	it.Keys = k.keys
	return append([]Item{it}, parts...)
}

// splitParts makes the part items of a wide delivery (see wideConvs): one
// per conversation, in the order its first message comes, with the keys
// (msgKeys, by message) and answers of its messages. The messages that name no conversation
// stay with the head (keys added to head, answers returned).
func splitParts(head *Item, hk *keySet, msgTypes []string, msgKeys [][]Key, as []answers.Answer) (parts []Item, rest []answers.Answer) {
	byConv := map[string]int{}
	keys := make([]keySet, 0, 256)
	msgPart := make([]int, len(msgTypes)) // message → part index, -1: the head
	for i := range msgTypes {
		mk := keySet{keys: msgKeys[i]}
		conv := ""
		for _, key := range mk.keys {
			if key.Kind == KeyConv {
				conv = key.Value
				break
			}
		}
		if conv == "" {
			msgPart[i] = -1
			for _, key := range mk.keys {
				hk.add(key.Kind, key.Value)
			}
			continue
		}
		n, ok := byConv[conv]
		if !ok {
			n = len(parts)
			byConv[conv] = n
			parts = append(parts, Item{Conn: head.Conn, Kind: head.Kind, Ref: head.Ref, Type: msgTypes[i], At: head.At,
				State: head.State, Part: n + 1})
			keys = append(keys, keySet{})
		}
		msgPart[i] = n
		for _, key := range mk.keys {
			keys[n].add(key.Kind, key.Value)
		}
	}
	partAnswers := make([][]answers.Answer, len(parts))
	for _, a := range as {
		if a.Message >= 0 && a.Message < len(msgPart) && msgPart[a.Message] >= 0 {
			n := msgPart[a.Message]
			partAnswers[n] = append(partAnswers[n], a)
		} else {
			rest = append(rest, a)
		}
	}
	for n := range parts {
		parts[n].Keys = keys[n].keys
		parts[n].Status = outcomesText(partAnswers[n])
		parts[n].Detail = answersDetail(partAnswers[n], nil)
	}
	return parts, rest
}

// outcomesText is an item's status: its answers' outcomes, at most
// maxOutcomes by name.
func outcomesText(as []answers.Answer) string {
	var out []string
	for i, a := range as {
		if i == maxOutcomes {
			out = append(out, fmt.Sprintf("and %d more answers", len(as)-maxOutcomes))
			break
		}
		out = append(out, a.Outcome())
	}
	return strings.Join(out, "; ")
}

// answersDetail is the detail of a delivery item holding answers as.
func answersDetail(as []answers.Answer, m *spool.Meta, versions ...edi.MessageVersion) string {
	d := deliveryDetail{Versions: versions}
	if m != nil { // the head's: what a ticket quotes (find --json)
		d.Interchange, d.Receipt = m.InterchangeID, m.ReceiptID
	}
	for _, a := range as {
		d.Answers = append(d.Answers, toAnswerDetail(a))
		d.Received = a.Received // one delivery's: the same for each
	}
	return mustJSON(d)
}

// uploadItems indexes a connection's upload history, one item per attempt
// (spool.Attempts), each with the keys of the file it sent when a copy is
// kept (sent reads it; nil skips).
func uploadItems(ctx context.Context, conn string, hist []spool.UploadRecord, sentPath func(sha string) (string, error)) []Item {
	var read func(sha string, fn func(*edi.Document) error) (bool, error)
	if sentPath != nil {
		read = func(sha string, fn func(*edi.Document) error) (bool, error) {
			p, err := sentPath(sha)
			if err != nil {
				return false, nil
			}
			return true, readDoc(ctx, p, -1, fn)
		}
	}
	return uploadItemsWith(conn, hist, read)
}

// uploadItemsWith is uploadItems parsing the files sent with read (found
// false: no copy kept).
func uploadItemsWith(conn string, hist []spool.UploadRecord, read func(sha string, fn func(*edi.Document) error) (bool, error)) []Item {
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
		k.add(KeyID, r.UploadID, r.InterchangeID, r.CorrelationID, r.SHA256) // the bytes' SHA-256 finds the uploads of a file
		k.add(KeyICR, r.ControlRef)
		k.add(KeyGLN, r.SenderID, r.RecipientID)
		k.add(KeyPO, r.DocNumbers...)
		if len(r.DocNumbers) == 0 && r.BusinessID != "" && r.ControlRef == "" {
			k.add(KeyPO, r.BusinessID)
		}
		k.add(KeyConv, recordConvs(r)...)
		if read != nil && r.SHA256 != "" {
			sk, ok := parsed[r.SHA256]
			if !ok {
				sk = &keySet{}
				if _, err := read(r.SHA256, func(doc *edi.Document) error { docKeys(sk, doc); return nil }); err != nil {
					it.Note = err.Error()
				}
				parsed[r.SHA256] = sk
			}
			for _, key := range sk.keys {
				k.add(key.Kind, key.Value)
			}
		}
		rec := r
		it.Detail = mustJSON(uploadDetail{Upload: orders.UploadOf(r), SHA256: r.SHA256, File: r.File, HTTP: r.HTTPStatus,
			Corr: r.CorrelationID, Error: r.ErrorCode, Rec: &rec, Started: r.Started})
		it.Keys = k.keys
		out = append(out, it)
	}
	return out
}

// recordConvs are the conversations an upload record belongs to (not
// normalised): its order numbers (or its business ID when it has neither
// numbers nor a control reference), its interchange control reference,
// its correlation ID, and its upload and interchange IDs, which the
// platform's events name.
func recordConvs(r spool.UploadRecord) []string {
	out := make([]string, 0, len(r.DocNumbers)+5)
	for _, n := range r.DocNumbers {
		out = append(out, convPO(n))
	}
	if len(r.DocNumbers) == 0 && r.BusinessID != "" && r.ControlRef == "" {
		out = append(out, convPO(r.BusinessID))
	}
	if r.ControlRef != "" {
		out = append(out, convICR(r.SenderID, r.ControlRef))
	}
	if r.CorrelationID != "" {
		out = append(out, convCorr(r.CorrelationID))
	}
	for _, id := range []string{r.UploadID, r.InterchangeID} {
		if id != "" {
			out = append(out, convID(id))
		}
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
	return eventItemsOf(ds), nil
}

// eventItemsOf indexes captured deliveries.
func eventItemsOf(ds []events.Delivery) []Item {
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
	return out
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
