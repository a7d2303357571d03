package orders

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/answers"
)

// Linked is one connection's uploads and the partner's answers among its
// stored deliveries, linked both ways (answers.Index): the upload history
// says "answered by CONTRL: accepted", a delivery "answers upload of
// PO-123 (key …)". Only stored deliveries are read: an entry still in
// the mailbox is linked once it was downloaded and verified. Build it
// with LoadLinked; it is immutable.
type Linked struct {
	// Index links Index.Answers to Index.Uploads.
	Index *answers.Index
	// Uploads are the history records behind Index.Uploads (same
	// order): the accepted uploads, one per upload (a replay is the
	// upload it repeats: AcceptedUploads), oldest first.
	Uploads []spool.UploadRecord
	// Deliveries are the connection's stored deliveries in the order
	// they were created (see sortByAnswerTime).
	Deliveries []Delivery

	byID map[string]int
}

// Delivery is one stored delivery and the answers read from it.
type Delivery struct {
	Stored spool.Stored
	// Answers are its CONTRL, ORDRSP and APERAK messages: indexes in
	// Linked.Index.Answers. None for other message types.
	Answers []int
	// Err says why the payload could not be read (removed, changed,
	// not EDIFACT); it is then not linked. Sanitise it for display.
	Err error

	read []answers.Answer // as read from the payload, reused by the next load
	// versions are its distinct message versions (edi.DistinctVersions)
	// for the contract's version rules (ContractFindings).
	versions []edi.MessageVersion
}

// ContractFindings are the contract findings of the stored delivery id
// (the Partner API's version rules, edi.VersionFindings) for the
// connection's directory ("" when not known); nil when it is not stored,
// was not read, or has none. Texts may quote the data: sanitise them.
func (l *Linked) ContractFindings(id, directory string) []string {
	d, ok := l.Delivery(id)
	if !ok {
		return nil
	}
	return edi.VersionFindings(d.versions, directory)
}

// MayAnswer reports whether a delivery of the listed message type may
// answer an upload (CONTRL, ORDRSP, APERAK, in any case), so its payload
// is read for answers; a delivery the listing did not type may too. The
// app and the CLI ask this one rule.
func MayAnswer(msgType string) bool {
	switch strings.ToUpper(msgType) {
	case "CONTRL", "ORDRSP", "APERAK", "":
		return true
	}
	return false
}

// LoadLinked reads the connection's upload history and stored
// deliveries and links them. The payloads of answers (CONTRL, ORDRSP,
// APERAK, or untyped) are parsed; those prev already read (same delivery,
// same SHA-256) are not read again, so reloading after each download is
// cheap. An unreadable payload is reported in its Delivery, not as an
// error; the error is for a history or spool that cannot be read.
func LoadLinked(ctx context.Context, store *spool.Store, connectionID string, prev *Linked) (*Linked, error) {
	hist, err := store.Uploads(connectionID)
	if err != nil {
		return nil, err
	}
	stored, err := store.List(connectionID)
	if err != nil {
		return nil, err
	}
	sortByAnswerTime(stored)
	l := &Linked{byID: make(map[string]int, len(stored))}
	var ups []answers.Upload
	l.Uploads, ups = AcceptedUploads(hist)
	var all []answers.Answer
	for _, st := range stored {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d := Delivery{Stored: st}
		if MayAnswer(st.Meta.MessageType) {
			if p, ok := prev.delivery(st.Meta.DeliveryAttemptID); ok && p.Err == nil && p.Stored.Meta.SHA256 == st.Meta.SHA256 {
				d.read, d.versions = p.read, p.versions
			} else {
				d.read, d.versions, d.Err = readAnswers(ctx, st)
			}
		}
		all = l.push(d, all)
	}
	l.Index = answers.NewIndex(ups, all)
	return l, nil
}

// Loader reads a connection's link input: track.Loader reads it from the
// tracking index, StoreLoader from the store's files.
type Loader func(ctx context.Context, store *spool.Store, connectionID string) (*Linked, error)

// Selection names the uploads a question is about: by idempotency key or
// by the SHA-256 of the bytes sent. Since, when set, is a time before the
// oldest of them (on this machine's clock): an index may read every upload
// since then instead of looking each one up.
type Selection struct {
	Keys  []string
	SHAs  []string
	Since time.Time
}

// Has reports whether the upload with key and sha is selected.
func (s Selection) Has(key, sha string) bool {
	for _, k := range s.Keys {
		if k != "" && k == key {
			return true
		}
	}
	for _, h := range s.SHAs {
		if h != "" && strings.EqualFold(h, sha) {
			return true
		}
	}
	return false
}

// Len is how many keys and SHA-256s the selection names.
func (s Selection) Len() int { return len(s.Keys) + len(s.SHAs) }

// SelectLoader reads the link input of a connection's selected uploads:
// the uploads in their conversations, with the stored answers in them
// (track.SelectLoader reads them from the index, so the cost is what those
// conversations hold, not the connection's history).
type SelectLoader func(ctx context.Context, store *spool.Store, connectionID string, sel Selection) (*Linked, error)

// DeliveriesLoader reads the link input of some stored deliveries (a
// tab's mailbox rows): those deliveries, the uploads in their
// conversations and the answers in them (track.DeliveriesLoader reads
// them from the index, so the cost is what those conversations hold, not
// the connection's store). Their links are the ones the whole link input
// gives them.
type DeliveriesLoader func(ctx context.Context, store *spool.Store, connectionID string, ids []string) (*Linked, error)

// StoreLoader reads the link input from the store itself (LoadLinked):
// every stored answer is parsed.
func StoreLoader(ctx context.Context, store *spool.Store, connectionID string) (*Linked, error) {
	return LoadLinked(ctx, store, connectionID, nil)
}

// NewLinked links a connection's upload history (append order) with
// stored deliveries whose answers were read elsewhere (the tracking
// index keeps them: DeliveryWith), in the order the partner created
// them. No payload is read: the link input of a large store costs what
// its uploads' conversations hold, not what the store holds.
func NewLinked(hist []spool.UploadRecord, ds []Delivery) *Linked {
	stored := make([]spool.Stored, len(ds))
	byID := make(map[string]Delivery, len(ds))
	for i, d := range ds {
		stored[i] = d.Stored
		byID[d.Stored.Meta.DeliveryAttemptID] = d
	}
	sortByAnswerTime(stored)
	l := &Linked{byID: make(map[string]int, len(ds))}
	var ups []answers.Upload
	l.Uploads, ups = AcceptedUploads(hist)
	var all []answers.Answer
	for _, st := range stored {
		all = l.push(byID[st.Meta.DeliveryAttemptID], all)
	}
	l.Index = answers.NewIndex(ups, all)
	return l
}

// DeliveryWith is a stored delivery with the answers already read from
// it (in message order) and its distinct message versions
// (edi.DistinctVersions; none when not known), for NewLinked.
func DeliveryWith(st spool.Stored, as []answers.Answer, versions ...edi.MessageVersion) Delivery {
	return Delivery{Stored: st, read: as, versions: versions}
}

// push appends d to l's deliveries and its answers to all, numbering
// them (Delivery.Answers), and returns all.
func (l *Linked) push(d Delivery, all []answers.Answer) []answers.Answer {
	d.Answers = nil
	for _, a := range d.read {
		d.Answers = append(d.Answers, len(all))
		all = append(all, a)
	}
	l.byID[d.Stored.Meta.DeliveryAttemptID] = len(l.Deliveries)
	l.Deliveries = append(l.Deliveries, d)
	return all
}

// WithDelivery is l with one more stored delivery (one just downloaded),
// or with that delivery's record replaced: only its payload is read, the
// rest is reused, so linking after every download costs one file however
// many deliveries are stored. l is not changed; a nil l holds nothing yet
// (the history is not read: load it with LoadLinked).
func (l *Linked) WithDelivery(ctx context.Context, st spool.Stored) (*Linked, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := &Linked{byID: make(map[string]int, len(l.deliveries())+1)}
	var ups []answers.Upload
	if l != nil {
		n.Uploads = l.Uploads
		ups = l.Index.Uploads
	}
	stored := make([]spool.Stored, 0, len(l.deliveries())+1)
	prev := map[string]Delivery{}
	for _, d := range l.deliveries() {
		if d.Stored.Meta.DeliveryAttemptID != st.Meta.DeliveryAttemptID {
			stored = append(stored, d.Stored)
			prev[d.Stored.Meta.DeliveryAttemptID] = d
		}
	}
	stored = append(stored, st)
	sortByAnswerTime(stored)
	var all []answers.Answer
	for _, s := range stored {
		d, ok := prev[s.Meta.DeliveryAttemptID]
		if !ok {
			d = Delivery{Stored: s}
			if MayAnswer(s.Meta.MessageType) {
				d.read, d.versions, d.Err = readAnswers(ctx, s)
			}
		}
		all = n.push(d, all)
	}
	n.Index = answers.NewIndex(ups, all)
	return n, nil
}

// deliveries are l's deliveries; none for a nil l.
func (l *Linked) deliveries() []Delivery {
	if l == nil {
		return nil
	}
	return l.Deliveries
}

// AcceptedUploads is the link input of a connection's upload history
// (append order): its accepted uploads, one per upload (answers.Distinct:
// a replay, 200 with the same uploadId, is the upload it repeats, and so
// are the records of one key), oldest first, with the first history
// record of each.
func AcceptedUploads(hist []spool.UploadRecord) ([]spool.UploadRecord, []answers.Upload) {
	var recs []spool.UploadRecord
	var all []answers.Upload
	for _, r := range spool.Attempts(hist) {
		if r.Outcome == spool.OutcomeAccepted {
			recs = append(recs, r)
			all = append(all, UploadOf(r))
		}
	}
	ups, of := answers.Distinct(all)
	out := make([]spool.UploadRecord, len(ups))
	done := make([]bool, len(ups))
	for i, j := range of {
		if !done[j] {
			out[j], done[j] = recs[i], true
		}
	}
	return out, ups
}

// UploadOf is the upload as answers links it: the key, the envelope
// facts the history recorded and the server's IDs, sent when its bytes
// began to leave (the pending record of an attempt Attempts folded).
func UploadOf(r spool.UploadRecord) answers.Upload {
	at, server := r.Time, r.ServerTime
	if !r.Started.IsZero() && r.Started.Before(at) {
		at = r.Started // when the bytes began to leave: before the server took them
		if !server.IsZero() {
			// the Date is the server's clock when it answered, in whole
			// seconds; it took the bytes at most the round trip before:
			// the earliest it can have been, so no answer it created for
			// them is dated before the upload
			server = server.Add(-r.Time.Sub(r.Started))
		}
	}
	return answers.Upload{Key: r.Key, Sender: r.SenderID, Recipient: r.RecipientID, ControlRef: r.ControlRef,
		BGMNumbers: slices.Clone(r.DocNumbers), UploadID: r.UploadID, InterchangeID: r.InterchangeID, At: at,
		ServerAt: server, Buyer: r.BuyerID, Supplier: r.SupplierID, Fixes: r.Fixes, Replay: r.Replay}
}

// sortByAnswerTime orders stored deliveries as the partner sent them:
// by creation time, a CONTRL (the syntax answer) before the business
// answers of the same moment, then as they were received. So an
// upload's answers read "CONTRL: accepted; ORDRSP: …" in the order they
// were given, whatever order they were downloaded in.
func sortByAnswerTime(stored []spool.Stored) {
	rank := func(m *spool.Meta) int {
		if strings.EqualFold(m.MessageType, "CONTRL") {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(stored, func(a, b spool.Stored) int {
		if c := answerTime(&a.Meta).Compare(answerTime(&b.Meta)); c != 0 {
			return c
		}
		if r := rank(&a.Meta) - rank(&b.Meta); r != 0 {
			return r
		}
		return a.Meta.ReceivedAt.Compare(b.Meta.ReceivedAt) // downloaded first: the mailbox listed it first
	})
}

// answerTime is when the delivery was created (the server's clock), or
// when it was received for sidecars that did not keep that.
func answerTime(m *spool.Meta) time.Time {
	if !m.CreatedAt.IsZero() {
		return m.CreatedAt
	}
	return m.ReceivedAt
}

// readAnswers parses a stored payload and returns its answers (copies:
// the file is closed before returning). A payload is at most the
// contract's 16 MiB; whatever else now stands at its path is refused
// unread.
func readAnswers(ctx context.Context, st spool.Stored) ([]answers.Answer, []edi.MessageVersion, error) {
	if fi, err := os.Lstat(st.Path); err != nil {
		return nil, nil, fmt.Errorf("the stored payload cannot be read: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("the stored payload cannot be read: %s is no longer a regular file (%s); fetch the delivery again", st.Path, fi.Mode().Type())
	}
	f, err := edi.OpenFileContext(ctx, st.Path, MaxSize)
	if err != nil {
		return nil, nil, fmt.Errorf("the stored payload cannot be read: %w", err)
	}
	defer f.Close()
	data := f.Bytes()
	if int64(len(data)) != st.Meta.Size {
		return nil, nil, fmt.Errorf("the stored payload %s has %d bytes, not the %d that were verified: it changed since the download", st.Path, len(data), st.Meta.Size)
	}
	var out []answers.Answer
	var vs []edi.MessageVersion
	err = edi.Guard(data, func() error {
		doc, err := edi.ParseContext(ctx, data, edi.Options{StructureOnly: true}) // answers read no character or element finding
		if err != nil {
			return err
		}
		out = answers.FromDocument(doc, st.Meta.DeliveryAttemptID, answerTime(&st.Meta))
		for i := range out {
			out[i].Received = st.Meta.ReceivedAt
		}
		vs = edi.DistinctVersions(doc)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("the stored payload cannot be parsed: %w", err)
	}
	return out, vs, nil
}

// delivery looks a stored delivery up by its deliveryAttemptId; a nil
// Linked has none.
func (l *Linked) delivery(id string) (*Delivery, bool) {
	if l == nil {
		return nil, false
	}
	i, ok := l.byID[id]
	if !ok {
		return nil, false
	}
	return &l.Deliveries[i], true
}

// Delivery returns the stored delivery with that deliveryAttemptId, or
// false when it was not downloaded (or the Linked is nil).
func (l *Linked) Delivery(id string) (*Delivery, bool) { return l.delivery(id) }

// AnswerLines say, one line per answer in the delivery, what it answers
// and how: "ORDRSP: 1 of 2 lines changed — answers upload of PO-4711
// (key …)". Empty for a delivery that holds no answer. Terminal-safe.
func (l *Linked) AnswerLines(id string) []string {
	d, ok := l.delivery(id)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(d.Answers))
	for _, j := range d.Answers {
		out = append(out, l.Index.Answers[j].Outcome()+" — "+l.Index.AnswerText(j))
	}
	return out
}

// UploadText says how upload i (an index in Uploads) was answered:
// "answered by CONTRL: accepted; ORDRSP: 1 of 2 lines changed" or "no
// answer yet". Terminal-safe.
func (l *Linked) UploadText(i int) string { return l.Index.UploadText(i) }

// OrdrspUpload returns the upload an ORDRSP in the delivery answers
// (the first linked one), for the diff; false when the delivery holds no
// linked ORDRSP.
func (l *Linked) OrdrspUpload(id string) (int, bool) {
	d, ok := l.delivery(id)
	if !ok {
		return 0, false
	}
	for _, j := range d.Answers {
		if a := l.Index.Answers[j]; a.Type == "ORDRSP" && l.Index.Link(j).Linked() {
			return l.Index.Link(j).Upload, true
		}
	}
	return 0, false
}

// LatestOrdrsp returns the deliveryAttemptId of the latest ORDRSP linked
// to upload i, for the diff of an upload; false when none is.
func (l *Linked) LatestOrdrsp(i int) (string, bool) {
	js := l.Index.AnswersOf(i)
	for k := len(js) - 1; k >= 0; k-- {
		if a := l.Index.Answers[js[k]]; a.Type == "ORDRSP" {
			return a.ID, true
		}
	}
	return "", false
}
