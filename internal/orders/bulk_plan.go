package orders

import (
	"fmt"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Mode is what to do with marked uploads whose bytes were accepted.
type Mode int

// Modes.
const (
	// Replay sends accepted bytes again under their key: the server
	// answers 200 with replay, no new order.
	Replay Mode = iota
	// Resend uploads accepted bytes as a new order under the next key
	// number: 202.
	Resend
)

// Expected answers of the inbox.
const (
	Expect202       = "202"
	Expect200Replay = "200 replay"
	Expect409       = "409"
	ExpectRetry     = "202, or 200 replay if the earlier attempt arrived"
)

// UploadStep is one marked upload in the plan.
type UploadStep struct {
	Record spool.UploadRecord
	// Action is "replay", "resend", "retry" (the same key: no definitive
	// answer yet, or the server did not take the bytes) or "refused".
	Action string
	Key    string // the key it gets ("" when refused)
	N      int    // its number (0: a key the operator chose)
	Expect string // Expect202, Expect200Replay, Expect409, ExpectRetry
	Why    string // in words, terminal-safe
}

// UploadInput is what UploadPlan needs besides the marks.
type UploadInput struct {
	// History is the connection's upload history in append order.
	History []spool.UploadRecord
	// Rejected reports whether a partner's answer rejected these bytes
	// (resend.Guard's rule: fix them first). nil: none was.
	Rejected func(sha256 string) bool
	// Kept reports whether the bytes of a record can still be read (the
	// spool's copy or the unchanged file); nil: all can.
	Kept func(r spool.UploadRecord) bool
}

// UploadPlan plans marked upload attempts (records of the history), in
// the order given, as the upload screen would decide each one, and
// numbers new keys across the batch: two marked uploads of the same
// order sent anew get n and n+1, never the same key.
func UploadPlan(marked []spool.UploadRecord, in UploadInput, mode Mode) []UploadStep {
	hist := append([]spool.UploadRecord(nil), in.History...)
	out := make([]UploadStep, 0, len(marked))
	for _, r := range marked {
		st := planOne(hist, r, in, mode)
		out = append(out, st)
		if st.Key != "" {
			// What the batch will have recorded when this step ran as
			// expected: the next step decides on top of it.
			next := r
			next.Key, next.N, next.Outcome = st.Key, st.N, spool.OutcomeAccepted
			if st.Expect == Expect409 {
				next.Outcome = spool.OutcomeConflict
			}
			hist = append(hist, next)
		}
	}
	return out
}

func planOne(hist []spool.UploadRecord, r spool.UploadRecord, in UploadInput, mode Mode) UploadStep {
	st := UploadStep{Record: r}
	switch {
	case in.Rejected != nil && in.Rejected(r.SHA256):
		st.Action, st.Why = "refused", "the partner rejected these bytes: fix the file and upload the fix (it gets a new key)"
		return st
	case in.Kept != nil && !in.Kept(r):
		st.Action, st.Why = "refused", "the bytes of this upload are no longer kept: upload the file again from its source"
		return st
	}
	if r.N == 0 && r.Key != "" && (mode == Replay || r.Outcome != spool.OutcomeAccepted) {
		return operatorKey(hist, r, st)
	}
	choice := spool.ChoiceReplay
	if mode == Resend {
		choice = spool.ChoiceNew
	}
	d := spool.Decide(hist, spool.KeyRequest{SenderID: r.SenderID, BusinessID: r.BusinessID, SHA256: r.SHA256, Choice: choice})
	key, err := apiclient.IdempotencyKey(r.SenderID, r.BusinessID, d.N)
	if err != nil {
		st.Action, st.Why = "refused", "no key can be made for it: "+termsafe.String(err.Error())
		return st
	}
	st.Key, st.N = key, d.N
	switch d.Kind {
	case spool.Replay:
		st.Action, st.Expect = "replay", Expect200Replay
		st.Why = "accepted before: same key, the server answers replay, no new order"
	case spool.NewUpload:
		st.Action, st.Expect = "resend", Expect202
		st.Why = fmt.Sprintf("accepted before: a new order under the next number %d", d.N)
	case spool.Retry:
		st.Action, st.Expect = "retry", ExpectRetry
		st.Why = "no definitive acceptance yet (" + string(d.Previous.Outcome) + "): the same key, the server cannot make a duplicate"
		if d.Previous.Outcome == spool.OutcomeFailed {
			st.Expect = Expect202
			st.Why = "the server did not take these bytes (" + failedWhy(d.Previous) + "): the same key stays usable"
		}
	case spool.AfterConflict:
		st.Action, st.Expect = "resend", Expect202
		st.Why = fmt.Sprintf("the key was refused with 409: the next number %d", d.N)
	default:
		st.Action, st.Expect = "resend", Expect202
		st.Why = d.Explain()
	}
	return st
}

// operatorKey plans a record whose key the operator chose: it is reused
// as it is; 409 when the history shows the key accepted for other bytes.
func operatorKey(hist []spool.UploadRecord, r spool.UploadRecord, st UploadStep) UploadStep {
	st.Key, st.N = r.Key, 0
	for _, h := range hist {
		if h.Key == r.Key && h.Outcome == spool.OutcomeAccepted && !strings.EqualFold(h.SHA256, r.SHA256) {
			st.Action, st.Expect = "replay", Expect409
			st.Why = "your key " + termsafe.String(r.Key) + " was accepted for other bytes: the server answers 409"
			return st
		}
	}
	if r.Outcome == spool.OutcomeAccepted {
		st.Action, st.Expect, st.Why = "replay", Expect200Replay, "accepted before under your key: the server answers replay"
	} else {
		st.Action, st.Expect, st.Why = "retry", ExpectRetry, "your key again: no definitive acceptance yet"
	}
	return st
}

func failedWhy(r *spool.UploadRecord) string {
	if r.HTTPStatus != 0 {
		return fmt.Sprintf("HTTP %d %s", r.HTTPStatus, termsafe.String(r.ErrorCode))
	}
	return string(r.Outcome)
}

// UploadPreview is the plan in lines for the confirmation prompt.
// Terminal-safe.
func UploadPreview(steps []UploadStep) []string {
	n := 0
	for _, s := range steps {
		if s.Key != "" {
			n++
		}
	}
	lines := []string{fmt.Sprintf("send %d of %d marked uploads, one at a time; stop at the first failure", n, len(steps))}
	for i, s := range steps {
		what := termsafe.String(s.Record.BusinessID)
		if s.Key == "" {
			lines = append(lines, fmt.Sprintf("  %d. %s: refused, %s", i+1, what, s.Why))
			continue
		}
		lines = append(lines, fmt.Sprintf("  %d. %s: %s with key %s, expect %s (%s)", i+1, what, s.Action, termsafe.String(s.Key), s.Expect, s.Why))
	}
	return lines
}
