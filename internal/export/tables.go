package export

import (
	"strconv"
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// MailboxTable is a mailbox page or the backlog (the due entries): the
// listing's fields, one row per entry in the order given.
func MailboxTable(name string, entries []apiclient.Entry) Table {
	t := Table{Name: name, Columns: []string{"deliveryAttemptId", "interchangeId", "messageType", "payloadSize", "payloadSha256", "status", "createdAt"}}
	for _, e := range entries {
		t.Rows = append(t.Rows, []string{e.DeliveryAttemptID, e.InterchangeID, e.MessageType, strconv.FormatInt(e.PayloadSize, 10),
			e.PayloadSHA256, e.Status, stamp(e.CreatedAt)})
	}
	return t
}

// UploadsTable is the upload history (one record per attempt, e.g.
// upload.History); answered, when not nil, gives the answer text of each
// record ("answered by CONTRL: rejected …"), "" for none.
func UploadsTable(records []spool.UploadRecord, answered func(i int) string) Table {
	t := Table{Name: "uploads", Columns: []string{"time", "file", "size", "sha256", "key", "n", "outcome", "httpStatus",
		"uploadId", "interchangeId", "status", "replay", "correlationId", "fixes", "answers"}}
	for i, r := range records {
		a := ""
		if answered != nil {
			a = answered(i)
		}
		status := ""
		if r.HTTPStatus != 0 {
			status = strconv.Itoa(r.HTTPStatus)
		}
		t.Rows = append(t.Rows, []string{stamp(r.Time), r.File, strconv.FormatInt(r.Size, 10), r.SHA256, r.Key, strconv.Itoa(r.N),
			string(r.Outcome), status, r.UploadID, r.InterchangeID, r.Status, strconv.FormatBool(r.Replay), r.CorrelationID, r.Fixes, a})
	}
	return t
}

// FindingsTable is the findings of an event inspection.
func FindingsTable(fs []events.Finding) Table {
	t := Table{Name: "event findings", Columns: []string{"severity", "code", "platform", "delivery", "event", "eventId", "field", "message"}}
	for _, f := range fs {
		t.Rows = append(t.Rows, []string{string(f.Severity), string(f.Code), f.Platform, strconv.Itoa(f.Delivery), strconv.Itoa(f.Event),
			f.EventID, f.Field, f.Message})
	}
	return t
}
