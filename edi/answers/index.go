package answers

import (
	"slices"
	"strconv"
	"strings"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Index links a connection's answers and uploads once and answers both
// directions. It is immutable; build a new one when either list changes.
type Index struct {
	Uploads  []Upload
	Answers  []Answer
	links    []Link  // per answer
	byUpload [][]int // answer indexes per upload, in answer order
}

// NewIndex links every answer to its upload. Give the answers in the
// order they were created (ties in the mailbox's order): within one
// second the partner's answers go to the uploads in the order it got them.
func NewIndex(uploads []Upload, answers []Answer) *Index {
	x := &Index{Uploads: uploads, Answers: answers, links: make([]Link, len(answers)), byUpload: make([][]int, len(uploads))}
	f := newFinder(uploads)
	f.answered = map[int]map[string]bool{}
	for j, a := range answers {
		l := f.find(a)
		x.links[j] = l
		if l.Linked() {
			x.byUpload[l.Upload] = append(x.byUpload[l.Upload], j)
			if f.answered[l.Upload] == nil {
				f.answered[l.Upload] = map[string]bool{}
			}
			f.answered[l.Upload][a.Type] = true
		}
	}
	return x
}

// Link is the link of answer j (an index in Answers).
func (x *Index) Link(j int) Link { return x.links[j] }

// AnswersOf lists the answers of upload i (an index in Uploads) in the
// order the answers were given.
func (x *Index) AnswersOf(i int) []int { return x.byUpload[i] }

// AnswerText says which upload answer j answers, for the mailbox entry:
//
//	answers upload of PO-123 (key 4012345000009:PO-123:orders:1)
//	answers upload of PO-123 (key …), the latest of 2 uploads with that order number
//	refers to order PO-9: no upload of this connection has it
func (x *Index) AnswerText(j int) string {
	return LinkText(x.Uploads, x.Answers[j], x.links[j])
}

// UploadText says how upload i was answered, for the upload history:
//
//	answered by CONTRL: accepted; ORDRSP: 3 of 5 lines changed
//	no answer yet
func (x *Index) UploadText(i int) string {
	js := x.byUpload[i]
	if len(js) == 0 {
		return "no answer yet"
	}
	several := len(x.Uploads[i].BGMNumbers) > 1
	parts := make([]string, 0, len(js))
	for _, j := range js {
		a := x.Answers[j]
		s := a.Outcome()
		if several && a.Type != "CONTRL" && x.links[j].Ref != "" {
			s = a.Type + " for " + termsafe.String(x.links[j].Ref) + strings.TrimPrefix(s, a.Type)
		}
		parts = append(parts, s)
	}
	return "answered by " + strings.Join(parts, "; ")
}

// LinkText is AnswerText for an answer linked with Find.
func LinkText(uploads []Upload, a Answer, l Link) string {
	if !l.Linked() {
		return unlinkedText(a, l)
	}
	u := uploads[l.Upload]
	var what, reused string
	switch {
	case l.By == ByOrder:
		what = termsafe.String(l.Ref)
		reused = "that order number"
	case len(u.BGMNumbers) > 0:
		what = listed(u.BGMNumbers)
		reused = "that interchange reference"
	default:
		what = "interchange " + termsafe.String(u.ControlRef)
		reused = "that interchange reference"
	}
	s := "answers upload of " + what + " (key " + termsafe.String(u.Key) + ")"
	switch {
	case l.Ambiguous() && l.Later > 0:
		s += ", the upload sent last before it was created; " + count(l.Later, "later upload") + " with " + reused + " came after it"
	case l.Ambiguous():
		s += ", the latest of " + strconv.Itoa(l.Candidates) + " uploads with " + reused
	}
	if l.Skewed {
		s += "; recorded here after the answer was created: this machine's clock is ahead of the server's"
	}
	return s
}

func unlinkedText(a Answer, l Link) string {
	switch {
	case l.Why != "" && a.Type == "CONTRL":
		return "answers interchange " + termsafe.String(l.Ref) + " from " + termsafe.String(a.InterchangeSender) + ": " + l.Why
	case l.Why != "" && strings.HasPrefix(l.Why, "created"):
		return "refers to order " + termsafe.String(l.Ref) + ": " + l.Why
	case l.Why != "":
		return l.Why
	case a.Type == "CONTRL" && l.Ref == "":
		return "the CONTRL does not say which interchange it answers (no UCI reference)"
	case a.Type == "CONTRL":
		return "answers interchange " + termsafe.String(l.Ref) + " from " + termsafe.String(a.InterchangeSender) +
			": no upload of this connection has it"
	case a.Type == "ORDRSP" && l.Ref == "":
		return "names no order (no RFF+ON): cannot be linked to an upload"
	case a.Type == "APERAK" && l.Ref == "":
		return "names no document it refers to (no RFF): cannot be linked to an upload"
	case l.Ref != "":
		return "refers to order " + termsafe.String(l.Ref) + ": no upload of this connection has it"
	}
	return "not an answer b2bx links to uploads"
}

// listed shows up to three numbers: "PO-1, PO-2 and 5 more".
func listed(ns []string) string {
	const most = 3
	var b strings.Builder
	for i, n := range ns {
		if i == most {
			b.WriteString(" and " + strconv.Itoa(len(ns)-most) + " more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(termsafe.String(n))
	}
	return b.String()
}

// Rejection returns the latest answer (an index in Answers) of upload i
// that rejects it (Answer.Rejects); false when none does.
func (x *Index) Rejection(i int) (int, bool) {
	js := x.byUpload[i]
	for k := len(js) - 1; k >= 0; k-- {
		if x.Answers[js[k]].Rejects() {
			return js[k], true
		}
	}
	return -1, false
}

// ResentBy returns the latest later upload (an index in Uploads) that
// sends upload i's order again: one that names it as the upload it fixes
// (Upload.Fixes: `--fixes` and the app's fix flow record it), or one with
// one of its order numbers between the same parties, sent after it. An
// upload that was sent again is history: its conversation's state
// follows the latest attempt, so a rejection a resend fixed no longer
// needs action and an answer it never got is no longer awaited. False
// when i is the latest attempt.
func (x *Index) ResentBy(i int) (int, bool) {
	u := &x.Uploads[i]
	best := -1
	for k := range x.Uploads {
		v := &x.Uploads[k]
		if k == i || v.identity() == u.identity() || !at(v).After(at(u)) {
			continue
		}
		if (v.Fixes != "" && (v.Fixes == u.UploadID || v.Fixes == u.Key)) || sameOrder(u, v) {
			if best < 0 || !at(v).Before(at(&x.Uploads[best])) {
				best = k
			}
		}
	}
	return best, best >= 0
}

// sameOrder says whether two uploads carry one order number between the
// same parties (unknown parties fit).
func sameOrder(u, v *Upload) bool {
	same := func(a, b string) bool { return a == "" || b == "" || a == b }
	if !same(u.Sender, v.Sender) || !same(u.Recipient, v.Recipient) || !same(u.Buyer, v.Buyer) || !same(u.Supplier, v.Supplier) {
		return false
	}
	for _, n := range u.BGMNumbers {
		if n != "" && slices.Contains(v.BGMNumbers, n) {
			return true
		}
	}
	return false
}
