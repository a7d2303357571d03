package events

import (
	"sort"
	"time"
)

// DefaultRateLimit is the platform's default limit of events a second per
// partner; beyond it a receiver answers NB-E012 with Retry-After.
const DefaultRateLimit = 100

// maxRateFindings bounds the RATE_LIMIT findings of one set.
const maxRateFindings = 10

// deliveryTime is when a delivery was signed, in Unix seconds: its
// signature's t (a delivery without a readable one is rejected before
// its events count).
func deliveryTime(d Delivery) (int64, bool) {
	if vals := d.Header.Values(SignatureHeader); len(vals) == 1 {
		if sig, err := ParseSignatureHeader(vals[0]); err == nil {
			return sig.Timestamp, true
		}
	}
	return 0, false
}

// checkRate counts the events each sender delivered in each second (by
// deliveryTime; events without headers, or rejected before they were
// read, are not counted) and warns where a second holds more
// than DefaultRateLimit: a receiver at the default limit answers the
// events beyond it with NB-E012 and Retry-After. A warning, since a
// partner may have a higher limit.
func (c *checker) checkRate(evs []Event, ds []Delivery) {
	type count struct {
		over  int // the event index of the first beyond the limit
		order int
	}
	times := make([]int64, len(ds))
	known := make([]bool, len(ds))
	for i, d := range ds {
		times[i], known[i] = deliveryTime(d)
	}
	counts := map[rateSlot]*count{}
	var rc rateCounter
	for i := range evs {
		ev := &evs[i]
		if !known[ev.Delivery] || ev.unread || ev.Sender == "" {
			continue
		}
		k := rateSlot{ev.Sender, times[ev.Delivery]}
		n := counts[k]
		if n == nil {
			n = &count{over: -1, order: len(counts)}
			counts[k] = n
		}
		if rc.add(k, 1) == DefaultRateLimit+1 {
			n.over = i
		}
	}
	var over []rateSlot
	for k, n := range counts {
		if n.over >= 0 {
			over = append(over, k)
		}
	}
	sort.Slice(over, func(i, j int) bool { return counts[over[i]].order < counts[over[j]].order })
	for i, k := range over {
		if i == maxRateFindings {
			c.add(SevWarning, CodeRateLimit, -1, nil, "", "and %d more seconds over the limit", len(over)-maxRateFindings)
			break
		}
		n := counts[k]
		ev := &evs[n.over]
		c.add(SevWarning, CodeRateLimit, ev.Delivery, ev, "",
			"sender %s delivered %d events in the second %s (t=%d), more than the default %d events/s per partner: a receiver at the default limit answers the events from this one on with %s and Retry-After; the sender must wait that long and resend them unchanged (same idempotency key)",
			clip(k.sender, 40), rc.count(k), time.Unix(k.second, 0).UTC().Format(time.RFC3339), k.second, DefaultRateLimit, NBRateLimit)
	}
}

// rateSlot is one sender's events in one second.
type rateSlot struct {
	sender string
	second int64
}

// rateCounter counts events per sender and second: Inspect over a set
// (by signature time), a Receiver live (by its clock, forgetting past
// seconds).
type rateCounter struct {
	counts map[rateSlot]int
}

// add counts n more events in slot k and returns the slot's count.
func (r *rateCounter) add(k rateSlot, n int) int {
	if r.counts == nil {
		r.counts = map[rateSlot]int{}
	}
	r.counts[k] += n
	return r.counts[k]
}

func (r *rateCounter) count(k rateSlot) int { return r.counts[k] }

// forgetBefore drops the seconds before second.
func (r *rateCounter) forgetBefore(second int64) {
	for k := range r.counts {
		if k.second < second {
			delete(r.counts, k)
		}
	}
}
