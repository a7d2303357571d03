package events

import (
	"fmt"
	"net/http"
	"sort"
)

// Answer is a Receiver's decision on one delivery: the HTTP status and
// body it answers with, and what it found.
type Answer struct {
	// Status is the HTTP status: 200 ACK or DUPLICATE, 202 with a parked
	// event, 400 a rejected event or body, 401 NB-E008, 409 a lower
	// sequence, 413 an event over 1 MiB, 429 NB-E012, 500 not stored.
	Status int `json:"status"`
	// Result is the delivery's result: that of its one event, or for a
	// batch REJECTED when any event was rejected, else ACK.
	Result string `json:"result"`
	// Code is the platform or finding code that explains Result.
	Code string `json:"code,omitempty"`
	// Message says what happened and what the sender should do.
	Message string `json:"message"`
	// RetryAfter is the seconds to wait before resending (NB-E012).
	RetryAfter int `json:"retryAfter,omitempty"`
	// Delivery is the committed delivery's name ("" when not committed).
	Delivery string `json:"delivery,omitempty"`
	// Events are the delivery's events in body order.
	Events []EventAnswer `json:"events"`
	// Released are earlier parked events this delivery released.
	Released []Released `json:"released,omitempty"`
	// Streams are the streams this delivery touched, after it.
	Streams []Stream `json:"streams,omitempty"`
	// Findings are what the checks found, for this delivery (and the
	// events it released).
	Findings []Finding `json:"findings"`
	// Signature is the verdict on X-NB2B-Signature (nil on a replay,
	// whose signature passed when it arrived).
	Signature *Result `json:"signature,omitempty"`
	// Committed is true when the delivery was stored and decided.
	Committed bool `json:"committed"`
}

// EventAnswer is the result for one event of a delivery.
type EventAnswer struct {
	Index          int     `json:"index"`
	Position       int     `json:"position"`
	ID             string  `json:"id,omitempty"`
	Type           string  `json:"type,omitempty"`
	Sender         string  `json:"sender,omitempty"`
	Subject        string  `json:"subject,omitempty"`
	IdempotencyKey string  `json:"idempotencykey,omitempty"`
	Sequence       int64   `json:"sequence,omitempty"`
	Receiver       string  `json:"receiver,omitempty"`
	Source         string  `json:"source,omitempty"`
	Time           string  `json:"time,omitempty"`
	CorrelationID  string  `json:"correlationid,omitempty"`
	CausationID    string  `json:"causationid,omitempty"`
	Env            string  `json:"env,omitempty"`
	Bytes          int     `json:"bytes"`
	Result         string  `json:"result"`
	Outcome        Outcome `json:"outcome"`
	Code           string  `json:"code,omitempty"`
	// Original is the first event with the same key (DUPLICATE).
	Original *Original `json:"original,omitempty"`
}

// Original is the result a key was first answered with.
type Original struct {
	Event    int     `json:"event"`
	Delivery string  `json:"delivery,omitempty"`
	Result   string  `json:"result"`
	Outcome  Outcome `json:"outcome"`
	Code     string  `json:"code,omitempty"`
}

// Released is a parked event processed once its gap filled.
type Released struct {
	Event    int    `json:"event"`
	ID       string `json:"id,omitempty"`
	Delivery string `json:"delivery,omitempty"`
}

// answerEvents fills the per-event results and the delivery's status.
func (r *Receiver) answerEvents(c *checker, a *Answer, dr *DeliveryReport, evs []Event) {
	a.Events = make([]EventAnswer, 0, len(evs))
	worst := http.StatusOK
	rejected, parked := 0, 0
	for i := range evs {
		ev := &evs[i]
		ea := EventAnswer{Index: ev.Index, Position: ev.Position, ID: ev.ID, Type: ev.Type, Sender: ev.Sender, Subject: ev.Subject,
			IdempotencyKey: ev.IdempotencyKey, Sequence: ev.Sequence, Outcome: ev.Outcome, Receiver: ev.Receiver, Source: ev.Source,
			Time: ev.Time, CorrelationID: ev.CorrelationID, CausationID: ev.CausationID, Env: ev.Env, Bytes: ev.Bytes}
		switch ev.Outcome {
		case OutcomeProcessed, OutcomeReleased:
			ea.Result = ResultACK
		case OutcomeParked:
			ea.Result, ea.Code = ResultParked, NBParked
			parked++
		case OutcomeDuplicate:
			ea.Result, ea.Code = ResultDuplicate, NBDuplicate
			if rec := r.l.key([2]string{ev.Receiver, ev.IdempotencyKey}); rec != nil {
				ea.Original = &Original{Event: rec.event, Delivery: rec.name, Outcome: rec.outcome, Result: resultOf(rec.outcome), Code: string(rec.code)}
				if rec.outcome == OutcomeParked {
					ea.Original.Code = NBParked
				}
			}
		default:
			ea.Result = ResultRejected
			ea.Code = string(c.firstError(ev.Index))
			rejected++
			worst = max(worst, statusFor(Code(ea.Code)))
		}
		a.Events = append(a.Events, ea)
	}
	switch {
	case dr.Rejected:
		a.Status, a.Result = http.StatusBadRequest, ResultRejected
		a.Code = string(firstDeliveryError(c, dr.Index))
		a.Message = "the body was rejected as a whole, so none of its events was processed: fix it and send it again"
		if a.Code == string(CodeBatchTooLarge) {
			a.Status = http.StatusRequestEntityTooLarge
		}
	case len(evs) == 1:
		e := a.Events[0]
		a.Result, a.Code = e.Result, e.Code
		a.Status = map[string]int{ResultACK: http.StatusOK, ResultDuplicate: http.StatusOK, ResultParked: http.StatusAccepted}[e.Result]
		if e.Result == ResultRejected {
			a.Status = worst
		}
		a.Message = messageFor(e)
	case rejected > 0:
		a.Status, a.Result = worst, ResultRejected
		a.Message = fmt.Sprintf("%d of %d events were rejected (see events[]); the others were taken: fix the rejected ones and send them with new idempotency keys", rejected, len(evs))
	default:
		a.Status, a.Result = http.StatusOK, ResultACK
		if parked > 0 {
			a.Status = http.StatusAccepted
		}
		a.Message = fmt.Sprintf("%d events taken (see events[] for duplicates and parked ones)", len(evs))
	}
}

func resultOf(o Outcome) string {
	switch o {
	case OutcomeProcessed, OutcomeReleased:
		return ResultACK
	case OutcomeParked:
		return ResultParked
	case OutcomeDuplicate:
		return ResultDuplicate
	}
	return ResultRejected
}

// statusFor is the HTTP status of a rejected event.
func statusFor(c Code) int {
	switch c {
	case CodeEventTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeRegression, CodeDuplicateConflict:
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

func messageFor(e EventAnswer) string {
	switch e.Result {
	case ResultACK:
		return "processed"
	case ResultParked:
		return "parked (" + NBParked + "): a lower sequence is missing; the event is held and processed when the gap fills; do not resend it"
	case ResultDuplicate:
		if e.Original != nil {
			return fmt.Sprintf("duplicate (%s) of event #%d, whose result was %s: not processed again", NBDuplicate, e.Original.Event, e.Original.Result)
		}
		return "duplicate (" + NBDuplicate + "): not processed again"
	}
	return "rejected (" + e.Code + "): see findings; do not resend it unchanged"
}

func firstDeliveryError(c *checker, di int) Code {
	for _, f := range c.findings {
		if f.Delivery == di && f.Event < 0 && f.Severity == SevError {
			return f.Code
		}
	}
	return CodeUnreadable
}

// streamsAfter reports the touched streams and, for each with a gap, what
// is missing (a warning: the receiver waits for the replay).
func (r *Receiver) streamsAfter(c *checker, touched map[*streamState]bool) []Stream {
	list := make([]*streamState, 0, len(touched))
	for st := range touched {
		list = append(list, st)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].order < list[j].order })
	out := make([]Stream, 0, len(list))
	for _, st := range list {
		upTo := st.settle()
		if len(st.Missing) > 0 {
			c.reportGap(st, upTo, SevWarning)
		}
		s := st.snapshot()
		s.Parked = append(make([]int64, 0, len(s.Parked)), s.Parked...)
		out = append(out, s)
	}
	return out
}
