package events

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// heartbeatEvent is the event part of a HEARTBEAT's type
// (nutrab2b.<family>.HEARTBEAT.v2), compared case-insensitively.
const heartbeatEvent = "HEARTBEAT"

// maxHeartbeatClaims bounds how many subjects one HEARTBEAT may report
// before the rest are ignored (and said so).
const maxHeartbeatClaims = 10000

// heartbeatClaim is one "subject: last sequence" of a HEARTBEAT.
type heartbeatClaim struct {
	subject string
	seq     int64
	field   string // its JSON path in the event
}

// isHeartbeat reports whether ev's type names the HEARTBEAT event.
func isHeartbeat(ev *Event) bool {
	m := typeRE.FindStringSubmatch(ev.Type)
	return m != nil && strings.EqualFold(m[2], heartbeatEvent)
}

// applyHeartbeats reads data.last_sequences of every processed HEARTBEAT
// and records, per sender+subject, the highest last sequence reported:
// the receiver then knows what the sender sent beyond what it processed
// (finishStreams reports it as missing).
func (c *checker) applyHeartbeats(evs []Event, l *ledger, startAtOne bool) {
	for i := range evs {
		ev := &evs[i]
		if ev.Outcome != OutcomeProcessed && ev.Outcome != OutcomeReleased || !isHeartbeat(ev) || ev.Sender == "" {
			continue
		}
		c.applyHeartbeat(refOf(ev), ev.Sender, c.heartbeatClaims(ev), l, startAtOne)
	}
}

// applyHeartbeat records one processed HEARTBEAT's claims in the streams
// of its sender and returns the streams it reported on.
func (c *checker) applyHeartbeat(beat eventRef, sender string, claims []heartbeatClaim, l *ledger, startAtOne bool) []*streamState {
	var out []*streamState
	for _, cl := range claims {
		k := streamKey{sender, cl.subject}
		st := l.streamOf(k)
		if st == nil {
			if !startAtOne {
				c.add(SevInfo, CodeHeartbeat, beat.delivery, beat.stub(), cl.field,
					"the HEARTBEAT reports last sequence %d for subject %s, which has no event in this set: if the receiver has not processed sequences up to %d before, the sender must replay them (use --from-start to count this set from sequence 1)",
					cl.seq, clip(cl.subject, 60), cl.seq)
				continue
			}
			st = l.newStream(k)
			st.LastProcessed = 0
		}
		if cl.seq > st.Heartbeat {
			st.Heartbeat, st.beat = cl.seq, beat
		}
		out = append(out, st)
	}
	return out
}

// heartbeatClaims reads data.last_sequences: an object {"<subject>": n}
// or an array [{"subject": …, "sequence": n}] ("last_sequence" is
// accepted for "sequence"). What cannot be read is a warning.
func (c *checker) heartbeatClaims(ev *Event) []heartbeatClaim {
	const field = "data.last_sequences"
	var data map[string]json.RawMessage
	if json.Unmarshal(ev.members["data"], &data) != nil {
		data = nil
	}
	raw, ok := data["last_sequences"]
	if !ok || string(raw) == "null" {
		c.add(SevWarning, CodeHeartbeat, ev.Delivery, ev, field,
			"a HEARTBEAT without data.last_sequences: a receiver cannot detect gaps from it; the sender should report its last sequence per subject, e.g. {\"PO-4711\": 6}")
		return nil
	}
	var out []heartbeatClaim
	var bad []string
	ignored := 0
	claim := func(subject string, v json.RawMessage, path string) {
		n, err := strconv.ParseInt(string(v), 10, 64)
		switch {
		case strings.TrimSpace(subject) == "":
			bad = append(bad, path+": no subject")
		case err != nil || n < 1:
			bad = append(bad, fmt.Sprintf("%s: %s is not a sequence (an integer >= 1)", path, clip(string(v), 24)))
		case len(out) == maxHeartbeatClaims:
			ignored++
		default:
			out = append(out, heartbeatClaim{subject: subject, seq: n, field: path})
		}
	}
	var obj map[string]json.RawMessage
	var list []map[string]json.RawMessage
	switch {
	case json.Unmarshal(raw, &obj) == nil && obj != nil:
		subjects := make([]string, 0, len(obj))
		for k := range obj {
			subjects = append(subjects, k)
		}
		sort.Strings(subjects)
		for _, subject := range subjects {
			claim(subject, obj[subject], field+"."+subject)
		}
	case json.Unmarshal(raw, &list) == nil:
		for i, e := range list {
			subject, _ := stringMember(e, "subject")
			v, ok := e["sequence"]
			if !ok {
				v = e["last_sequence"]
			}
			claim(subject, v, fmt.Sprintf("%s[%d]", field, i))
		}
	default:
		bad = append(bad, "it is neither an object {\"<subject>\": n} nor an array [{\"subject\": …, \"sequence\": n}]")
	}
	if ignored > 0 {
		bad = append(bad, fmt.Sprintf("%d subjects beyond the first %d are ignored", ignored, maxHeartbeatClaims))
	}
	if len(bad) > 0 {
		if len(bad) > 5 {
			bad = append(bad[:5], fmt.Sprintf("and %d more", len(bad)-5))
		}
		c.add(SevWarning, CodeHeartbeat, ev.Delivery, ev, field,
			"the HEARTBEAT's last_sequences cannot be read in full, so gaps there go unnoticed: %s", strings.Join(bad, "; "))
	}
	return out
}
