package eventview

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/events/webhook"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Live mode (`:events listen [ADDR]`, or L on the screen): the screen
// runs the events/webhook receiver — the same Handler, Store and rules
// as `b2bx event listen` — on a loopback address for as long as it is
// open. Each delivery's Record reaches the model as one message (a Cmd
// waits on the receiver's channel and is re-armed after each), and is
// added to a report built as the deliveries come: the findings of every
// delivery, the events with their outcomes (a released one updated when
// its gap fills), and the streams' parked and missing sequences as the
// receiver has them now. Close stops the listener (bounded by
// webhook.ShutdownTimeout).

// DefaultListenAddr is where live mode listens unless told otherwise.
const DefaultListenAddr = "127.0.0.1:8787"

// liveBuffer is how many deliveries may wait for the screen; beyond it
// the receiver still answers and captures them, the screen counts them
// as not shown.
const liveBuffer = 1024

// The live report keeps at most this many deliveries, events and
// findings (1.5 times maxLiveFindings before they are cut back); beyond,
// the oldest half of the deliveries (with their events and findings)
// leave the screen. The capture directory keeps everything.
const (
	maxLiveDeliveries = 10000
	maxLiveEvents     = 20000
	maxLiveFindings   = 5000
)

// liveRedraw is how often at most the live report is rebuilt: under a
// stream of deliveries each message only adds to it.
const liveRedraw = 100 * time.Millisecond

// DefaultLiveDir is where live mode captures when Options.LiveDir is
// empty: webhook.DefaultDir, as `b2bx event listen`.
func DefaultLiveDir() string {
	dir, err := webhook.DefaultDir(os.Getenv)
	if err != nil {
		return "webhook-captures"
	}
	return dir
}

// liveState is a running listener, owned by one screen.
type liveState struct {
	addr, dir string
	replayed  int
	records   chan webhook.Record
	dropped   atomic.Int64
	cancel    context.CancelFunc
	done      chan struct{} // closed when the server has stopped
	h         *webhook.Handler
}

// stop ends the listener and waits for it (at most the shutdown timeout
// and a second).
func (l *liveState) stop() {
	l.cancel()
	select {
	case <-l.done:
	case <-time.After(webhook.ShutdownTimeout + time.Second):
	}
}

type liveStartedMsg struct {
	req  uint64
	live *liveState
	err  error
}

type liveRecordMsg struct {
	req uint64
	rec webhook.Record
	ok  bool // false: the listener stopped
}

// liveAcc is the report live mode builds from the deliveries.
type liveAcc struct {
	rep     events.Report
	local   map[int]int       // the receiver's event index -> index in rep.Events
	streams map[[2]string]int // sender+subject -> index in rep.Streams
	total   int               // deliveries received (rep keeps the newest)
	built   time.Time         // when the screen's report was last rebuilt
	dirty   bool              // deliveries added since
}

func newLiveAcc() *liveAcc {
	return &liveAcc{rep: events.Report{Findings: []events.Finding{}}, local: map[int]int{}, streams: map[[2]string]int{}}
}

// add takes one delivery into the report.
func (a *liveAcc) add(r webhook.Record) {
	a.total++
	a.dirty = true
	defer a.compact()
	di := len(a.rep.Deliveries)
	name := r.Delivery
	if name == "" {
		name = fmt.Sprintf("refused %d %s", r.Status, r.Code)
	}
	dr := events.DeliveryReport{Index: di, Name: name, Bytes: r.Bytes, HasHeaders: true, Rejected: !r.Committed && r.Status >= 400, Events: []int{},
		Signature: r.Signature}
	if r.Signature != nil {
		dr.Clock = "now"
	}
	for _, e := range r.Events {
		li := len(a.rep.Events)
		a.local[e.Index] = li
		a.rep.Events = append(a.rep.Events, events.Event{Index: li, Delivery: di, Position: e.Position, ID: e.ID, Type: e.Type,
			Sender: e.Sender, Subject: e.Subject, IdempotencyKey: e.IdempotencyKey, Sequence: e.Sequence, Outcome: e.Outcome,
			Receiver: e.Receiver, Source: e.Source, Time: e.Time, CorrelationID: e.CorrelationID, CausationID: e.CausationID, Env: e.Env, Bytes: e.Bytes})
		dr.Events = append(dr.Events, li)
	}
	for _, rel := range r.Released {
		if li, ok := a.local[rel.Event]; ok {
			a.rep.Events[li].Outcome = events.OutcomeReleased
		}
	}
	a.rep.Deliveries = append(a.rep.Deliveries, dr)
	for _, f := range r.Findings {
		f.Delivery = di
		if f.Event >= 0 {
			li, ok := a.local[f.Event]
			if !ok {
				li = -1 // an event from before the screen opened
			}
			f.Event = li
		}
		a.rep.Findings = append(a.rep.Findings, f)
		switch f.Severity {
		case events.SevError:
			a.rep.Errors++
		case events.SevWarning:
			a.rep.Warnings++
		}
	}
	for _, s := range r.Streams {
		k := [2]string{s.Sender, s.Subject}
		if i, ok := a.streams[k]; ok {
			a.rep.Streams[i] = s
			continue
		}
		a.streams[k] = len(a.rep.Streams)
		a.rep.Streams = append(a.rep.Streams, s)
	}
}

// compact drops the oldest half of the deliveries (their events and
// findings) when the report holds too many, and the oldest findings
// beyond maxLiveFindings.
func (a *liveAcc) compact() {
	if n := len(a.rep.Findings); n > maxLiveFindings*3/2 { // in steps: amortised
		a.rep.Findings = append(a.rep.Findings[:0:0], a.rep.Findings[n-maxLiveFindings:]...)
		a.recount()
	}
	if len(a.rep.Deliveries) <= maxLiveDeliveries && len(a.rep.Events) <= maxLiveEvents {
		return
	}
	dropD := max(len(a.rep.Deliveries)/2, 1)
	dropE := 0
	for _, d := range a.rep.Deliveries[:dropD] {
		dropE += len(d.Events)
	}
	a.rep.Deliveries = append(a.rep.Deliveries[:0:0], a.rep.Deliveries[dropD:]...)
	for i := range a.rep.Deliveries {
		d := &a.rep.Deliveries[i]
		d.Index -= dropD
		for j := range d.Events {
			d.Events[j] -= dropE
		}
	}
	a.rep.Events = append(a.rep.Events[:0:0], a.rep.Events[dropE:]...)
	for i := range a.rep.Events {
		a.rep.Events[i].Index -= dropE
		a.rep.Events[i].Delivery -= dropD
	}
	kept := a.rep.Findings[:0:0]
	for _, f := range a.rep.Findings {
		if f.Delivery < dropD {
			continue
		}
		f.Delivery -= dropD
		if f.Event >= dropE {
			f.Event -= dropE
		} else if f.Event >= 0 {
			f.Event = -1
		}
		kept = append(kept, f)
	}
	a.rep.Findings = kept
	for k, v := range a.local {
		if v < dropE {
			delete(a.local, k)
		} else {
			a.local[k] = v - dropE
		}
	}
	a.recount()
}

func (a *liveAcc) recount() {
	a.rep.Errors, a.rep.Warnings = 0, 0
	for _, f := range a.rep.Findings {
		switch f.Severity {
		case events.SevError:
			a.rep.Errors++
		case events.SevWarning:
			a.rep.Warnings++
		}
	}
}

type liveRedrawMsg struct{ req uint64 }

// startLive opens the capture directory (replaying it), listens on addr
// and serves until ctx ends.
func startLive(ctx context.Context, req uint64, addr, dir string, secrets []events.Secret) tea.Cmd {
	return func() tea.Msg {
		ls := &liveState{dir: dir, records: make(chan webhook.Record, liveBuffer), done: make(chan struct{})}
		h, n, err := webhook.Open(webhook.Config{Dir: dir, Receiver: events.ReceiverOptions{Secrets: secrets},
			OnRecord: func(r webhook.Record) {
				select {
				case ls.records <- r:
				default:
					ls.dropped.Add(1)
				}
			}})
		if err != nil {
			return liveStartedMsg{req: req, err: err}
		}
		ln, err := webhook.Listen(addr, "", "")
		if err != nil {
			return liveStartedMsg{req: req, err: err}
		}
		lctx, cancel := context.WithCancel(ctx)
		ls.addr, ls.replayed, ls.cancel, ls.h = ln.Addr().String(), n, cancel, h
		go func() {
			defer close(ls.done)
			_ = webhook.Serve(lctx, ln, h)
		}()
		return liveStartedMsg{req: req, live: ls}
	}
}

// waitRecord waits for the next delivery (or the listener's end); with
// redrawIn > 0 (deliveries not yet drawn) it returns a liveRedrawMsg if
// none comes before then. One such Cmd is armed at a time.
func waitRecord(req uint64, ls *liveState, redrawIn time.Duration) tea.Cmd {
	return func() tea.Msg {
		var redraw <-chan time.Time
		if redrawIn > 0 {
			t := time.NewTimer(redrawIn)
			defer t.Stop()
			redraw = t.C
		}
		select {
		case r := <-ls.records:
			return liveRecordMsg{req: req, rec: r, ok: true}
		case <-ls.done:
			return liveRecordMsg{req: req}
		case <-redraw:
			return liveRedrawMsg{req: req}
		}
	}
}

// Listen starts live mode on addr ("" → Options.ListenAddr, else
// DefaultListenAddr). Without a webhook secret it first reads the
// profile's keyring (or asks for it to be typed).
func (m Model) Listen(addr string) (Model, tea.Cmd) {
	if addr == "" {
		addr = m.opts.ListenAddr
	}
	if addr == "" {
		addr = DefaultListenAddr
	}
	if m.live != nil {
		m.note = "already listening on " + termsafe.String(m.live.addr)
		return m, nil
	}
	if err := webhook.CheckAddr(addr, false); err != nil {
		m.note = termsafe.String(err.Error())
		return m, nil
	}
	m.wantLive = addr
	if m.secrets == nil {
		if m.opts.Profile != "" && m.opts.Store != nil {
			return m.keyringSecret()
		}
		m.focus, m.note = inSecret, "type the webhook secret the sender signs with, to listen on "+termsafe.String(addr)
		m.secretIn.Reset()
		return m, m.secretIn.Focus()
	}
	return m.startListening()
}

func (m Model) startListening() (Model, tea.Cmd) {
	addr := m.wantLive
	m.wantLive = ""
	dir := m.opts.LiveDir
	if dir == "" {
		dir = DefaultLiveDir()
	}
	m.liveReq = nextReq()
	m.note = "starting the listener on " + termsafe.String(addr) + " …"
	return m, startLive(m.ctx, m.liveReq, addr, dir, m.secrets)
}

// Live reports whether the screen's listener runs.
func (m Model) Live() bool { return m.live != nil }

// LiveAddr is the listener's address ("" when not live).
func (m Model) LiveAddr() string {
	if m.live == nil {
		return ""
	}
	return m.live.addr
}

func (m Model) liveStarted(msg liveStartedMsg) (Model, tea.Cmd) {
	if msg.err != nil {
		m.note = "cannot listen: " + termsafe.String(msg.err.Error())
		return m, nil
	}
	m.live, m.acc = msg.live, newLiveAcc()
	m.path, m.loadErr, m.stage = "", "", stageReport
	m.rep = newReport(m.acc.rep)
	m = m.wrapSections()
	m.refilter()
	m.note = fmt.Sprintf("listening on http://%s · captures in %s (%d earlier deliveries replayed) · esc stops", termsafe.String(m.live.addr),
		termsafe.String(m.live.dir), m.live.replayed)
	return m, waitRecord(m.liveReq, m.live, 0)
}

func (m Model) liveRecord(msg liveRecordMsg) (Model, tea.Cmd) {
	if !msg.ok {
		m.note = "the listener stopped"
		m.live = nil
		return m, nil
	}
	m.acc.add(msg.rec)
	if since := time.Since(m.acc.built); since < liveRedraw {
		return m, waitRecord(m.liveReq, m.live, liveRedraw-since)
	}
	return m.rebuildLive(), waitRecord(m.liveReq, m.live, 0)
}

// liveRedrawn draws what arrived since the last rebuild.
func (m Model) liveRedrawn() (Model, tea.Cmd) {
	return m.rebuildLive(), waitRecord(m.liveReq, m.live, 0)
}

// rebuildLive draws the live report anew from what arrived.
func (m Model) rebuildLive() Model {
	if m.acc == nil || !m.acc.dirty {
		return m
	}
	m.acc.dirty, m.acc.built = false, time.Now()
	atBottom := m.cursor >= len(m.visible)-1
	m.rep = newReport(m.acc.rep)
	m = m.wrapSections()
	m.refilter()
	if atBottom {
		m.cursor = len(m.visible) - 1 // follow the newest finding
		m = m.clamp()
	}
	return m
}

// liveLine is the head's line about the listener.
func (m Model) liveLine() string {
	if m.live == nil {
		return ""
	}
	line := fmt.Sprintf("LIVE on http://%s · %s received · captures in %s", termsafe.String(m.live.addr),
		countNoun(m.acc.total, "delivery", "deliveries"), termsafe.String(m.live.dir))
	if shown := len(m.acc.rep.Deliveries); shown < m.acc.total {
		line += fmt.Sprintf(" · the newest %d shown", shown)
	}
	if n := m.live.dropped.Load(); n > 0 {
		line += fmt.Sprintf(" · %d not shown (the screen fell behind; all are captured)", n)
	}
	return line
}
