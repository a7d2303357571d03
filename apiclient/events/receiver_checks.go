package events

import (
	"fmt"
	"net/http"
	"time"
)

// refuse answers a delivery that is not committed: no state changed.
func (r *Receiver) refuse(c *checker, status int, code, msg string) Answer {
	return refuseWith(c, status, code, msg)
}

func refuseWith(c *checker, status int, code, msg string) Answer {
	return Answer{Status: status, Result: ResultRejected, Code: code, Message: msg, Events: []EventAnswer{}, Findings: sortFindings(c.findings)}
}

// checkRate refuses a delivery whose events would take a sender over the
// rate limit in the current second (NB-E012 with Retry-After).
func (r *Receiver) checkRate(c *checker, evs []Event, now time.Time) (Answer, bool) {
	if r.opts.RateLimit < 0 {
		return Answer{}, false
	}
	sec := now.Unix()
	r.pmu.Lock()
	defer r.pmu.Unlock()
	r.rate.forgetBefore(sec)
	per := map[string]int{}
	var order []string
	for i := range evs {
		if s := evs[i].Sender; s != "" {
			if per[s] == 0 {
				order = append(order, s)
			}
			per[s]++
		}
	}
	for _, s := range order {
		had := r.rate.count(rateSlot{s, sec})
		if had+per[s] <= r.opts.RateLimit {
			continue
		}
		wait := 1
		msg := fmt.Sprintf("sender %s already delivered %d events in this second; %d more would exceed the limit of %d events/s per partner (%s): nothing was processed; resend this delivery unchanged after Retry-After (%d s)",
			clip(s, 40), had, per[s], r.opts.RateLimit, NBRateLimit, wait)
		if per[s] > r.opts.RateLimit {
			msg = fmt.Sprintf("the delivery holds %d events of sender %s, more than the limit of %d events/s per partner (%s): split it into batches of at most %d events",
				per[s], clip(s, 40), r.opts.RateLimit, NBRateLimit, r.opts.RateLimit)
			wait = 0
		}
		c.add(SevError, CodeRateLimit, r.deliveries, nil, "", "%s", msg)
		a := r.refuse(c, http.StatusTooManyRequests, NBRateLimit, msg)
		a.Result, a.RetryAfter = ResultRetry, wait
		if wait == 0 {
			a.Result = ResultRejected
		}
		return a, true
	}
	return Answer{}, false
}

func (r *Receiver) countRate(evs []Event, now time.Time) {
	if r.opts.RateLimit < 0 {
		return
	}
	r.pmu.Lock()
	defer r.pmu.Unlock()
	for i := range evs {
		if s := evs[i].Sender; s != "" {
			r.rate.add(rateSlot{s, now.Unix()}, 1)
		}
	}
}

// CheckHeader judges what a delivery's headers alone show, before its
// body is read: a missing, repeated or malformed X-NB2B-Signature, or a
// timestamp outside the tolerance, gets the same 401 NB-E008 Deliver
// gives (so a body that cannot pass is never read and never holds a
// slot). ok means the body must be read to decide.
func (r *Receiver) CheckHeader(h http.Header, now time.Time) (Answer, bool) {
	c := &checker{}
	dr := DeliveryReport{Index: int(r.seen.Load()), HasHeaders: true}
	if h == nil {
		h = http.Header{}
	}
	vals := h.Values(SignatureHeader)
	if len(vals) == 1 {
		sig, err := ParseSignatureHeader(vals[0])
		if err == nil {
			res, err := VerifyAt(vals[0], nil, r.opts.Secrets, now, r.opts.Tolerance)
			if err != nil || res.TimestampOK || !res.TimestampChecked {
				return Answer{}, true
			}
			// Only the timestamp is judged: the body was not read, so
			// whether a v1 matches is unknown.
			res.Reasons, res.SignatureOK = []Reason{ReasonSkew}, false
			res.Signature = sig
			c.add(SevError, CodeSignatureInvalid, dr.Index, nil, "", "signature %s (the body was not read)", res.Explain())
			a := r.refuse(c, http.StatusUnauthorized, NBSignature, "the signature was rejected ("+NBSignature+"): nothing was processed; sign the exact raw body with the shared secret and a current t")
			a.Signature = &res
			return a, false
		}
	}
	c.checkSignature(&dr, Delivery{Header: h}, Options{Secrets: r.opts.Secrets, Now: now, Tolerance: r.opts.Tolerance})
	if !dr.Rejected {
		return Answer{}, true
	}
	a := r.refuse(c, http.StatusUnauthorized, NBSignature, "the signature was rejected ("+NBSignature+"): nothing was processed; sign the exact raw body with the shared secret and a current t")
	a.Signature = dr.Signature
	return a, false
}
