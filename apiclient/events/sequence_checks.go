package events

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// duplicate reports a repeated idempotency key: the receiver answers
// DUPLICATE with the original result and does not process the repeat.
// members reads the original's members when the bytes differ.
func (c *checker) duplicate(ev *Event, first *keyRecord, members func(*keyRecord) map[string]json.RawMessage) {
	ev.Outcome = OutcomeDuplicate
	var diff []string
	if sha256.Sum256(ev.raw) != first.digest {
		diff = diffMembers(members(first), ev.members)
	}
	origRejected := first.outcome == OutcomeRejected
	switch {
	case len(diff) == 0 && origRejected:
		c.add(SevWarning, CodeDuplicate, ev.Delivery, ev, "idempotencykey",
			"repeat of rejected event #%d with the same key and body: the receiver answers DUPLICATE with the original rejection (%s); never retry a rejection unchanged: fix the event and send it with a new idempotency key and the same sequence",
			first.event, NBDuplicate)
	case len(diff) == 0:
		c.add(SevWarning, CodeDuplicate, ev.Delivery, ev, "idempotencykey",
			"redelivery of event #%d (at-least-once delivery): the receiver answers DUPLICATE with the original result (%s, %s) and does not process it again; nothing to do unless the sender keeps retrying (then it is not getting the ACK)",
			first.event, first.outcome, NBDuplicate)
	case origRejected:
		c.add(SevError, CodeDuplicateConflict, ev.Delivery, ev, "idempotencykey",
			"changed version (%s differ) of rejected event #%d under the same idempotency key: the receiver answers DUPLICATE with the original rejection (%s) and never processes the fix; send the fixed event with a new idempotency key and the same sequence",
			strings.Join(diff, ", "), first.event, NBDuplicate)
	default:
		c.add(SevError, CodeDuplicateConflict, ev.Delivery, ev, "idempotencykey",
			"same idempotency key as event #%d but a different body (%s differ): the receiver answers DUPLICATE with the original result (%s, %s) and silently drops this version, which is worse than a plain duplicate; a changed event needs a new idempotency key (a redelivery must be byte-identical)",
			first.event, strings.Join(diff, ", "), first.outcome, NBDuplicate)
	}
}

// diffMembers lists the top-level members whose JSON values differ
// (compared as values, so member order and whitespace do not count).
func diffMembers(a, b map[string]json.RawMessage) []string {
	var out []string
	for k, av := range a {
		bv, ok := b[k]
		if !ok || !sameJSON(av, bv) {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	if a == nil || b == nil {
		if !(a == nil && b == nil) {
			out = append(out, "(body)")
		}
	}
	sort.Strings(out)
	return out
}

func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	da := json.NewDecoder(bytes.NewReader(a))
	da.UseNumber()
	db := json.NewDecoder(bytes.NewReader(b))
	db.UseNumber()
	if da.Decode(&va) != nil || db.Decode(&vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// checkCausation checks causationid against the ids in the set.
func (c *checker) checkCausation(evs []Event) {
	ids := map[string]int{}
	for i, ev := range evs {
		if _, ok := ids[ev.ID]; !ok && ev.ID != "" {
			ids[ev.ID] = i
		}
	}
	for i := range evs {
		ev := &evs[i]
		if ev.CausationID == "" {
			continue
		}
		j, ok := ids[ev.CausationID]
		switch {
		case ev.CausationID == ev.ID:
			c.add(SevWarning, CodeCausationSelf, ev.Delivery, ev, "causationid", "causationid is the event's own id; it must name the event that triggered this one")
		case !ok:
			c.add(SevWarning, CodeCausation, ev.Delivery, ev, "causationid", "causationid %q is not an event in this set: fine if that event was delivered earlier, otherwise check the id", clip(ev.CausationID, 80))
		case evs[j].CorrelationID != "" && ev.CorrelationID != "" && evs[j].CorrelationID != ev.CorrelationID:
			c.add(SevWarning, CodeCausationCorr, ev.Delivery, ev, "correlationid", "the causing event #%d has correlationid %q, this one %q: events of one business conversation share one correlationid",
				j, clip(evs[j].CorrelationID, 60), clip(ev.CorrelationID, 60))
		}
	}
}

// checkEnv warns when one set mixes environments.
func (c *checker) checkEnv(evs []Event) {
	seen := map[string]int{}
	var order []string
	for _, ev := range evs {
		if ev.Env == "" {
			continue
		}
		if _, ok := seen[ev.Env]; !ok {
			order = append(order, ev.Env)
		}
		seen[ev.Env]++
	}
	if len(order) > 1 {
		parts := make([]string, len(order))
		for i, e := range order {
			parts[i] = fmt.Sprintf("%q (%d)", clip(e, 20), seen[e])
		}
		c.add(SevWarning, CodeEnvMixed, -1, nil, "env", "the set mixes environments %s: an event of one env at a receiver of another is misrouted", strings.Join(parts, ", "))
	}
}
