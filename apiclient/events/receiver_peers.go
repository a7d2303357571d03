package events

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// The delivery rules name no header that says who sends a delivery: the
// sender is in the signed body (envelope.sender). What a receiver can
// know before it reads a body is which senders a peer address delivered
// for before, learned from its committed (so correctly signed)
// deliveries. These bound that memory.
const (
	// maxPeers bounds the peers remembered (one dropped when full).
	maxPeers = 4096
	// maxPeerSenders bounds the senders remembered per peer (the most
	// recent kept).
	maxPeerSenders = 4
)

// NoteSenders records that peer delivered events of senders in a
// committed delivery: the rate those senders used is then judged for
// the peer's next deliveries before their bodies are read
// (CheckPeerRate). Call it only for committed deliveries: their
// signature verified, so the senders are the partner's own words.
func (r *Receiver) NoteSenders(peer string, senders []string) {
	if peer == "" || len(senders) == 0 {
		return
	}
	r.pmu.Lock()
	defer r.pmu.Unlock()
	if r.peers == nil {
		r.peers = map[string][]string{}
	}
	have, ok := r.peers[peer]
	if !ok && len(r.peers) >= maxPeers {
		for k := range r.peers { // any one: a forgotten peer is only judged after its body again
			delete(r.peers, k)
			break
		}
	}
	for _, s := range senders {
		if s == "" || slices.Contains(have, s) {
			continue
		}
		have = append(have, s)
		if len(have) > maxPeerSenders {
			have = have[len(have)-maxPeerSenders:]
		}
	}
	r.peers[peer] = have
}

// CheckPeerRate judges the rate before a body is read: when every sender
// peer delivered for before has used its whole rate limit in the current
// second, the delivery gets the 429 NB-E012 with Retry-After it would
// get after its body was read, and never holds a body slot. A peer not
// seen yet, or one with a sender under its limit, must be read (ok).
func (r *Receiver) CheckPeerRate(peer string, now time.Time) (Answer, bool) {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	if r.opts.RateLimit < 0 {
		return Answer{}, true
	}
	senders := r.peers[peer]
	if len(senders) == 0 {
		return Answer{}, true
	}
	sec := now.Unix()
	for _, s := range senders {
		if r.rate.count(rateSlot{s, sec}) < r.opts.RateLimit {
			return Answer{}, true
		}
	}
	shown := make([]string, len(senders))
	for i, s := range senders {
		shown[i] = clip(s, 40)
	}
	msg := fmt.Sprintf("sender %s (what this address delivers for) already delivered %d events in this second, the limit of %d events/s per partner (%s): nothing was read; resend this delivery unchanged after Retry-After (1 s)",
		strings.Join(shown, ", "), r.opts.RateLimit, r.opts.RateLimit, NBRateLimit)
	c := &checker{}
	c.add(SevError, CodeRateLimit, int(r.seen.Load()), nil, "", "%s", msg)
	a := r.refuse(c, http.StatusTooManyRequests, NBRateLimit, msg)
	a.Result, a.RetryAfter = ResultRetry, 1
	return a, false
}
