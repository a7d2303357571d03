package bundle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/explain"
	"github.com/nutrab2b/b2bx/edi/pin"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

var safe = termsafe.String

func header(w *bytes.Buffer, o Options, what string, now time.Time) {
	fmt.Fprintf(w, "b2bx ticket bundle: %s of connection %s\n", what, safe(o.ConnectionID))
	v := o.Version
	if v == "" {
		v = "b2bx"
	}
	fmt.Fprintf(w, "Written %s by %s.\n\n", stamp(now), safe(v))
}

const filesNote = `
Files in this bundle
  README.txt    this text
  ids.txt       the IDs and correlation IDs to quote
  checks.txt    the integrity checks
  answers.txt   the partner's CONTRL, APERAK and ORDRSP answers, and each
                error placed on the segment of the ORDERS it names
  excerpts.txt  the raw bytes around each error, escaped
  timeline.txt  the timeline of this conversation
It holds no API key, secret or claim token.
`

// parsed is a payload read for the bundle.
type parsed struct {
	data []byte
	doc  *edi.Document
	err  error
}

func parse(path string) parsed {
	data, err := readPayload(path)
	if err != nil {
		return parsed{err: err}
	}
	p := parsed{data: data}
	p.err = edi.Guard(data, func() error {
		var err error
		p.doc, err = edi.Parse(data)
		return err
	})
	return p
}

func sumOf(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func deliveryBundle(ctx context.Context, b *builder, o Options, l *orders.Linked, d *orders.Delivery, now time.Time) {
	m := d.Stored.Meta
	p := parse(d.Stored.Path)
	readme, ids, checks, ans, exc := b.file("README.txt"), b.file("ids.txt"), b.file("checks.txt"), b.file("answers.txt"), b.file("excerpts.txt")
	typ := m.MessageType
	if typ == "" {
		typ = "delivery"
	}
	header(readme, o, "delivery "+safe(m.DeliveryAttemptID)+" ("+safe(typ)+")", now)
	fmt.Fprintln(readme, "What happened")
	fmt.Fprintf(readme, "  The partner's mailbox offered delivery %s, a %s of %d bytes, created %s.\n", safe(m.DeliveryAttemptID), safe(typ), m.Size, stamp(m.CreatedAt))
	fmt.Fprintf(readme, "  b2bx downloaded it at %s and checked it before storing it: the byte count and\n", stamp(m.ReceivedAt))
	fmt.Fprintln(readme, "  the SHA-256 against the server's headers and the mailbox listing, and the")
	fmt.Fprintln(readme, "  server's integrity trailer (verified). b2bx stores only what passed every check.")
	if m.Acknowledged() {
		fmt.Fprintf(readme, "  It was acknowledged at %s (receipt %s).\n", stamp(*m.AcknowledgedAt), safe(m.ReceiptID))
	} else {
		fmt.Fprintln(readme, "  It was not acknowledged: its lease runs out and the mailbox offers it again.")
	}
	for _, line := range l.AnswerLines(m.DeliveryAttemptID) {
		fmt.Fprintf(readme, "  %s\n", line)
	}

	fmt.Fprintf(ids, "connection          %s\ndeliveryAttemptId   %s\ninterchangeId       %s\nmessageType         %s\nreceiptId           %s\n",
		safe(m.ConnectionID), safe(m.DeliveryAttemptID), safe(m.InterchangeID), safe(m.MessageType), safe(m.ReceiptID))
	if p.doc != nil {
		for _, x := range p.doc.Interchanges {
			fmt.Fprintf(ids, "UNB control ref     %s (from %s to %s)\n", safe(x.ControlRef), safe(x.Sender.ID), safe(x.Recipient.ID))
		}
	}

	fmt.Fprintln(checks, "At download (recorded in the store's sidecar):")
	fmt.Fprintf(checks, "  size     %d bytes\n  sha256   %s\n  trailer  verified (nothing is stored otherwise)\n", m.Size, safe(m.SHA256))
	fmt.Fprintln(checks, "Now, for this bundle:")
	checkStored(checks, p, m.Size, m.SHA256)

	fmt.Fprintln(readme, "\nWhat b2bx checked for this bundle")
	checkStored(readme, p, m.Size, m.SHA256)

	if p.doc != nil {
		for i := range p.doc.Messages {
			fmt.Fprintf(ans, "%s\n", explain.Headline(&p.doc.Messages[i]))
		}
		contractFindings(readme, ans, o.Directory, p.doc)
		issueExcerpts(exc, "this delivery", p)
	}
	for _, j := range d.Answers {
		a := l.Index.Answers[j]
		fmt.Fprintf(ans, "%s — %s\n", a.Outcome(), l.Index.AnswerText(j))
		if lk := l.Index.Link(j); lk.Linked() && p.doc != nil {
			rec := l.Uploads[lk.Upload]
			fmt.Fprintf(ids, "answers upload      %s (key %s, interchange %s, correlation %s)\n",
				safe(rec.UploadID), safe(rec.Key), safe(rec.InterchangeID), safe(rec.CorrelationID))
			pinsOnUpload(ctx, o, ans, exc, rec, p.doc)
		}
	}
	fmt.Fprint(readme, filesNote)
}

// contractFindings lists the messages of doc that break the contract's
// version rules for the connection's directory, in the README (what
// b2bx found) and in answers.txt beside the answers' summaries.
func contractFindings(readme, ans *bytes.Buffer, directory string, doc *edi.Document) {
	fs := edi.ContractFindings(doc, directory)
	if len(fs) == 0 {
		return
	}
	dir := directory
	if dir == "" {
		dir = "not known (D.96A or D.25A)"
	}
	fmt.Fprintf(readme, "\nContract findings (the Partner API's version rules; the connection's directory: %s)\n", safe(dir))
	for k, f := range fs {
		if k == maxExcerpts {
			more := fmt.Sprintf("  … and %d more contract findings (b2bx parse lists them all)\n", len(fs)-k)
			fmt.Fprint(readme, more)
			fmt.Fprint(ans, more)
			break
		}
		fmt.Fprintf(readme, "  ! %s\n", safe(f.Text))
		fmt.Fprintf(ans, "contract finding (message %d, segment index %d): %s\n", f.Message+1, f.Segment, safe(f.Text))
	}
}

func uploadBundle(ctx context.Context, b *builder, o Options, l *orders.Linked, hist []spool.UploadRecord, rec spool.UploadRecord, now time.Time) {
	readme, ids, checks, ans, exc := b.file("README.txt"), b.file("ids.txt"), b.file("checks.txt"), b.file("answers.txt"), b.file("excerpts.txt")
	header(readme, o, "upload "+safe(uploadRef(rec))+" (ORDERS "+safe(rec.BusinessID)+")", now)
	fmt.Fprintln(readme, "What happened")
	fmt.Fprintf(readme, "  b2bx uploaded %s (%d bytes) at %s with Idempotency-Key %s.\n", safe(rec.File), rec.Size, stamp(rec.Time), safe(rec.Key))
	if rec.HTTPStatus != 0 {
		replay := ""
		if rec.Replay {
			replay = ", a replay of the earlier upload"
		}
		fmt.Fprintf(readme, "  The inbox answered HTTP %d (status %s%s); b2bx recorded the upload as %s.\n", rec.HTTPStatus, safe(rec.Status), replay, rec.Outcome)
	} else {
		fmt.Fprintf(readme, "  The upload's outcome is %s.\n", rec.Outcome)
	}
	if t := orders.ResendText(hist, rec); t != "" {
		fmt.Fprintf(readme, "  It is a %s.\n", t)
	}
	for _, r := range orders.FixedBy(hist, rec) {
		fmt.Fprintf(readme, "  It was fixed and sent again as upload %s (key %s, %s at %s).\n", safe(r.UploadID), safe(r.Key), r.Outcome, stamp(r.Time))
	}
	fmt.Fprintf(ids, "connection          %s\nuploadId            %s\ninterchangeId       %s\nidempotencyKey      %s\ncorrelationId       %s\n",
		safe(rec.ConnectionID), safe(rec.UploadID), safe(rec.InterchangeID), safe(rec.Key), safe(rec.CorrelationID))
	fmt.Fprintf(ids, "UNB control ref     %s (from %s to %s)\nBGM numbers         %s\n", safe(rec.ControlRef), safe(rec.SenderID), safe(rec.RecipientID), safe(strings.Join(rec.DocNumbers, ", ")))
	if rec.Fixes != "" {
		fmt.Fprintf(ids, "fixes upload        %s\n", safe(rec.Fixes))
	}

	fmt.Fprintln(checks, "At upload (recorded in the upload history):")
	fmt.Fprintf(checks, "  size     %d bytes\n  sha256   %s\n", rec.Size, safe(rec.SHA256))
	fmt.Fprintln(checks, "Now, for this bundle:")
	fmt.Fprintln(readme, "\nWhat b2bx checked for this bundle")
	var sent parsed
	if path, err := orders.SentFileContext(ctx, o.Store, rec); err != nil {
		sent.err = err
		fmt.Fprintf(checks, "  the sent bytes: %s\n", safe(err.Error()))
		fmt.Fprintf(readme, "  the sent bytes: %s\n", safe(err.Error()))
	} else {
		sent = parse(path)
		checkStored(checks, sent, rec.Size, rec.SHA256)
		checkStored(readme, sent, rec.Size, rec.SHA256)
	}

	i := uploadIndex(l, rec)
	if i < 0 {
		fmt.Fprintln(readme, "  No answer of the partner is linked to it (none downloaded yet, or the server did not accept it).")
	} else {
		fmt.Fprintf(readme, "  %s\n", l.UploadText(i))
		for _, j := range l.Index.AnswersOf(i) {
			a := l.Index.Answers[j]
			fmt.Fprintf(ans, "%s — delivery %s, created %s\n", a.Outcome(), safe(a.ID), stamp(a.At))
			fmt.Fprintf(ids, "answer              %s %s\n", safe(a.Type), safe(a.ID))
			if d, ok := l.Delivery(a.ID); ok && sent.doc != nil {
				if ap := parse(d.Stored.Path); ap.doc != nil {
					pinsOn(ans, exc, sent, ap.doc, a.ID)
				}
			}
		}
	}
	if sent.doc != nil {
		issueExcerpts(exc, "the sent ORDERS", sent)
	}
	fmt.Fprint(readme, filesNote)
}

// checkStored says whether the file still holds the bytes recorded.
func checkStored(w *bytes.Buffer, p parsed, size int64, sha string) {
	if p.data == nil {
		fmt.Fprintf(w, "  the file cannot be read: %s\n", safe(fmt.Sprint(p.err)))
		return
	}
	got := sumOf(p.data)
	if int64(len(p.data)) == size && strings.EqualFold(got, sha) {
		fmt.Fprintf(w, "  the file still has those %d bytes and that SHA-256: unchanged\n", size)
	} else {
		fmt.Fprintf(w, "  CHANGED: the file now has %d bytes, SHA-256 %s\n", len(p.data), got)
	}
	if p.doc != nil {
		fmt.Fprintf(w, "  it parses: %s\n", explain.VerdictOf(p.doc).String())
	}
}

// pinsOnUpload places the answer's errors on the upload's sent bytes.
func pinsOnUpload(ctx context.Context, o Options, ans, exc *bytes.Buffer, rec spool.UploadRecord, answer *edi.Document) {
	path, err := orders.SentFileContext(ctx, o.Store, rec)
	if err != nil {
		fmt.Fprintf(ans, "  (the errors cannot be placed on the ORDERS: %s)\n", safe(err.Error()))
		return
	}
	if sent := parse(path); sent.doc != nil {
		pinsOn(ans, exc, sent, answer, rec.Key)
	}
}

func pinsOn(ans, exc *bytes.Buffer, orders parsed, answer *edi.Document, label string) {
	pins, _ := pin.Pins(orders.doc, answer)
	for k, p := range pins {
		if k == maxExcerpts {
			fmt.Fprintf(ans, "  ... and %d more errors (b2bx parse on the answer lists them all)\n", len(pins)-k)
			return
		}
		fmt.Fprintf(ans, "  %s: %s\n", p.Source, p.Text)
		if p.Segment < 0 || p.Segment >= orders.doc.Len() {
			continue
		}
		s := orders.doc.Segment(p.Segment)
		off := s.Offset()
		if p.Element > 0 && p.Element <= s.ElementCount() {
			off = s.ElementOffset(p.Element)
		}
		fmt.Fprintf(exc, "ORDERS segment index %d (%s), %s error (%s):\n  %s\n", p.Segment, safe(s.Tag()), p.Source, safe(label), excerpt(orders.data, off))
	}
}

// maxExcerpts bounds the excerpts of one file: a broken payload can have
// thousands of errors, and the first ones tell the story.
const maxExcerpts = 50

func issueExcerpts(exc *bytes.Buffer, what string, p parsed) {
	n := 0
	for _, is := range p.doc.Issues() {
		if is.Severity != edi.SeverityError {
			continue
		}
		if n++; n > maxExcerpts {
			fmt.Fprintf(exc, "%s: more errors than the %d shown (b2bx parse lists them all)\n", what, maxExcerpts)
			return
		}
		fmt.Fprintf(exc, "%s, parse error %s at byte %d: %s\n  %s\n", what, is.Code, is.Offset, safe(is.Message), excerpt(p.data, is.Offset))
	}
}

func uploadIndex(l *orders.Linked, rec spool.UploadRecord) int {
	for i, u := range l.Uploads {
		if (rec.UploadID != "" && u.UploadID == rec.UploadID) || (rec.UploadID == "" && u.Key == rec.Key && u.SHA256 == rec.SHA256) {
			return i
		}
	}
	return -1
}

func findUpload(hist []spool.UploadRecord, id string) (spool.UploadRecord, bool) {
	r, err := orders.FindUpload(hist, id)
	return r, err == nil
}

func uploadRef(r spool.UploadRecord) string { return orders.FixesRef(r) }
