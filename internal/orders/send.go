package orders

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Class is what an upload's answer means for the operator.
type Class string

// Classes of upload outcomes.
const (
	ClassAccepted    Class = "accepted"     // 202: the first complete upload
	ClassReplay      Class = "replay"       // 200: a repeat of a completed upload, no new order
	ClassConflict    Class = "conflict"     // 409: the key is bound to other bytes or state
	ClassTooLarge    Class = "too-large"    // 413
	ClassInvalid     Class = "invalid"      // 400: content type, key or request
	ClassNotFound    Class = "not-found"    // 404: connection, key binding or scope
	ClassUnavailable Class = "unavailable"  // 503 or 429: the server did not act; retry later
	ClassInternal    Class = "internal"     // 5xx: may have been stored; retry with the same key
	ClassNetwork     Class = "network"      // no answer: may have arrived; retry with the same key
	ClassCancelled   Class = "cancelled"    // cancelled while sending: may have arrived
	ClassUnexpected  Class = "unexpected"   // an answer that breaks the contract
	ClassNotSent     Class = "not-sent"     // a network failure before the request left
	classUnknownHTTP Class = "unknown-http" // another HTTP status
)

// Outcome is the result of one Send.
type Outcome struct {
	// Record is the history line of the result (file, key, status,
	// uploadId, interchangeId, error code, correlation ID).
	Record spool.UploadRecord
	Class  Class
	// Err is the upload's error; nil for 202 and 200. Its text is
	// terminal-safe (apiclient sanitises server text).
	Err error
	// RecordErr is set when the result could not be written to the
	// history: the key numbering may then repeat this key.
	RecordErr error
	// KeepErr is set when the copy of the sent bytes (spool.KeepSent,
	// what answers are compared with) could not be written; the upload
	// went ahead without it. Its text may quote paths: sanitise it.
	KeepErr error
	// KeyKept reports whether the next attempt of the same bytes reuses
	// this key (the upload may have arrived, or was not taken): a network
	// failure, 5xx, 503, 400, 404. False after 202/200 (the next send of
	// these bytes needs a choice) and 409 (the next one takes the next
	// number).
	KeyKept bool
	// Retry reports whether retrying now with the same key is sensible:
	// the upload may have arrived or the server was unavailable. A 400,
	// 404 or 413 needs a fix first, never an unchanged repeat.
	Retry bool
}

// Accepted reports a 202 or 200 answer.
func (o *Outcome) Accepted() bool { return o.Err == nil }

// Headline is the result in a few words: "202 accepted", "200 replay of
// the earlier upload", "409 ERR_B2B_EXCHANGE_CONFLICT", "no answer
// (network)". Terminal-safe.
func (o *Outcome) Headline() string {
	r := o.Record
	switch {
	case o.Class == ClassAccepted:
		return fmt.Sprintf("%d %s", r.HTTPStatus, termsafe.String(orDefault(r.Status, "accepted")))
	case o.Class == ClassReplay:
		return fmt.Sprintf("%d replay of the earlier upload (%s)", r.HTTPStatus, termsafe.String(orDefault(r.Status, "accepted")))
	case r.HTTPStatus != 0 && r.ErrorCode != "":
		return fmt.Sprintf("%d %s", r.HTTPStatus, termsafe.String(r.ErrorCode))
	case r.HTTPStatus != 0:
		return fmt.Sprintf("HTTP %d", r.HTTPStatus)
	case o.Class == ClassCancelled:
		return "cancelled while sending"
	case o.Class == ClassNotSent:
		return "not sent (network)"
	}
	return "no answer (network)"
}

// Advice says what to do next, from the contract's client action and the
// key rule (see Hint for again); "" after a success. Terminal-safe.
func (o *Outcome) Advice(again string) string {
	if o.Err == nil {
		return ""
	}
	var ae *apiclient.APIError
	action := ""
	if errors.As(o.Err, &ae) && ae.Action != "" {
		action = termsafe.String(ae.Action) + ". "
	}
	return action + Hint(o.Record.Outcome, again)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Send uploads the plan's payload under its key: it reserves the key in
// the history if Reserve was not called (nothing is sent when that
// fails), uploads, appends the result to the history and classifies it.
// The error is only for failures before sending (blocked, no choice,
// reservation); the upload's own failure is Outcome.Err. Calling Send
// again after an outcome with Retry retries with the same key.
func Send(ctx context.Context, c *apiclient.Client, p *Plan) (*Outcome, error) {
	if err := p.Reserve(); err != nil {
		return nil, err
	}
	p.reserved = false // the next Send is a new attempt with its own reservation
	data := p.Preflight.Data()
	// Keep the bytes before they leave, so even an upload whose outcome
	// is unclear can be compared with the partner's answer later. Not
	// being able to keep them does not stop the upload.
	_, keepErr := p.store.KeepSent(p.ConnectionID, data)
	res, err := c.Upload(ctx, p.Key, bytes.NewReader(data), int64(len(data)))
	final := p.record()
	final.Time = time.Time{} // the history stamps the answer's time
	final.Outcome = Classify(err)
	if res != nil {
		final.HTTPStatus, final.UploadID, final.InterchangeID = res.HTTPStatus, res.UploadID, res.InterchangeID
		final.Status, final.Replay, final.CorrelationID = res.Status, res.Replay, res.CorrelationID
		final.ServerTime = res.ServerDate
	}
	var ae *apiclient.APIError
	var ne *apiclient.NetworkError
	switch {
	case errors.As(err, &ae):
		final.HTTPStatus, final.ErrorCode, final.CorrelationID = ae.HTTPStatus, ae.Code, ae.CorrelationID
	case errors.As(err, &ne):
		final.CorrelationID = ne.CorrelationID
	}
	o := &Outcome{Record: final, Err: err, Class: classOf(res, err), KeepErr: keepErr}
	if written, err := p.store.RecordUpload(final); err != nil {
		o.RecordErr = err
	} else {
		o.Record = written // with the time the history stamped
	}
	o.KeyKept = final.Outcome == spool.OutcomeUnclear || final.Outcome == spool.OutcomeFailed
	switch o.Class {
	case ClassNetwork, ClassNotSent, ClassCancelled, ClassInternal, ClassUnavailable, ClassUnexpected:
		o.Retry = true
	}
	return o, nil
}

// Classify decides what an upload answer means for the history: whether
// the next attempt of the same bytes reuses the key (failed, unclear),
// takes the next number (conflict) or needs a choice (accepted).
func Classify(err error) spool.Outcome {
	if err == nil {
		return spool.OutcomeAccepted
	}
	var ae *apiclient.APIError
	if errors.As(err, &ae) {
		switch {
		case ae.HTTPStatus == 409:
			return spool.OutcomeConflict
		case ae.HTTPStatus == 503 || ae.HTTPStatus == 429:
			return spool.OutcomeFailed // the server says it did not act
		case ae.HTTPStatus >= 500:
			return spool.OutcomeUnclear // an internal error may come after storing
		}
		return spool.OutcomeFailed
	}
	var ne *apiclient.NetworkError
	if errors.As(err, &ne) && !ne.Unclear {
		return spool.OutcomeFailed // never reached the server
	}
	return spool.OutcomeUnclear // may or may not have arrived
}

// classOf names the answer for the operator.
func classOf(res *apiclient.UploadResult, err error) Class {
	if err == nil {
		if res != nil && res.Replay {
			return ClassReplay
		}
		return ClassAccepted
	}
	var ae *apiclient.APIError
	var ne *apiclient.NetworkError
	switch {
	case errors.As(err, &ae):
		return apiClass(ae)
	case errors.Is(err, apiclient.ErrUnexpected):
		return ClassUnexpected
	case errors.Is(err, context.Canceled):
		return ClassCancelled
	case errors.As(err, &ne) && !ne.Unclear:
		return ClassNotSent
	}
	return ClassNetwork
}

func apiClass(ae *apiclient.APIError) Class {
	switch {
	case ae.HTTPStatus == 409:
		return ClassConflict
	case ae.HTTPStatus == 413:
		return ClassTooLarge
	case ae.HTTPStatus == 400:
		return ClassInvalid
	case ae.HTTPStatus == 404:
		return ClassNotFound
	case ae.HTTPStatus == 503 || ae.HTTPStatus == 429:
		return ClassUnavailable
	case ae.HTTPStatus >= 500:
		return ClassInternal
	case errors.Is(ae, apiclient.ErrUnexpected):
		return ClassUnexpected
	}
	return classUnknownHTTP
}

// Hint says what the history outcome means for the next attempt; again
// is how the face repeats the upload, e.g. "run the same command again"
// or "press R to retry".
func Hint(o spool.Outcome, again string) string {
	switch o {
	case spool.OutcomeUnclear:
		return "The upload may have arrived. " + capitalize(again) + ": it reuses the key, so the server cannot create a duplicate."
	case spool.OutcomeConflict:
		return "The key is bound to other bytes or state on the server; the next upload of this file takes the next key number."
	case spool.OutcomeFailed:
		return "Nothing was accepted. Fix the cause (for 503: wait) and " + again + "; it reuses the key."
	}
	return ""
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
