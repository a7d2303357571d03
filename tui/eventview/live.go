package eventview

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/events"
	"github.com/nutrab2b/b2bx/events/webhook"
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

// maxLiveFindings bounds the findings the live report keeps (the oldest
// go first; the capture directory keeps everything).
const maxLiveFindings = 5000

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
}

func newLiveAcc() *liveAcc {
	return &liveAcc{rep: events.Report{Findings: []events.Finding{}}, local: map[int]int{}, streams: map[[2]string]int{}}
}

// add takes one delivery into the report.
func (a *liveAcc) add(r webhook.Record) {
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
	if n := len(a.rep.Findings); n > maxLiveFindings {
		a.rep.Findings = append(a.rep.Findings[:0:0], a.rep.Findings[n-maxLiveFindings:]...)
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

// waitRecord waits for the next delivery (or the listener's end).
func waitRecord(req uint64, ls *liveState) tea.Cmd {
	return func() tea.Msg {
		select {
		case r := <-ls.records:
			return liveRecordMsg{req: req, rec: r, ok: true}
		case <-ls.done:
			return liveRecordMsg{req: req}
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
	return m, waitRecord(m.liveReq, m.live)
}

func (m Model) liveRecord(msg liveRecordMsg) (Model, tea.Cmd) {
	if !msg.ok {
		m.note = "the listener stopped"
		m.live = nil
		return m, nil
	}
	m.acc.add(msg.rec)
	atBottom := m.cursor >= len(m.visible)-1
	m.rep = newReport(m.acc.rep)
	m = m.wrapSections()
	m.refilter()
	if atBottom {
		m.cursor = len(m.visible) - 1 // follow the newest finding
		m = m.clamp()
	}
	return m, waitRecord(m.liveReq, m.live)
}

// liveLine is the head's line about the listener.
func (m Model) liveLine() string {
	if m.live == nil {
		return ""
	}
	line := fmt.Sprintf("LIVE on http://%s · %s received · captures in %s", termsafe.String(m.live.addr),
		countNoun(len(m.acc.rep.Deliveries), "delivery", "deliveries"), termsafe.String(m.live.dir))
	if n := m.live.dropped.Load(); n > 0 {
		line += fmt.Sprintf(" · %d not shown (the screen fell behind; all are captured)", n)
	}
	return line
}
