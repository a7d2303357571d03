package orders

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi/answers"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Rejection is an accepted upload that one of the partner's answers
// rejects.
type Rejection struct {
	Upload spool.UploadRecord
	// Answer is the rejecting answer (the latest when several reject);
	// Answer.ID is its deliveryAttemptId.
	Answer answers.Answer
}

// Rejections lists the uploads of l that an answer rejects, oldest
// first (the order of l.Uploads).
func Rejections(l *Linked) []Rejection {
	if l == nil || l.Index == nil {
		return nil
	}
	var out []Rejection
	for i, rec := range l.Uploads {
		var last *answers.Answer
		for _, j := range l.Index.AnswersOf(i) {
			if a := &l.Index.Answers[j]; a.Rejects() {
				last = a
			}
		}
		if last != nil {
			out = append(out, Rejection{Upload: rec, Answer: *last})
		}
	}
	return out
}

// ErrSameAsRejected: the bytes are identical to an upload the partner
// rejected. Errors from Guard wrap it; errors.As gives the
// *SameAsRejectedError with the rejection.
var ErrSameAsRejected = errors.New("these bytes are identical to an upload the partner rejected")

// SameAsRejectedError says which rejected upload the bytes repeat.
type SameAsRejectedError struct {
	Rejection Rejection
	// Fixes is true when the upload is the one the operator named with
	// --fixes (and no answer is linked yet, Rejection.Answer is zero).
	Fixes bool
}

// Error says what was refused, why and what to do; terminal-safe.
func (e *SameAsRejectedError) Error() string {
	r := e.Rejection
	what := "the partner rejected it"
	if r.Answer.Type != "" {
		what = "the partner rejected it (" + r.Answer.Outcome() + ", delivery " + termsafe.String(r.Answer.ID) + ")"
	}
	if e.Fixes {
		what = "it is the upload this file is meant to fix"
	}
	return fmt.Sprintf("%s: %s (key %s, sent %s) had exactly these bytes (sha256 %s) and %s; nothing was sent. "+
		"Fix the file and upload the fix: changed bytes get a new idempotency key. "+
		"To send the same bytes again anyway, add --force (command line only)",
		ErrSameAsRejected, uploadName(r.Upload), termsafe.String(r.Upload.Key), r.Upload.Time.Format("2006-01-02 15:04:05Z07:00"),
		shortSHA(r.Upload.SHA256), what)
}

// Unwrap makes errors.Is(err, ErrSameAsRejected) true.
func (e *SameAsRejectedError) Unwrap() error { return ErrSameAsRejected }

// Guard refuses bytes (by their SHA-256) identical to an upload that a
// linked answer rejected, or to the upload fixes names (the record
// FindUpload returned; nil when none is named), unless force. It is the
// seed's rule "fix and send with a new idempotency key": resending
// rejected bytes unchanged only earns the same rejection.
func Guard(l *Linked, sha string, fixes *spool.UploadRecord, force bool) error {
	if force {
		return nil
	}
	if fixes != nil && strings.EqualFold(fixes.SHA256, sha) {
		err := &SameAsRejectedError{Rejection: Rejection{Upload: *fixes}, Fixes: true}
		for _, r := range Rejections(l) {
			if sameUpload(r.Upload, *fixes) {
				err.Rejection, err.Fixes = r, false
			}
		}
		return err
	}
	var hit *Rejection
	for _, r := range Rejections(l) {
		if strings.EqualFold(r.Upload.SHA256, sha) {
			hit = &r
		}
	}
	if hit != nil {
		return &SameAsRejectedError{Rejection: *hit}
	}
	return nil
}

// ErrUnknownUpload: --fixes names no upload of the connection's history.
var ErrUnknownUpload = errors.New("no such upload in this connection's upload history")

// FindUpload finds the upload id names in history (append order): its
// uploadId as the server gave it, or its Idempotency-Key. The latest
// attempt with a result wins.
func FindUpload(history []spool.UploadRecord, id string) (spool.UploadRecord, error) {
	id = strings.TrimSpace(id)
	var found *spool.UploadRecord
	for _, r := range spool.Attempts(history) {
		if id != "" && (r.UploadID == id || r.Key == id) {
			found = &r
		}
	}
	if found == nil {
		return spool.UploadRecord{}, fmt.Errorf("%w: %q is neither an upload id nor an idempotency key recorded for this connection; nothing was sent (the upload id is in the output of the upload that was rejected)",
			ErrUnknownUpload, termsafe.String(id))
	}
	return *found, nil
}

// FixesRef is what a resend records as the upload it fixes: the
// server's uploadId, else (an upload without one) its key.
func FixesRef(r spool.UploadRecord) string {
	if r.UploadID != "" {
		return r.UploadID
	}
	return r.Key
}

// ResendText says, for the upload history and the timeline, which upload
// r fixes: "resend of upload 9f… (key …:1)", or "" when r fixes none.
// history is the connection's history in append order. Terminal-safe.
func ResendText(history []spool.UploadRecord, r spool.UploadRecord) string {
	if r.Fixes == "" {
		return ""
	}
	prev, err := FindUpload(history, r.Fixes)
	if err != nil {
		return "resend of upload " + termsafe.String(r.Fixes) + " (not in this history)"
	}
	return "resend of " + uploadName(prev) + " (key " + termsafe.String(prev.Key) + ")"
}

func sameUpload(a, b spool.UploadRecord) bool {
	if a.UploadID != "" || b.UploadID != "" {
		return a.UploadID == b.UploadID
	}
	return a.Key == b.Key && strings.EqualFold(a.SHA256, b.SHA256)
}

func uploadName(r spool.UploadRecord) string {
	if r.UploadID != "" {
		return "upload " + termsafe.String(r.UploadID)
	}
	return "the upload"
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}

// FixedBy lists the attempts of history (append order) that name r as
// the upload they fix, oldest first: the other direction of ResendText.
func FixedBy(history []spool.UploadRecord, r spool.UploadRecord) []spool.UploadRecord {
	ref := FixesRef(r)
	var out []spool.UploadRecord
	for _, a := range spool.Attempts(history) {
		if a.Fixes != "" && a.Fixes == ref && !(a.Key == r.Key && strings.EqualFold(a.SHA256, r.SHA256)) {
			out = append(out, a)
		}
	}
	return out
}
