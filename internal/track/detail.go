package track

import (
	"encoding/json"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/answers"
)

// The detail column holds what linking (the rules of package answers) and
// the overdue check need without reading the files again, in a compact
// JSON form (short names keep the index under 1 KiB per delivery).

// answerDetail is an answers.Answer without its delivery ID and time (the
// item's Ref and At).
type answerDetail struct {
	Type    string   `json:"t"`
	Message int      `json:"m,omitempty"`
	From    string   `json:"f,omitempty"`
	To      string   `json:"o,omitempty"`
	IRef    string   `json:"ir,omitempty"`
	ISender string   `json:"is,omitempty"`
	IRecip  string   `json:"ic,omitempty"`
	Action  string   `json:"a,omitempty"`
	Verdict string   `json:"v,omitempty"`
	Number  string   `json:"n,omitempty"`
	Refs    []string `json:"r,omitempty"`
	Status  string   `json:"s,omitempty"`
	Lines   int      `json:"l,omitempty"`
	Changed int      `json:"c,omitempty"`
	Errors  int      `json:"e,omitempty"`
	First   string   `json:"x,omitempty"`
	Buyer   string   `json:"b,omitempty"`
	Supp    string   `json:"u,omitempty"`
}

// deliveryDetail is the detail of a delivery item (its mailbox times and
// receipt stay in the sidecar; the timeline reads them there).
type deliveryDetail struct {
	Answers []answerDetail `json:"a,omitempty"`
	// Versions are the distinct versions of the delivery's messages the
	// contract's version rules read (one per type, version and syntax,
	// with the first message's reference and how many share it), so find
	// shows the contract findings for the connection's directory.
	Versions    []edi.MessageVersion `json:"cv,omitempty"`
	Interchange string               `json:"ix,omitempty"` // the server's interchangeId
	Received    time.Time            `json:"rv,omitzero"`  // stored after its download (answers.Answer.Received)
	Receipt     string               `json:"rc,omitempty"` // the acknowledge's receipt
}

func toAnswerDetail(a answers.Answer) answerDetail {
	return answerDetail{Type: a.Type, Message: a.Message, From: a.From, To: a.To, IRef: a.InterchangeRef, ISender: a.InterchangeSender,
		IRecip: a.InterchangeRecipient, Action: a.Action.Code, Verdict: a.Verdict, Number: a.Number, Refs: a.Refs,
		Status: a.Status.Code, Lines: a.Lines, Changed: a.ChangedLines, Errors: a.Errors, First: a.FirstError, Buyer: a.Buyer, Supp: a.Supplier}
}

func (d answerDetail) answer(id string, at, received time.Time) answers.Answer {
	return answers.Answer{ID: id, At: at, Received: received, Type: d.Type, Message: d.Message, From: d.From, To: d.To, InterchangeRef: d.IRef,
		InterchangeSender: d.ISender, InterchangeRecipient: d.IRecip, Action: edi.Coded{Code: d.Action}, Verdict: d.Verdict,
		Number: d.Number, Refs: d.Refs, Status: edi.Coded{Code: d.Status}, Lines: d.Lines, ChangedLines: d.Changed,
		Errors: d.Errors, FirstError: d.First, Buyer: d.Buyer, Supplier: d.Supp}
}

// uploadDetail is the detail of an upload item.
type uploadDetail struct {
	answers.Upload
	SHA256 string `json:"sha"`
	File   string `json:"file,omitempty"`
	HTTP   int    `json:"http,omitempty"`
	Corr   string `json:"corr,omitempty"`
	Error  string `json:"err,omitempty"`
	// Rec is the attempt's record as the history folds it (spool.Attempts):
	// the link input of a selection is read from the items (LinkedFor).
	Rec     *spool.UploadRecord `json:"rec,omitempty"`
	Started time.Time           `json:"started,omitzero"` // Rec.Started (not in the record's JSON)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// Answers returns the answers a delivery item holds (nil for other items
// or when its payload could not be read).
func (it *Item) Answers() []answers.Answer {
	as, _ := it.answersAndVersions()
	return as
}

// answersAndVersions decodes a delivery item's detail once: its answers
// and its distinct message versions.
func (it *Item) answersAndVersions() ([]answers.Answer, []edi.MessageVersion) {
	if it.Kind != KindDelivery || it.Detail == "" {
		return nil, nil
	}
	var d deliveryDetail
	if json.Unmarshal([]byte(it.Detail), &d) != nil {
		return nil, nil
	}
	out := make([]answers.Answer, len(d.Answers))
	for i, a := range d.Answers {
		out[i] = a.answer(it.Ref, it.At, d.Received)
	}
	return out, d.Versions
}

// ContractFindings are a delivery item's contract findings (the Partner
// API's version rules, edi.VersionFindings) for the connection's
// directory ("" when not known), one per distinct version of its
// messages; nil for other items. Texts are raw: sanitise them.
func (it *Item) ContractFindings(directory string) []string {
	return edi.VersionFindings(it.MessageVersions(), directory)
}

// MessageVersions are a delivery item's distinct message versions
// (edi.DistinctVersions, kept when it was indexed); nil for other items.
func (it *Item) MessageVersions() []edi.MessageVersion {
	_, vs := it.answersAndVersions()
	return vs
}

// AddContractFindings sets Contract on every delivery item of the result
// for the directory of its connection (directory maps a connection ID to
// its profile's directory; "" when not known).
func (r *Result) AddContractFindings(directory func(conn string) string) {
	for c := range r.Conversations {
		for i := range r.Conversations[c].Items {
			it := &r.Conversations[c].Items[i]
			it.Contract = it.ContractFindings(directory(it.Conn))
		}
	}
}

// upload decodes an upload item's detail.
func (it *Item) upload() (uploadDetail, bool) {
	var d uploadDetail
	if it.Kind != KindUpload || json.Unmarshal([]byte(it.Detail), &d) != nil {
		return d, false
	}
	return d, true
}

// ItemIDs are the IDs a ticket needs of one item (find --json): the
// server's IDs and the key of an upload; of a delivery its IDs, the
// receipt and which upload each of its answers answers.
type ItemIDs struct {
	UploadID          string     `json:"uploadId,omitempty"`
	InterchangeID     string     `json:"interchangeId,omitempty"`
	CorrelationID     string     `json:"correlationId,omitempty"`
	Key               string     `json:"key,omitempty"`
	DeliveryAttemptID string     `json:"deliveryAttemptId,omitempty"`
	Receipt           string     `json:"receipt,omitempty"`
	Answers           []AnswerOf `json:"answers,omitempty"`
}

// AnswerOf says which upload one answer of a delivery answers.
type AnswerOf struct {
	Type     string `json:"type"`
	Linked   bool   `json:"linked"`
	UploadID string `json:"uploadId,omitempty"`
	Key      string `json:"key,omitempty"`
	// Text is the link in words ("answers upload of PO-4711 (key …)",
	// "same order number as …"); terminal-safe.
	Text string `json:"text"`
}

// fillIDs sets the IDs of a conversation's items from the links
// linkItems made of them (the one rule).
func fillIDs(c *Conversation, by map[string]*connLinks) {
	for i := range c.Items {
		it := &c.Items[i]
		switch it.Kind {
		case KindUpload:
			if d, ok := it.upload(); ok {
				it.IDs = &ItemIDs{UploadID: d.UploadID, InterchangeID: d.InterchangeID, CorrelationID: d.Corr, Key: d.Key}
			}
		case KindDelivery:
			var d deliveryDetail
			_ = json.Unmarshal([]byte(it.Detail), &d)
			ids := &ItemIDs{DeliveryAttemptID: it.Ref, InterchangeID: d.Interchange, Receipt: d.Receipt}
			if cl := by[it.Conn]; cl != nil {
				for _, j := range cl.pos[it.Ref] {
					a, l := cl.x.Answers[j], cl.x.Link(j)
					of := AnswerOf{Type: a.Type, Linked: l.Linked(), Text: cl.x.AnswerText(j)}
					if l.Linked() {
						of.UploadID, of.Key = cl.ups[l.Upload].UploadID, cl.ups[l.Upload].Key
					}
					ids.Answers = append(ids.Answers, of)
				}
			}
			it.IDs = ids
		}
	}
}
