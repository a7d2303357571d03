package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Size limits of the delivery rules. "1 MB" and "10 MB" are read as MiB
// (the larger reading): beyond that a receiver surely rejects (error);
// between the decimal and the binary reading some receivers may
// (warning).
const (
	MaxEventBytes        = 1 << 20
	MaxBatchBytes        = 10 << 20
	maxEventBytesDecimal = 1_000_000
	maxBatchBytesDecimal = 10_000_000
)

// SpecVersion is the envelope version this package checks.
const SpecVersion = "2.0"

// requiredFields are the envelope v2 members every event must carry.
var requiredFields = []string{"specversion", "id", "type", "source", "subject", "time", "sender", "receiver",
	"correlationid", "idempotencykey", "sequence", "env", "data"}

// stringFields are the required members that must be non-empty strings.
var stringFields = map[string]bool{"id": true, "type": true, "source": true, "subject": true, "time": true, "sender": true,
	"receiver": true, "correlationid": true, "idempotencykey": true, "env": true, "specversion": true}

// typeRE is nutrab2b.<family>.<event>.v2; family and event are names of
// letters, digits, '_' or '-' (HEARTBEAT and ERROR_NOTICE are upper case).
var typeRE = regexp.MustCompile(`^nutrab2b\.([A-Za-z0-9][A-Za-z0-9_-]*)\.([A-Za-z0-9][A-Za-z0-9_-]*)\.v2$`)

// Event is what Inspect read of one event. Strings are as sent: sanitise
// them before showing them on a terminal.
type Event struct {
	Index    int `json:"index"`
	Delivery int `json:"delivery"`
	// Position is the 0-based place in a batch, -1 for a single event.
	Position       int    `json:"position"`
	Bytes          int    `json:"bytes"`
	ID             string `json:"id,omitempty"`
	Type           string `json:"type,omitempty"`
	Source         string `json:"source,omitempty"`
	Subject        string `json:"subject,omitempty"`
	Time           string `json:"time,omitempty"`
	Sender         string `json:"sender,omitempty"`
	Receiver       string `json:"receiver,omitempty"`
	CorrelationID  string `json:"correlationid,omitempty"`
	CausationID    string `json:"causationid,omitempty"`
	IdempotencyKey string `json:"idempotencykey,omitempty"`
	// Sequence is 0 when missing or invalid.
	Sequence int64  `json:"sequence,omitempty"`
	Env      string `json:"env,omitempty"`
	// Outcome is what a receiver does with the event, in order: processed,
	// parked (NB-E006, still waiting), released (parked, then processed
	// when the gap filled), duplicate (NB-E005) or rejected.
	Outcome Outcome `json:"outcome"`

	members map[string]json.RawMessage
	raw     []byte
	hasErr  bool
	// unread is true when the receiver rejected the event's whole delivery
	// before reading it (signature, size, unreadable body).
	unread bool
	// at is when a receiver got the event (Unix seconds; 0 in Inspect).
	at int64
}

// Outcome is a receiver's handling of one event.
type Outcome string

// Outcomes.
const (
	OutcomeProcessed Outcome = "processed"
	OutcomeParked    Outcome = "parked"
	OutcomeReleased  Outcome = "released"
	OutcomeDuplicate Outcome = "duplicate"
	OutcomeRejected  Outcome = "rejected"
)

// checker collects findings for one report.
type checker struct {
	findings []Finding
	// base is the index of the first event read (a live receiver counts
	// events across deliveries; Inspect starts at 0).
	base int
	// firstErr is the code of each event's first error finding.
	firstErr map[int]Code
}

func (c *checker) add(sev Severity, code Code, delivery int, ev *Event, field, format string, a ...any) {
	f := Finding{Severity: sev, Code: code, Delivery: delivery, Event: -1, Field: field, Message: fmt.Sprintf(format, a...)}
	if ev != nil {
		f.Event, f.EventID = ev.Index, ev.ID
		if sev == SevError {
			ev.hasErr = true
			if c.firstErr == nil {
				c.firstErr = map[int]Code{}
			}
			if _, ok := c.firstErr[ev.Index]; !ok {
				c.firstErr[ev.Index] = code
			}
		}
	}
	switch code {
	case CodeDuplicate, CodeDuplicateConflict:
		f.Platform = NBDuplicate
	case CodeSequenceGap:
		f.Platform = NBParked
	case CodeSignatureInvalid, CodeSignatureMissing:
		f.Platform = NBSignature
	case CodeRateLimit:
		f.Platform = NBRateLimit
	}
	c.findings = append(c.findings, f)
}

// decodeMembers reads one JSON object's members, in order, refusing a
// member name that appears twice (parsers disagree on which one wins).
func decodeMembers(raw []byte) (map[string]json.RawMessage, string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, "", err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, "", errNotObject
	}
	m := map[string]json.RawMessage{}
	dup := ""
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, "", err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, "", err
		}
		if _, seen := m[k]; seen && dup == "" {
			dup = k
		}
		m[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, "", err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, "", errors.New("data after the end of the JSON object")
	}
	return m, dup, nil
}

var errNotObject = errors.New("not a JSON object")

// checkEnvelope runs the per-event envelope checks and fills ev's fields.
func (c *checker) checkEnvelope(ev *Event, raw []byte) {
	ev.raw, ev.Bytes = raw, len(raw)
	d := ev.Delivery
	switch {
	case len(raw) > MaxEventBytes:
		c.add(SevError, CodeEventTooLarge, d, ev, "", "the event has %d bytes, more than 1 MiB (%d): receivers reject it; move large content (documents, certificates) into attachments[] with an HTTPS URI and its SHA-256", len(raw), MaxEventBytes)
	case len(raw) > maxEventBytesDecimal:
		c.add(SevWarning, CodeEventTooLarge, d, ev, "", "the event has %d bytes, more than 1 MB counted in decimal (1,000,000): a receiver counting so rejects it; keep events well below 1 MB", len(raw))
	}
	if !utf8.Valid(raw) {
		c.add(SevError, CodeInvalidUTF8, d, ev, "", "the event is not valid UTF-8; JSON must be UTF-8 (RFC 8259): fix the sender's encoding")
	}
	m, dup, err := decodeMembers(raw)
	if err != nil {
		if errors.Is(err, errNotObject) {
			c.add(SevError, CodeNotObject, d, ev, "", "an event must be a JSON object")
		} else {
			c.add(SevError, CodeNotObject, d, ev, "", "the event is not valid JSON: %s", err)
		}
		return
	}
	ev.members = m
	if dup != "" {
		c.add(SevError, CodeDuplicateMember, d, ev, dup, "member %q appears twice; receivers disagree on which one counts, so the event is ambiguous: send each member once", dup)
	}
	c.readFields(ev)
	c.checkType(ev)
	c.checkTime(ev)
	c.checkSequence(ev)
	c.checkData(ev)
	c.checkParties(ev)
	c.checkKeyForm(ev)
	c.checkAttachments(ev)
	c.checkInlinePDF(ev)
}

// readFields checks presence and JSON type of the required members and
// copies the strings into ev.
func (c *checker) readFields(ev *Event) {
	dst := map[string]*string{"id": &ev.ID, "type": &ev.Type, "source": &ev.Source, "subject": &ev.Subject, "time": &ev.Time,
		"sender": &ev.Sender, "receiver": &ev.Receiver, "correlationid": &ev.CorrelationID, "idempotencykey": &ev.IdempotencyKey, "env": &ev.Env}
	// id first, so that later findings carry it.
	if s, ok := stringMember(ev.members, "id"); ok {
		ev.ID = s
	}
	for _, name := range requiredFields {
		v, ok := ev.members[name]
		if !ok || string(v) == "null" {
			c.add(SevError, CodeFieldMissing, ev.Delivery, ev, name, "required envelope v2 member %q is missing%s", name, nullNote(ok))
			continue
		}
		if !stringFields[name] {
			continue
		}
		s, ok := stringMember(ev.members, name)
		switch {
		case !ok:
			c.add(SevError, CodeFieldInvalid, ev.Delivery, ev, name, "%q must be a JSON string", name)
		case strings.TrimSpace(s) == "":
			c.add(SevError, CodeFieldInvalid, ev.Delivery, ev, name, "%q is empty", name)
		case name == "specversion":
			if s != SpecVersion {
				c.add(SevError, CodeSpecVersion, ev.Delivery, ev, name, "specversion is %q; this is envelope v2, so it must be the string %q", s, SpecVersion)
			}
		default:
			*dst[name] = s
		}
	}
	if v, ok := ev.members["specversion"]; ok && len(v) > 0 && v[0] != '"' && string(v) != "null" {
		c.add(SevError, CodeSpecVersion, ev.Delivery, ev, "specversion", "specversion must be the string %q, not the JSON value %s", SpecVersion, clip(string(v), 20))
	}
	if v, ok := ev.members["causationid"]; ok && string(v) != "null" {
		s, isStr := stringMember(ev.members, "causationid")
		if !isStr || strings.TrimSpace(s) == "" {
			c.add(SevError, CodeFieldInvalid, ev.Delivery, ev, "causationid", "causationid, when present, must be the non-empty id of the event that caused this one")
		} else {
			ev.CausationID = s
		}
	}
}

func nullNote(present bool) string {
	if present {
		return " (it is null)"
	}
	return ""
}

// stringMember decodes member name as a JSON string.
func stringMember(m map[string]json.RawMessage, name string) (string, bool) {
	v, ok := m[name]
	if !ok || len(v) == 0 || v[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

func (c *checker) checkType(ev *Event) {
	if ev.Type == "" {
		return
	}
	if !typeRE.MatchString(ev.Type) {
		hint := ""
		if strings.HasPrefix(ev.Type, "nutrab2b.") && !strings.HasSuffix(ev.Type, ".v2") {
			hint = " (envelope v2 events end in .v2)"
		}
		c.add(SevError, CodeType, ev.Delivery, ev, "type", "type %q is not nutrab2b.<family>.<event>.v2%s", clip(ev.Type, 80), hint)
	}
}

func (c *checker) checkTime(ev *Event) {
	if ev.Time == "" {
		return
	}
	if _, err := time.Parse(time.RFC3339Nano, ev.Time); err != nil {
		c.add(SevError, CodeTime, ev.Delivery, ev, "time", "time %q is not an RFC 3339 timestamp such as 2025-03-12T10:30:00Z", clip(ev.Time, 40))
	}
}

// checkSequence accepts only a JSON integer literal >= 1 (no fraction, no
// exponent, no string).
func (c *checker) checkSequence(ev *Event) {
	v, ok := ev.members["sequence"]
	if !ok || string(v) == "null" {
		return
	}
	s := string(v)
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err != nil && strings.HasPrefix(s, `"`):
		c.add(SevError, CodeSequence, ev.Delivery, ev, "sequence", "sequence must be a JSON integer, not the string %s", clip(s, 24))
	case err != nil:
		c.add(SevError, CodeSequence, ev.Delivery, ev, "sequence", "sequence %s is not an integer (no fraction or exponent)", clip(s, 24))
	case n < 1:
		c.add(SevError, CodeSequence, ev.Delivery, ev, "sequence", "sequence %d is below 1; sequences start at 1 per sender and subject", n)
	default:
		ev.Sequence = n
	}
}

func (c *checker) checkData(ev *Event) {
	v, ok := ev.members["data"]
	if !ok || string(v) == "null" {
		return
	}
	if v[0] != '{' {
		c.add(SevWarning, CodeDataNotObject, ev.Delivery, ev, "data", "data is not a JSON object; event data is normally an object")
	}
}

// clip shortens untrusted text quoted in a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
