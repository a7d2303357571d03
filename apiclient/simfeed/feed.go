// Package simfeed turns what happens in the Partner API simulator
// (apiclient/partnersim) into signed envelope v2 webhook events and
// sends them with a webhook.Sender: an upload accepted, an answer
// produced, a delivery due, and a HEARTBEAT with the last sequence of
// every stream. Optional faults make each of the receiver's findings
// happen once: a duplicate, an out-of-order pair, a gap filled by a
// replay after a HEARTBEAT, a bad signature, a stale timestamp, an
// oversized event and a burst over the rate limit. `b2bx sim --webhook`
// and `b2bx demo` run it.
//
// It reads the simulator only through its public snapshot methods
// (ConnectionIDs, Uploads, Entries), polling, so the simulator knows
// nothing of webhooks.
package simfeed

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/events/webhook"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// The simulated parties (GLNs with valid GS1 check digits).
const (
	SenderGLN   = "4012345000009"
	ReceiverGLN = "4098765000003"
)

// Fault names.
const (
	FaultDuplicate  = "duplicate"
	FaultOutOfOrder = "out-of-order"
	FaultGap        = "gap"
	FaultSignature  = "bad-signature"
	FaultStale      = "stale-timestamp"
	FaultOversized  = "oversized"
	FaultBurst      = "burst"
)

// AllFaults lists every fault in the order they are played.
var AllFaults = []string{FaultDuplicate, FaultOutOfOrder, FaultGap, FaultSignature, FaultStale, FaultOversized, FaultBurst}

// ParseFaults reads a comma-separated fault list ("all" for every one).
func ParseFaults(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	if s == "all" {
		return AllFaults, nil
	}
	known := map[string]bool{}
	for _, f := range AllFaults {
		known[f] = true
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !known[f] {
			return nil, fmt.Errorf("unknown fault %q: choose from all, %s", f, strings.Join(AllFaults, ", "))
		}
		out = append(out, f)
	}
	return out, nil
}

// Options configure a Feed.
type Options struct {
	Sim    *partnersim.Sim
	Sender *webhook.Sender
	// Poll is how often the simulator is looked at (500 ms when 0).
	Poll time.Duration
	// Heartbeat is how often a HEARTBEAT goes out (10 s when 0).
	Heartbeat time.Duration
	// Faults are played once each, in order, FaultPause apart, after
	// the first HEARTBEAT.
	Faults     []string
	FaultPause time.Duration
	// Env is the envelope's env ("sim" when empty).
	Env string
	// Log, when set, gets one line per send (no secret, no body).
	Log func(Sent)
	// Run tags this run's subjects and keys ("<subject>@<run>"; a random
	// one when empty), so a second run against the same receiver starts
	// new streams instead of repeating sequences it already processed.
	Run string
	// Wait, when set, holds the first send until the receiver is there
	// (b2bx demo: until the app's listener accepts); what happens in the
	// simulator meanwhile is sent after it.
	Wait func(ctx context.Context) error
}

// Sent is what the feed reports of one send.
type Sent struct {
	// What says what was sent: an event type, or "fault <name>: …".
	What     string         `json:"what"`
	Fault    string         `json:"fault,omitempty"`
	Subject  string         `json:"subject,omitempty"`
	Sequence int64          `json:"sequence,omitempty"`
	Events   int            `json:"events"`
	Result   webhook.Result `json:"result"`
	Status   int            `json:"status"`
	Outcome  string         `json:"outcome"`
	Codes    []events.Code  `json:"codes,omitempty"`
	Answer   *events.Answer `json:"-"`
}

// Feed sends the simulator's events.
type Feed struct {
	o Options

	mu    sync.Mutex
	seq   map[string]int64 // subject -> last sequence sent
	n     int              // events made (ids)
	known map[string]bool  // uploads and entries seen
	due   map[string]bool  // entries announced due
}

// New returns a Feed.
func New(o Options) *Feed {
	if o.Poll <= 0 {
		o.Poll = 500 * time.Millisecond
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 10 * time.Second
	}
	if o.Env == "" {
		o.Env = "sim"
	}
	if o.Run == "" {
		var b [3]byte
		_, _ = rand.Read(b[:])
		o.Run = hex.EncodeToString(b[:])
	}
	return &Feed{o: o, seq: map[string]int64{}, known: map[string]bool{}, due: map[string]bool{}}
}

// Run sends events until ctx ends: what the simulator holds when Run
// starts is the baseline (not announced); what happens after is (once
// Options.Wait returned). The
// faults play once after the first HEARTBEAT. Sends are sequential, so
// each stream's events go out in order (a retry holds the next event
// back, as an ordered sender does).
func (f *Feed) Run(ctx context.Context) error {
	f.poll(ctx, true)
	if f.o.Wait != nil {
		if err := f.o.Wait(ctx); err != nil {
			return err
		}
	}
	f.heartbeat(ctx)
	faults := f.o.Faults
	poll := time.NewTicker(f.o.Poll)
	defer poll.Stop()
	beat := time.NewTicker(f.o.Heartbeat)
	defer beat.Stop()
	var nextFault <-chan time.Time
	if len(faults) > 0 {
		nextFault = time.After(0)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-poll.C:
			f.poll(ctx, false)
		case <-beat.C:
			f.heartbeat(ctx)
		case <-nextFault:
			f.playFault(ctx, faults[0])
			faults = faults[1:]
			nextFault = nil
			if len(faults) > 0 {
				nextFault = time.After(f.o.FaultPause)
			}
		}
	}
}

// event builds one envelope v2 event on subject with the next sequence.
type event struct {
	typ, subject, business, correlation string
	seq                                 int64
	n                                   int // key counter
	data                                map[string]any
}

func (f *Feed) next(subject string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq[subject]++
	return f.seq[subject]
}

func (f *Feed) marshal(e event) []byte {
	f.mu.Lock()
	f.n++
	id := fmt.Sprintf("sim-%06d", f.n)
	f.mu.Unlock()
	n := max(e.n, 1)
	corr := e.correlation
	if corr == "" {
		corr = e.business
	}
	m := map[string]any{"specversion": events.SpecVersion, "id": id, "type": "nutrab2b.exchange." + e.typ + ".v2",
		"source": "b2bx-sim", "subject": e.subject, "time": time.Now().UTC().Format(time.RFC3339),
		"sender": SenderGLN, "receiver": ReceiverGLN, "correlationid": corr,
		"idempotencykey": fmt.Sprintf("%s:%s:%s:%d", SenderGLN, e.business, e.typ, n),
		"sequence":       e.seq, "env": f.o.Env, "data": e.data}
	b, _ := json.Marshal(m) // strings, numbers and maps: cannot fail
	return b
}

// tag marks a subject or business id with the run.
func (f *Feed) tag(s string) string { return s + "@" + f.o.Run }

// poll announces uploads and entries that appeared since the last poll.
func (f *Feed) poll(ctx context.Context, baseline bool) {
	now := time.Now()
	for _, conn := range f.o.Sim.ConnectionIDs() {
		subject := f.tag("connection/" + conn)
		for _, u := range f.o.Sim.Uploads(conn) {
			if f.known["u"+u.ID] {
				continue
			}
			f.known["u"+u.ID] = true
			if !baseline {
				f.send(ctx, "", event{typ: "upload_accepted", subject: subject, business: f.tag(u.ID), correlation: orID(u.InterchangeID, u.ID),
					data: map[string]any{"connectionId": conn, "uploadId": u.ID, "interchangeId": u.InterchangeID, "size": u.Size}}, webhook.SendOptions{})
			}
		}
		for _, e := range f.o.Sim.Entries(conn) {
			key := "e" + e.DeliveryAttemptID
			visible := !now.Before(e.DueAt)
			if !f.known[key] {
				f.known[key] = true
				if baseline {
					f.due[key] = true
					continue
				}
				f.send(ctx, "", event{typ: "answer_produced", subject: subject, business: f.tag(e.DeliveryAttemptID), correlation: orID(e.InterchangeID, e.DeliveryAttemptID),
					data: map[string]any{"connectionId": conn, "deliveryAttemptId": e.DeliveryAttemptID, "messageType": e.MessageType, "dueAt": e.DueAt.UTC().Format(time.RFC3339)}}, webhook.SendOptions{})
			}
			if visible && !f.due[key] {
				f.due[key] = true
				f.send(ctx, "", event{typ: "delivery_due", subject: subject, business: f.tag(e.DeliveryAttemptID), correlation: orID(e.InterchangeID, e.DeliveryAttemptID),
					data: map[string]any{"connectionId": conn, "deliveryAttemptId": e.DeliveryAttemptID, "messageType": e.MessageType, "size": e.Size}}, webhook.SendOptions{})
			}
		}
	}
}

func orID(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// heartbeat reports the last sequence of every stream sent so far.
func (f *Feed) heartbeat(ctx context.Context) Sent {
	last := map[string]int64{}
	f.mu.Lock()
	for s, n := range f.seq {
		if s != f.tag("heartbeat") {
			last[s] = n
		}
	}
	f.mu.Unlock()
	seq := f.next(f.tag("heartbeat"))
	return f.send(ctx, "", event{typ: "HEARTBEAT", subject: f.tag("heartbeat"), business: f.tag(fmt.Sprintf("heartbeat-%d", seq)), seq: seq,
		data: map[string]any{"last_sequences": last}}, webhook.SendOptions{})
}

// send builds (unless e.seq is set, taking the next sequence) and sends
// one event.
func (f *Feed) send(ctx context.Context, fault string, e event, opt webhook.SendOptions) Sent {
	if e.seq == 0 {
		e.seq = f.next(e.subject)
	}
	return f.deliver(ctx, fault, e.typ, e.subject, e.seq, 1, f.marshal(e), opt)
}

func (f *Feed) deliver(ctx context.Context, fault, what, subject string, seq int64, n int, body []byte, opt webhook.SendOptions) Sent {
	res := f.o.Sender.Send(ctx, body, opt, nil)
	s := Sent{What: what, Fault: fault, Subject: subject, Sequence: seq, Events: n, Result: res}
	last := res.Last()
	s.Status, s.Outcome = last.Status, last.Answer.Result
	a := last.Answer
	s.Answer = &a
	seen := map[events.Code]bool{}
	for _, at := range res.Attempts {
		for _, fd := range at.Answer.Findings {
			if !seen[fd.Code] {
				seen[fd.Code] = true
				s.Codes = append(s.Codes, fd.Code)
			}
		}
	}
	sort.Slice(s.Codes, func(i, j int) bool { return s.Codes[i] < s.Codes[j] })
	if f.o.Log != nil {
		f.o.Log(s)
	}
	return s
}

// playFault makes one finding happen.
func (f *Feed) playFault(ctx context.Context, name string) {
	sub := f.tag("fault/" + name)
	ev := func(seq int64, n int, data map[string]any) event {
		if data == nil {
			data = map[string]any{"fault": name}
		}
		return event{typ: "fault_probe", subject: sub, business: f.tag(fmt.Sprintf("%s-%d", name, seq)), seq: seq, n: n, data: data}
	}
	switch name {
	case FaultDuplicate:
		// A redelivery after a lost ACK: the same bytes twice.
		body := f.marshal(ev(f.next(sub), 1, nil))
		f.deliver(ctx, name, "fault duplicate: first delivery", sub, 1, 1, body, webhook.SendOptions{})
		f.deliver(ctx, name, "fault duplicate: the same event again", sub, 1, 1, body, webhook.SendOptions{})
	case FaultOutOfOrder:
		s1, s2 := f.next(sub), f.next(sub)
		b1, b2 := f.marshal(ev(s1, 1, nil)), f.marshal(ev(s2, 1, nil))
		f.deliver(ctx, name, "fault out-of-order: the second event first", sub, s2, 1, b2, webhook.SendOptions{})
		f.deliver(ctx, name, "fault out-of-order: then the first", sub, s1, 1, b1, webhook.SendOptions{})
	case FaultGap:
		// Sequence 2 is lost on the way; only the HEARTBEAT shows it, and
		// the sender replays it unchanged.
		s1, s2 := f.next(sub), f.next(sub)
		b2 := f.marshal(ev(s2, 1, nil))
		f.deliver(ctx, name, "fault gap: sequence 1 (2 is lost)", sub, s1, 1, f.marshal(ev(s1, 1, nil)), webhook.SendOptions{})
		f.heartbeat(ctx)
		f.deliver(ctx, name, "fault gap: replay of sequence 2 after the HEARTBEAT", sub, s2, 1, b2, webhook.SendOptions{})
	case FaultSignature:
		wrong := secret.New("not-the-shared-secret")
		s := f.next(sub)
		body := f.marshal(ev(s, 1, nil))
		f.deliver(ctx, name, "fault bad-signature: signed with another secret", sub, s, 1, body, webhook.SendOptions{SignWith: &wrong})
		f.deliver(ctx, name, "fault bad-signature: signed right", sub, s, 1, body, webhook.SendOptions{})
	case FaultStale:
		s := f.next(sub)
		body := f.marshal(ev(s, 1, nil))
		f.deliver(ctx, name, "fault stale-timestamp: t 10 minutes old", sub, s, 1, body, webhook.SendOptions{T: time.Now().Add(-10 * time.Minute).Unix()})
		f.deliver(ctx, name, "fault stale-timestamp: t now", sub, s, 1, body, webhook.SendOptions{})
	case FaultOversized:
		s := f.next(sub)
		big := f.marshal(ev(s, 1, map[string]any{"fault": name, "inline": strings.Repeat("A", events.MaxEventBytes+1024)}))
		f.deliver(ctx, name, "fault oversized: an event over 1 MiB", sub, s, 1, big, webhook.SendOptions{})
		// The rules: fix it and send it with a new key and the same
		// sequence, since the original was never accepted.
		f.deliver(ctx, name, "fault oversized: fixed, new key, same sequence", sub, s, 1, f.marshal(ev(s, 2, nil)), webhook.SendOptions{})
	case FaultBurst:
		// Three batches of 50 at the start of one second: the third
		// takes the sender over 100 events/s.
		t := time.NewTimer(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 5*time.Millisecond)))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		for b := range 3 {
			var parts []string
			first := int64(0)
			for range 50 {
				s := f.next(sub)
				if first == 0 {
					first = s
				}
				parts = append(parts, string(f.marshal(ev(s, 1, nil))))
			}
			body := []byte("[" + strings.Join(parts, ",") + "]")
			f.deliver(ctx, name, fmt.Sprintf("fault burst: batch %d of 50 events", b+1), sub, first, 50, body, webhook.SendOptions{})
		}
	}
}

// WaitForListener returns a Wait that dials addr every 250 ms until it
// accepts a connection (or ctx ends).
func WaitForListener(addr string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		var d net.Dialer
		for {
			dctx, cancel := context.WithTimeout(ctx, time.Second)
			c, err := d.DialContext(dctx, "tcp", addr)
			cancel()
			if err == nil {
				return c.Close()
			}
			t := time.NewTimer(250 * time.Millisecond)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
	}
}
