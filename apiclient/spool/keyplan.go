package spool

import (
	"fmt"
	"strings"
)

// Choice is the operator's answer when bytes that were already accepted
// are sent again.
type Choice int

// Choices for resending accepted bytes.
const (
	ChoiceAsk    Choice = iota // no choice made yet
	ChoiceReplay               // send again under the same key: the server answers 200 replay
	ChoiceNew                  // a new upload of the same bytes under the next n
)

// KeyRequest identifies the payload that needs a key: the generated key's
// sender and business id, and the payload's SHA-256.
type KeyRequest struct {
	SenderID   string
	BusinessID string
	SHA256     string
	Choice     Choice
}

// DecisionKind says why a key number was chosen.
type DecisionKind int

// The possible decisions; see Decide.
const (
	FirstUpload   DecisionKind = iota + 1 // nothing sent for this sender and business id yet: n = 1
	NextPayload                           // other bytes were sent before: the next n
	Retry                                 // these bytes were sent without a definitive acceptance: the same key
	NeedChoice                            // these bytes were accepted: the operator must choose replay or new
	Replay                                // operator chose replay: the accepted upload's key
	NewUpload                             // operator chose a new upload of accepted bytes: the next n
	AfterConflict                         // the server refused these bytes under their key (409): the next n
)

var kindNames = map[DecisionKind]string{
	FirstUpload: "first-upload", NextPayload: "next-payload", Retry: "retry",
	NeedChoice: "need-choice", Replay: "replay", NewUpload: "new-upload", AfterConflict: "after-conflict",
}

// String is a stable, machine-friendly name (used in --json output).
func (k DecisionKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("DecisionKind(%d)", int(k))
}

// KeyDecision is the outcome of Decide.
type KeyDecision struct {
	Kind DecisionKind
	// N is the key number to use; 0 for NeedChoice.
	N int
	// ReplayN and NewN are the two options of NeedChoice (also set for
	// Replay and NewUpload).
	ReplayN, NewN int
	// Previous is the latest history record of the same bytes, if any.
	Previous *UploadRecord
}

// Explain is a one-line, human description of the decision.
func (d KeyDecision) Explain() string {
	prev := ""
	if p := d.Previous; p != nil {
		prev = fmt.Sprintf(" (key %s, %s %s)", p.Key, p.Outcome, p.Time.Format("2006-01-02 15:04:05Z07:00"))
	}
	switch d.Kind {
	case FirstUpload:
		return "first upload for this sender and business id"
	case NextPayload:
		return fmt.Sprintf("changed payload for this sender and business id: next number %d", d.N)
	case Retry:
		return "these bytes were sent before without a definitive acceptance" + prev + ": retrying with the same key"
	case NeedChoice:
		return "these bytes were already accepted" + prev + ": choose replay (same key) or new upload (next number)"
	case Replay:
		return "replay of an accepted upload" + prev + ": same key, the server answers with replay"
	case NewUpload:
		return fmt.Sprintf("new upload of already accepted bytes%s: next number %d", prev, d.N)
	case AfterConflict:
		return fmt.Sprintf("the server refused these bytes under their key%s: next number %d", prev, d.N)
	}
	return d.Kind.String()
}

// Decide chooses the idempotency-key number for a payload from the upload
// history, per CONTRACT.md: n numbers the distinct payloads sent for a
// sender and business id, starting at 1. The same bytes again reuse their
// key unless they were accepted (then the operator chooses: replay keeps
// the key, new takes the next n) or the server answered 409 for them (the
// key is bound to something else: next n). Records with N == 0 (keys the
// operator typed) do not take part. Decide is pure; history is in append
// order.
func Decide(history []UploadRecord, req KeyRequest) KeyDecision {
	sha := strings.ToLower(req.SHA256)
	maxN := 0
	var last *UploadRecord
	for i := range history {
		r := &history[i]
		if r.N <= 0 || r.SenderID != req.SenderID || r.BusinessID != req.BusinessID {
			continue
		}
		maxN = max(maxN, r.N)
		if strings.EqualFold(r.SHA256, sha) {
			last = r
		}
	}
	next := maxN + 1
	switch {
	case last == nil && maxN == 0:
		return KeyDecision{Kind: FirstUpload, N: 1}
	case last == nil:
		return KeyDecision{Kind: NextPayload, N: next}
	case last.Outcome == OutcomeConflict:
		return KeyDecision{Kind: AfterConflict, N: next, Previous: last}
	case last.Outcome != OutcomeAccepted:
		return KeyDecision{Kind: Retry, N: last.N, Previous: last}
	}
	d := KeyDecision{ReplayN: last.N, NewN: next, Previous: last}
	switch req.Choice {
	case ChoiceReplay:
		d.Kind, d.N = Replay, last.N
	case ChoiceNew:
		d.Kind, d.N = NewUpload, next
	default:
		d.Kind = NeedChoice
	}
	return d
}
