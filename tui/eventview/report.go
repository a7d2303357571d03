package eventview

import (
	"fmt"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// report is an events.Report prepared for drawing, once when it arrives:
// every string from the capture already through termsafe, so View only
// picks and cuts lines.
type report struct {
	raw      events.Report
	findings []findingRow
	streams  []streamRow
	dups     []dupRow
	sigs     []sigRow
	outcomes string // "3 processed, 1 parked, …"
	sigSum   string // one line about the signatures
}

// findingRow is one finding, sanitised.
type findingRow struct {
	sev      events.Severity
	code     string // stable code, then the platform code when one applies
	where    string // "#4 evt-0002 idempotencykey", "D1", "set"
	msg      string
	search   string // lower-case text the filter matches
	event    int
	delivery int
}

// streamRow is the ordering state of one sender+subject.
type streamRow struct {
	name    string // "sender 4012345000009 · subject PO-4711"
	line    string // processed, parked, replay, regressions
	short   string // the head's one line, what to do first: "4012345000009 / PO-4711: replay 4-5 · parked 6 …"
	problem bool   // something is missing (parked, or beyond a HEARTBEAT) or was rejected as a regression
}

// dupRow is one repeated idempotency key and what the receiver answers.
type dupRow struct {
	event    int
	line     string // "#3 evt-0001 key … → DUPLICATE + the original result of #0: processed"
	msg      string // the finding's message
	conflict bool   // same key, different body
}

// sigRow is one delivery's signature verdict.
type sigRow struct {
	delivery int
	line     string
	ok, bad  bool
}

// newReport prepares r for drawing.
func newReport(r events.Report) *report {
	rep := &report{raw: r}
	rep.findings = make([]findingRow, len(r.Findings))
	for i, f := range r.Findings {
		rep.findings[i] = newFindingRow(r, f)
	}
	rep.streams = streamRows(r)
	rep.dups = dupRows(r)
	rep.sigs, rep.sigSum = sigRows(r)
	rep.outcomes = outcomeCounts(r.Events)
	return rep
}

func newFindingRow(r events.Report, f events.Finding) findingRow {
	code := string(f.Code)
	if f.Platform != "" {
		code += " " + f.Platform
	}
	where := "set"
	switch {
	case f.Event >= 0:
		where = fmt.Sprintf("#%d", f.Event)
		if f.EventID != "" {
			where += " " + termsafe.String(human.Clip(f.EventID, 40))
		}
	case f.Delivery >= 0:
		where = fmt.Sprintf("D%d", f.Delivery)
		if f.Delivery < len(r.Deliveries) {
			where += " " + termsafe.String(human.Clip(baseName(r.Deliveries[f.Delivery].Name), 40))
		}
	}
	if f.Field != "" {
		where += " " + termsafe.String(f.Field)
	}
	row := findingRow{sev: f.Severity, code: code, where: where, msg: termsafe.String(f.Message),
		event: f.Event, delivery: f.Delivery}
	row.search = strings.ToLower(strings.Join([]string{string(f.Severity), code, where, row.msg}, " "))
	return row
}

// streamRows describes each stream: the sequences processed, what is
// still parked (NB-E006), what the sender must replay, and the
// regressions the receiver rejected.
func streamRows(r events.Report) []streamRow {
	regress := map[[2]string][]int64{}
	for _, f := range r.Findings {
		if f.Code == events.CodeRegression && f.Event >= 0 && f.Event < len(r.Events) {
			ev := r.Events[f.Event]
			k := [2]string{ev.Sender, ev.Subject}
			regress[k] = append(regress[k], ev.Sequence)
		}
	}
	rows := make([]streamRow, 0, len(r.Streams))
	for _, s := range r.Streams {
		sender, subject := termsafe.String(human.Clip(s.Sender, 40)), termsafe.String(human.Clip(s.Subject, 60))
		row := streamRow{name: "sender " + sender + " · subject " + subject}
		var replay, parked, beat, regressions string
		if len(s.Parked) > 0 {
			parked = fmt.Sprintf("parked %s (%s)", human.Int64s(s.Parked, 20), events.NBParked)
			row.problem = true
		}
		if s.Heartbeat > s.LastProcessed {
			beat = fmt.Sprintf("HEARTBEAT reports %d", s.Heartbeat)
		}
		if len(s.Missing) > 0 {
			replay = "the sender must replay " + termsafe.String(strings.Join(s.Missing, ", "))
			row.problem = true
		}
		if rs := regress[[2]string{s.Sender, s.Subject}]; len(rs) > 0 {
			regressions = fmt.Sprintf("%s rejected: %s", countNoun(len(rs), "regression", "regressions"), human.Int64s(rs, 20))
			row.problem = true
		}
		row.line = joinSome(processedText(s), parked, beat, replay, regressions)
		if !row.problem {
			row.line += " · no gap"
		}
		row.short = sender + " / " + subject + ": " + joinSome(replay, parked, beat, regressions, processedText(s))
		rows = append(rows, row)
	}
	return rows
}

// joinSome joins the non-empty parts with " · ".
func joinSome(parts ...string) string {
	out := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " · ")
}

func processedText(s events.Stream) string {
	switch {
	case s.LastProcessed < s.First:
		return fmt.Sprintf("nothing processed (starts at %d)", s.First)
	case s.LastProcessed == s.First:
		return fmt.Sprintf("processed %d", s.First)
	}
	return fmt.Sprintf("processed %d-%d", s.First, s.LastProcessed)
}

// dupRows lists every event the receiver answered with DUPLICATE
// (NB-E005), with the original it repeats.
func dupRows(r events.Report) []dupRow {
	byEvent := map[int]events.Finding{}
	for _, f := range r.Findings {
		if (f.Code == events.CodeDuplicate || f.Code == events.CodeDuplicateConflict) && f.Event >= 0 {
			byEvent[f.Event] = f
		}
	}
	// Idempotency keys are remembered per receiver (events' rule): the
	// original is the first event with the same receiver and key.
	first := map[[2]string]int{}
	var rows []dupRow
	for i, ev := range r.Events {
		k := [2]string{ev.Receiver, ev.IdempotencyKey}
		j, seen := first[k]
		if !seen && ev.IdempotencyKey != "" {
			first[k] = i
		}
		if ev.Outcome != events.OutcomeDuplicate {
			continue
		}
		f := byEvent[i]
		row := dupRow{event: i, conflict: f.Code == events.CodeDuplicateConflict, msg: termsafe.String(f.Message)}
		orig := "the original result"
		if seen {
			orig = fmt.Sprintf("the original result of #%d: %s", j, r.Events[j].Outcome)
		}
		row.line = fmt.Sprintf("#%d %s key %s → DUPLICATE + %s (%s)", i, human.OrDash(termsafe.String(human.Clip(ev.ID, 40))),
			termsafe.String(human.Clip(ev.IdempotencyKey, 60)), orig, events.NBDuplicate)
		rows = append(rows, row)
	}
	return rows
}

// sigRows gives each delivery's signature verdict and a summary line.
func sigRows(r events.Report) ([]sigRow, string) {
	byDelivery := map[int]events.Finding{}
	for _, f := range r.Findings {
		if f.Event < 0 && f.Delivery >= 0 {
			switch f.Code {
			case events.CodeSignatureMissing, events.CodeSignatureInvalid, events.CodeSignatureSkipped:
				if _, ok := byDelivery[f.Delivery]; !ok {
					byDelivery[f.Delivery] = f
				}
			}
		}
	}
	var valid, invalid, unchecked, noHeaders int
	rows := make([]sigRow, 0, len(r.Deliveries))
	for _, d := range r.Deliveries {
		row := sigRow{delivery: d.Index}
		name := fmt.Sprintf("D%d %s: ", d.Index, termsafe.String(human.Clip(baseName(d.Name), 60)))
		f, hasFinding := byDelivery[d.Index]
		switch s := d.Signature; {
		case !d.HasHeaders:
			noHeaders++
			row.line = name + "headers not captured, signature not checked (save NAME.headers next to NAME.json, or capture the raw request as NAME.http)"
		case s != nil && s.Valid:
			valid++
			row.ok = true
			row.line = name + validText(d)
		case s != nil:
			invalid++
			row.bad = true
			row.line = name + termsafe.String(s.Explain()) // "invalid (NB-E008): …", with the skew
		case hasFinding && f.Severity == events.SevError:
			invalid++
			row.bad = true
			row.line = name + "INVALID " + events.NBSignature + ": " + termsafe.String(f.Message)
		default:
			unchecked++
			row.line = name + "not verified: give the webhook secret (s: type it, K: from the profile's keyring)"
		}
		rows = append(rows, row)
	}
	var sum []string
	if valid > 0 {
		sum = append(sum, fmt.Sprintf("%d valid", valid))
	}
	if invalid > 0 {
		sum = append(sum, fmt.Sprintf("%d invalid (%s)", invalid, events.NBSignature))
	}
	if unchecked > 0 {
		sum = append(sum, fmt.Sprintf("%d not verified (no secret)", unchecked))
	}
	if noHeaders > 0 {
		sum = append(sum, fmt.Sprintf("%d without headers", noHeaders))
	}
	return rows, "signatures: " + strings.Join(sum, ", ")
}

// validText describes a valid signature: which v1 and secret matched, and
// the skew against which clock.
func validText(d events.DeliveryReport) string {
	s := d.Signature
	line := fmt.Sprintf("valid (v1 %d, secret %d, t=%s", s.MatchedV1, s.MatchedSecret, termsafe.String(s.Signature.T))
	switch d.Clock {
	case "now":
		line += fmt.Sprintf(", skew %ds against now, ±%ds allowed", s.SkewSeconds, s.ToleranceSeconds)
	case "date-header":
		line += fmt.Sprintf(", skew %ds against the Date header, ±%ds allowed", s.SkewSeconds, s.ToleranceSeconds)
	default:
		line += ", timestamp not compared with a clock: no Date header captured"
	}
	return line + ")"
}

var outcomeOrder = []events.Outcome{events.OutcomeProcessed, events.OutcomeReleased, events.OutcomeParked,
	events.OutcomeDuplicate, events.OutcomeRejected}

// outcomeCounts says what the receiver did with the events.
func outcomeCounts(evs []events.Event) string {
	n := map[events.Outcome]int{}
	for _, ev := range evs {
		n[ev.Outcome]++
	}
	var parts []string
	for _, o := range outcomeOrder {
		if n[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[o], o))
		}
	}
	return strings.Join(parts, ", ")
}
