package events

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"time"
)

// Options configure Inspect.
type Options struct {
	// Secrets are the receiver's webhook secrets (several during a
	// rotation). Without one, signatures are parsed but not verified.
	Secrets []Secret
	// Now is the receiver's clock for signature timestamps. When zero, a
	// delivery's captured Date header is used; without one the timestamp
	// is not checked (a capture is read long after it arrived).
	Now time.Time
	// Tolerance is the allowed timestamp skew (DefaultTolerance when 0).
	Tolerance time.Duration
	// StartAtOne makes every sender+subject stream start at sequence 1.
	// By default a stream starts at the lowest sequence in the set, since
	// a capture usually begins in the middle of a stream.
	StartAtOne bool
	// JWKS, when set, verifies every envelope.signature (a detached JWS,
	// see VerifyJWS).
	JWKS *JWKS
}

// Report is everything Inspect found. Events and findings keep the order
// of the input; Findings are grouped by delivery and event.
type Report struct {
	Deliveries []DeliveryReport `json:"deliveries"`
	Events     []Event          `json:"events"`
	Streams    []Stream         `json:"streams"`
	Findings   []Finding        `json:"findings"`
	Errors     int              `json:"errors"`
	Warnings   int              `json:"warnings"`
}

// HasErrors reports whether any finding has error severity.
func (r Report) HasErrors() bool { return r.Errors > 0 }

// DeliveryReport summarises one delivery.
type DeliveryReport struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	Bytes int    `json:"bytes"`
	// Batch is true when the body is a JSON array of events.
	Batch bool `json:"batch"`
	// Events are the indexes of its events in Report.Events.
	Events     []int `json:"events"`
	HasHeaders bool  `json:"hasHeaders"`
	// Signature is the verdict when a header and a secret were present.
	Signature *Result `json:"signature,omitempty"`
	// Clock says what the signature timestamp was compared with: "now"
	// (Options.Now), "date-header" (the captured Date header) or "" (not
	// compared).
	Clock string `json:"clock,omitempty"`
	// Rejected is true when a receiver rejects the whole delivery
	// (signature, size, unreadable body).
	Rejected bool `json:"rejected"`
}

// Inspect checks captured deliveries as a receiver would process them, in
// the given order: every envelope v2 rule per event, then idempotency
// keys, ordering per sender+subject, causation, and signatures when
// Options carry a secret.
func Inspect(deliveries []Delivery, opts Options) Report {
	c := &checker{}
	var rep Report
	for di, d := range deliveries {
		dr := DeliveryReport{Index: di, Name: d.Name, Bytes: len(d.Body), HasHeaders: d.Header != nil}
		c.checkFraming(di, d)
		c.checkSignature(&dr, d, opts)
		c.readBody(&rep, &dr, d)
		if dr.Rejected {
			for _, ei := range dr.Events {
				rep.Events[ei].hasErr, rep.Events[ei].unread = true, true
			}
		}
		rep.Deliveries = append(rep.Deliveries, dr)
	}
	for i := range rep.Events {
		if rep.Events[i].members != nil {
			c.checkJWS(&rep.Events[i], opts.JWKS, false)
		}
	}
	c.checkCausation(rep.Events)
	c.checkEnv(rep.Events)
	c.checkRate(rep.Events, deliveries)
	rep.Streams = c.simulate(rep.Events, opts.StartAtOne)
	rep.Findings = sortFindings(c.findings)
	for _, f := range rep.Findings {
		switch f.Severity {
		case SevError:
			rep.Errors++
		case SevWarning:
			rep.Warnings++
		}
	}
	for i := range rep.Events {
		rep.Events[i].members, rep.Events[i].raw = nil, nil
	}
	return rep
}

func (c *checker) checkFraming(di int, d Delivery) {
	if d.TrailingBytes > 0 {
		c.add(SevWarning, CodeTrailingBytes, di, nil, "", "%d bytes follow the body that Content-Length excludes (often a newline added by an editor); they are not part of the body or its signature", d.TrailingBytes)
	}
	if d.BodyToEOF && len(d.Body) > 0 {
		c.add(SevInfo, CodeTrailingBytes, di, nil, "", "the request has neither Content-Length nor chunked encoding; the rest of the file (%d bytes) was taken as the body", len(d.Body))
	}
}

// readBody splits the body into events and checks each envelope.
func (c *checker) readBody(rep *Report, dr *DeliveryReport, d Delivery) {
	di := dr.Index
	body := bytes.TrimLeft(d.Body, " \t\r\n")
	if len(body) > 0 && body[0] == '[' {
		dr.Batch = true
		switch {
		case len(d.Body) > MaxBatchBytes:
			c.add(SevError, CodeBatchTooLarge, di, nil, "", "the batch has %d bytes, more than 10 MiB (%d): receivers reject all of it; split it into smaller batches", len(d.Body), MaxBatchBytes)
			dr.Rejected = true
		case len(d.Body) > maxBatchBytesDecimal:
			c.add(SevWarning, CodeBatchTooLarge, di, nil, "", "the batch has %d bytes, more than 10 MB counted in decimal (10,000,000): a receiver counting so rejects it; send smaller batches", len(d.Body))
		}
	}
	var elems []json.RawMessage
	positional := dr.Batch
	if dr.Batch {
		var err error
		if elems, err = splitArray(body); err != nil {
			c.add(SevError, CodeUnreadable, di, nil, "", "the batch is not a valid JSON array: %s", err)
			dr.Rejected = true
			return
		}
		if len(elems) == 0 {
			c.add(SevWarning, CodeBatchEmpty, di, nil, "", "the batch is an empty array: there is nothing to process")
		}
	} else {
		if len(body) == 0 || body[0] != '{' {
			c.add(SevError, CodeUnreadable, di, nil, "", "the body is neither a JSON object (one event) nor an array (a batch)")
			dr.Rejected = true
			return
		}
		elems = []json.RawMessage{d.Body}
	}
	for p, raw := range elems {
		ev := Event{Index: c.base + len(rep.Events), Delivery: di, Position: -1}
		if positional {
			ev.Position = p
		}
		c.checkEnvelope(&ev, raw)
		dr.Events = append(dr.Events, ev.Index)
		rep.Events = append(rep.Events, ev)
	}
}

// splitArray returns the raw elements of a JSON array.
func splitArray(body []byte) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []json.RawMessage
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errTrailingJSON
	}
	return out, nil
}

// checkSignature checks a delivery's X-NB2B-Signature.
func (c *checker) checkSignature(dr *DeliveryReport, d Delivery, opts Options) {
	di := dr.Index
	if d.Header == nil {
		if len(opts.Secrets) > 0 {
			c.add(SevInfo, CodeSignatureSkipped, di, nil, "", "no request headers were captured, so the signature was not checked: save them next to the body as NAME%s, or capture the raw request as NAME%s", ExtHeaders, ExtHTTP)
		}
		return
	}
	vals := d.Header.Values(SignatureHeader)
	switch {
	case len(vals) == 0:
		c.add(SevError, CodeSignatureMissing, di, nil, "", "the request has no %s header: a receiver rejects the delivery (%s); the sender must sign every delivery", SignatureHeader, NBSignature)
		dr.Rejected = true
		return
	case len(vals) > 1:
		c.add(SevError, CodeSignatureInvalid, di, nil, "", "the request has %d %s headers; send exactly one (several v1 go into one header during a rotation)", len(vals), SignatureHeader)
		dr.Rejected = true
		return
	}
	if len(opts.Secrets) == 0 {
		if _, err := ParseSignatureHeader(vals[0]); err != nil {
			c.add(SevError, CodeSignatureInvalid, di, nil, "", "%s; a receiver rejects the delivery (%s)", err, NBSignature)
			dr.Rejected = true
			return
		}
		c.add(SevInfo, CodeSignatureSkipped, di, nil, "", "the signature header is well-formed but was not verified: give the webhook secret (--secret-stdin or -c PROFILE)")
		return
	}
	now := opts.Now
	if !now.IsZero() {
		dr.Clock = "now"
	} else if t, err := http.ParseTime(d.Header.Get("Date")); err == nil {
		now, dr.Clock = t, "date-header"
	}
	r, err := VerifyAt(vals[0], d.Body, opts.Secrets, now, opts.Tolerance)
	if err != nil {
		c.add(SevInfo, CodeSignatureSkipped, di, nil, "", "the signature was not verified: %s", err)
		return
	}
	dr.Signature = &r
	if !r.Valid {
		c.add(SevError, CodeSignatureInvalid, di, nil, "", "signature %s", r.Explain())
		dr.Rejected = true
		return
	}
	if !r.TimestampChecked {
		c.add(SevInfo, CodeSignatureTime, di, nil, "", "the signature matches; its timestamp t=%s (%s) was not compared with a clock: give --now UNIX (the time the delivery arrived) to check the ±%ds window",
			r.Signature.T, time.Unix(r.Signature.Timestamp, 0).UTC().Format(time.RFC3339), r.ToleranceSeconds)
	}
}

// sortFindings groups findings by delivery and event, keeping the order
// within a group; findings about the whole set come last.
func sortFindings(fs []Finding) []Finding {
	key := func(f Finding) (int, int) {
		d := f.Delivery
		if d < 0 {
			d = int(^uint(0) >> 1)
		}
		return d, f.Event
	}
	sort.SliceStable(fs, func(i, j int) bool {
		di, ei := key(fs[i])
		dj, ej := key(fs[j])
		if di != dj {
			return di < dj
		}
		return ei < ej
	})
	if fs == nil {
		fs = []Finding{}
	}
	return fs
}
