package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/events/webhook"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/simfeed"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/tui"
	"github.com/nutrab2b/b2bx/tui/logview"
)

func init() {
	register(&command{name: "demo", summary: "open the app against a built-in simulator (temporary files, secrets in memory)", run: runDemo})
}

const demoHelp = `Opens the b2bx app against the Partner API simulator, started inside this
process on a loopback address with the demo data (two connections, acme-de
and acme-at, opened as tabs; 128 deliveries, three faulty ones, a 15 MiB
ORDRSP). Profiles, downloads and the upload history go to a temporary
directory removed on exit; the secrets live in memory only. Your profiles,
your OS keyring and your store of downloaded files are never touched.

Webhook events: type :events listen (in a tab) and the app receives the
simulator's signed envelope v2 events live — uploads accepted, answers
produced, deliveries due, HEARTBEATs — and, with --faults (default all),
one of each fault: a duplicate, an out-of-order pair, a gap filled by a
replay after a HEARTBEAT, a bad signature, a stale timestamp, an
oversized event and a burst over 100 events/s. The sender retries on the
rules' schedule divided by 300 (0, 100 ms, 400 ms, 2 s, 12 s, 72 s,
288 s); the webhook secret is made fresh each run.

The partner answers every upload with a CONTRL and an ORDRSP, except two
stories for tracking: it rejects order PO-4712 in its CONTRL and never
answers PO-4713. Ready-made ORDERS for all three (PO-4711, PO-4712,
PO-4713) are in the demo directory's orders/ folder; the session log (L)
names it: ':upload' that folder, fetch the answers, then look them up with
b2bx find (F or ':find PO-4711' in the app). The demo
profiles set sla.contrl = "2m" and sla.ordrsp = "10m", so PO-4713 turns
overdue within minutes.

The demo is the terminal app; without a terminal, run the scripted CLI
tour instead: make tour.
`

// demoStoreName names the demo's secret store for people.
const demoStoreName = "the demo's in-memory secret store"

// demoOptions are the simulator settings of `b2bx demo`.
type demoOptions struct {
	throttle   int64
	replyDelay time.Duration
	entries    int
	faults     []string
}

// Webhook events in the demo: the simulator's sender signs them with a
// secret made fresh each run (stored as every demo profile's webhook
// secret in the memory store) and sends them to the app's own listener
// (:events listen, on demoEventsAddr), retrying on the rules' schedule
// divided by demoRetryScale (0, 100 ms, 400 ms, 2 s, 12 s, 72 s, 288 s).
const (
	demoRetryScale = 300
	demoFaultPause = 1500 * time.Millisecond
	demoHeartbeat  = 5 * time.Second
)

func runDemo(ctx context.Context, e *env, args []string) int {
	const name = "demo"
	fs := newFlagSet(e, name, "")
	delay := fs.Duration("reply-delay", partnersim.DefaultResponseDelay, "how long after an upload the partner's CONTRL/ORDRSP answers appear")
	throttle := fs.String("throttle", "", "limit every payload stream to `RATE` bytes/s to watch progress (e.g. 2MiB, 500KiB)")
	entries := fs.Int("entries", 0, "add `N` small deliveries to acme-de for a large mailbox (e.g. 10000)")
	faults := fs.String("faults", "all", "webhook faults the simulator plays once :events listen runs: all, none, or a comma list of "+strings.Join(simfeed.AllFaults, ", "))
	fs.Usage = func() {
		fmt.Fprint(e.stderr, "usage: b2bx demo [flags]\n\n"+demoHelp+"\nflags:\n")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	opt := demoOptions{replyDelay: *delay, entries: *entries}
	opt.throttle, err = parseByteRate(*throttle)
	if err == nil && *faults != "none" {
		opt.faults, err = simfeed.ParseFaults(*faults)
	}
	switch {
	case err != nil:
	case len(pos) > 0:
		err = errors.New("demo takes no arguments; see 'b2bx demo -h'")
	case *entries < 0 || *entries > partnersim.MaxBulk:
		err = fmt.Errorf("--entries must be from 0 to %d, not %d", partnersim.MaxBulk, *entries)
	case *delay < 0:
		err = fmt.Errorf("--reply-delay must not be negative, not %s", *delay)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx demo: %v\n", err)
		return exitUsage
	}
	if !isTerminal(e.stdin) || !isTerminal(e.stdout) {
		fmt.Fprintln(e.stderr, "b2bx demo: the demo is the terminal app and needs a terminal on stdin and stdout.")
		fmt.Fprintln(e.stderr, "Without one, run the scripted CLI tour: make tour")
		return exitUsage
	}
	// A closed terminal (SIGHUP) ends the app like SIGTERM: leases are
	// released and the demo's temp dir removed.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP)
	defer stop()
	w, err := newDemoWorld()
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx demo: %v\n", err)
		return exitStorage
	}
	defer w.Close()
	if err := writeDemoOrders(filepath.Join(w.dir, "orders")); err != nil {
		fmt.Fprintf(e.stderr, "b2bx demo: %v\n", err)
		return exitStorage
	}
	// The simulator starts (about 0.2 s to generate the demo data) once
	// the app's first frame is on screen, or after demoStartLatest
	// whatever happens; the app's background work waits for it.
	begin := func() { w.begin(ctx, opt) }
	t := time.AfterFunc(demoStartLatest, begin)
	defer t.Stop()
	log := logview.New(logview.DefaultCapacity, slog.LevelInfo)
	slog.New(log).Info("demo: ORDERS to upload (PO-4711 answered, PO-4712 rejected, PO-4713 never answered): :upload " + filepath.Join(w.dir, "orders"))
	release := holdTerminal(e.stdin, e.stdout)
	err = runTUI(ctx, tui.Options{Env: w.env, StoreName: demoStoreName, Open: w.names, Demo: true,
		Wait: w.wait, OnFirstFrame: begin, Input: e.stdin, Output: e.stdout,
		EventsListenAddr: w.eventsAddr, EventsDir: filepath.Join(w.dir, "webhook-captures"), Log: log})
	release()
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx demo: %v\n", err)
		return exitUsage
	}
	return exitOK
}

// demoStartLatest is when the simulator starts if the app has not drawn
// its first frame by then (a terminal that never reports its size).
const demoStartLatest = 300 * time.Millisecond

// demoWorld is the demo's private world: the simulator, a temp directory
// for profiles and downloads, and secrets in memory.
type demoWorld struct {
	dir   string
	env   session.Env
	names []string // the demo connections, opened as tabs

	once  sync.Once     // start runs once (begin) or never (Close first)
	ready chan struct{} // closed when start is done
	err   error         // start's error, set before ready closes
	srv   *partnersim.Server
	demo  *partnersim.Demo

	// webhook is the demo's webhook secret; eventsAddr where the app's
	// listener goes; feedStop ends the event sender.
	webhook    secret.Value
	eventsAddr string
	feedStop   func()
}

// demoNames are the connections SeedDemo creates, in tab order.
var demoNames = []string{"acme-de", "acme-at"}

// newDemoWorld makes the temp dir and the closed environment the app
// gets: only the temp dir's paths, never the user's config, data or
// $B2BX_API_KEY, and a memory secret store, never the keyring.
func newDemoWorld() (*demoWorld, error) {
	dir, err := os.MkdirTemp("", "b2bx-demo-")
	if err != nil {
		return nil, fmt.Errorf("creating the temp dir: %w", err)
	}
	vars := map[string]string{
		credentials.EnvConfig: filepath.Join(dir, "config", "profiles.toml"),
		spool.EnvDataDir:      filepath.Join(dir, "data"),
		"HOME":                filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME":     filepath.Join(dir, "config"),
		"XDG_DATA_HOME":       filepath.Join(dir, "share"),
	}
	addr, err := freeLoopbackAddr()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	var raw [24]byte
	if _, err := rand.Read(raw[:]); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("making the demo's webhook secret: %w", err)
	}
	return &demoWorld{dir: dir, names: demoNames, ready: make(chan struct{}), eventsAddr: addr,
		webhook: secret.New("whsec_demo_" + hex.EncodeToString(raw[:])),
		env:     session.Env{Getenv: func(k string) string { return vars[k] }, Store: credentials.NewMemoryStore()}}, nil
}

// freeLoopbackAddr finds a free loopback port for the app's listener.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a port for the event listener: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startFeed sends the simulator's webhook events to the app's listener
// once it runs (:events listen).
func (w *demoWorld) startFeed(ctx context.Context, sim *partnersim.Sim, opt demoOptions) {
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	feed := simfeed.New(simfeed.Options{Sim: sim, Heartbeat: demoHeartbeat, Faults: opt.faults, FaultPause: demoFaultPause,
		Sender: &webhook.Sender{URL: "http://" + w.eventsAddr + "/webhook", Secret: w.webhook, Schedule: webhook.ScaledSchedule(demoRetryScale)},
		Wait:   simfeed.WaitForListener(w.eventsAddr)})
	go func() { defer close(done); _ = feed.Run(fctx) }()
	w.feedStop = func() { cancel(); <-done }
}

// begin runs start once, on its own goroutine.
func (w *demoWorld) begin(ctx context.Context, opt demoOptions) {
	w.once.Do(func() { go w.start(ctx, opt) })
}

// start runs the simulator on loopback with the demo data and writes a
// profile per demo connection, its secret into the memory store. It
// closes w.ready when done.
func (w *demoWorld) start(ctx context.Context, opt demoOptions) {
	defer close(w.ready)
	sim := partnersim.New(partnersim.WithResponseDelay(opt.replyDelay), partnersim.WithThrottle(opt.throttle),
		partnersim.WithResponder(partnersim.DemoStories()))

	if w.demo, w.err = partnersim.SeedDemo(sim, partnersim.DemoOptions{Bulk: opt.entries}); w.err != nil {
		w.err = fmt.Errorf("seeding the simulator: %w", w.err)
		return
	}
	if w.srv, w.err = partnersim.ServeAddr("127.0.0.1:0", sim, partnersim.HTTP1); w.err != nil {
		return
	}
	file, err := session.LoadProfiles(w.env)
	if err != nil {
		w.err = err
		return
	}
	if len(w.demo.Connections) != len(w.names) {
		w.err = fmt.Errorf("the simulator has %d demo connections, the demo opens %d", len(w.demo.Connections), len(w.names))
		return
	}
	for i, c := range w.demo.Connections {
		if c.Name != w.names[i] {
			w.err = fmt.Errorf("demo connection %d is %s, not %s", i+1, c.Name, w.names[i])
			return
		}
		p := credentials.Profile{Name: c.Name, URL: w.srv.URL, ConnectionID: c.ConnectionID,
			Partner: "ACME, demo partner", InboxKeyID: c.Key.ID, MailboxKeyID: c.Key.ID,
			SLA: &credentials.SLA{Contrl: credentials.Duration(2 * time.Minute), Ordrsp: credentials.Duration(10 * time.Minute)}}
		if err := session.AddProfile(ctx, file, p, map[string]secret.Value{c.Key.ID: secret.New(c.Key.Secret)}, w.env.Store); err != nil {
			w.err = fmt.Errorf("demo profile %s: %w", c.Name, err)
			return
		}
		if err := w.env.Store.Set(ctx, c.Name, credentials.WebhookKeyID, w.webhook); err != nil {
			w.err = fmt.Errorf("demo profile %s: webhook secret: %w", c.Name, err)
			return
		}
	}
	w.startFeed(ctx, sim, opt)
}

// wait blocks until start is done (or ctx ends) and returns its error.
func (w *demoWorld) wait(ctx context.Context) error {
	select {
	case <-w.ready:
		if w.err != nil {
			return fmt.Errorf("the demo simulator did not start: %w", w.err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close waits for a running start (or makes sure none begins), stops the
// simulator and removes the temp dir.
func (w *demoWorld) Close() {
	w.once.Do(func() { close(w.ready) })
	<-w.ready
	if w.feedStop != nil {
		w.feedStop()
	}
	if w.srv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = w.srv.Shutdown(sctx)
		cancel()
	}
	if strings.HasPrefix(filepath.Base(w.dir), "b2bx-demo-") {
		_ = os.RemoveAll(w.dir)
	}
}

// writeDemoOrders writes the demo's ready-made ORDERS (see
// partnersim.DemoOrders) into dir.
func writeDemoOrders(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("demo orders: %w", err)
	}
	for name, b := range partnersim.DemoOrders(time.Now()) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return fmt.Errorf("demo orders: %w", err)
		}
	}
	return nil
}
