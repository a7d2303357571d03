package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/events/webhook"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/metrics"
	"github.com/nutrab2b/b2bx/internal/outbox"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
)

func init() {
	register(&command{name: "event listen", summary: "receive webhook events live by the delivery rules, capture them, one line per delivery (--json)", run: runEventListen})
}

// defaultListenAddr is the receiver's default address (loopback).
const defaultListenAddr = "127.0.0.1:8787"

const listenHelp = `Receives webhook deliveries the way the delivery rules say a receiver
must, so a partner's test webhook can be pointed at it. Per delivery: the
raw body (at most 10 MiB; 1 MiB per event), X-NB2B-Signature over the
exact bytes with hmac.Equal within 300 s (401 NB-E008), envelope v2, at
most 100 events/s per sender (429 NB-E012 with Retry-After), then the
delivery is stored durably in --dir and only then idempotency keys
(DUPLICATE with the original result, NB-E005) and ordering per sender and
subject (a gap parks the event, 202 PARKED NB-E006, released when the
gap fills; a lower sequence is rejected, 409) and HEARTBEAT
last_sequences are applied.

Every delivery is captured in --dir as NNNNNNNNNNNN.http (read them with
'b2bx event inspect DIR --from-start'); refused ones (signature, rate,
oversized) go to DIR/refused/. The receiver's state (every idempotency
key with its original result for --keep, every stream for good) is
DIR/state.db, derived from the captures: a restart goes on from it and
replays only the captures it does not hold yet. With --jwks every event
(of that sender, with GLN=) must carry an envelope.signature that
verifies; a changed file is reloaded, a URL refetched every 5 minutes.
Plain http only on a loopback address; any other needs --tls-cert and
--tls-key. One line per delivery on stdout (--json: JSON lines); never
the secret. Runs until Ctrl-C. With --store every committed capture is
also queued in the outbox and pushed to the team store (config.toml's
[store]), so one always-on receiver feeds the team (docs/team-store.md).
`

func runEventListen(ctx context.Context, e *env, args []string) int {
	const name = "event listen"
	fs := newFlagSet(e, name, "")
	addr := fs.String("addr", defaultListenAddr, "`HOST:PORT` to listen on (plain http only on loopback)")
	certFile := fs.String("tls-cert", "", "serve TLS with this certificate `FILE` (PEM)")
	keyFile := fs.String("tls-key", "", "the certificate's private key `FILE` (PEM)")
	dir := fs.String("dir", "", "capture `DIR`: every delivery as NNNNNNNNNNNN.http (created when missing; a restart goes on from it; default: webhook-captures in the data directory)")
	asJSON := fs.Bool("json", false, "print one JSON line per delivery (the answer, its findings and streams)")
	toTeam := fs.Bool("store", false, "also push every committed capture to the team store of config.toml's [store] (queued in the outbox first)")
	keep := fs.Duration("keep", webhook.DefaultRetention, "keep every idempotency key with its original result this long (at least 32h, the retry schedule)")
	admin := fs.String("admin", "", "serve /healthz and Prometheus /metrics on `HOST:PORT`, apart from --addr (no host: loopback)")
	var jwks listFlag
	fs.Var(&jwks, "jwks", "require and verify envelope.signature with this JWKS `FILE|URL` (repeatable as GLN=FILE|URL, one per sender)")
	var sf secretFlags
	sf.register(fs)
	fs.Usage = func() {
		fmt.Fprint(e.stderr, "usage: b2bx event listen [--addr 127.0.0.1:8787] [-c PROFILE | --secret-stdin] [--tls-cert F --tls-key F] [--dir DIR] [--keep 48h] [--jwks [GLN=]FILE|URL]... [--admin HOST:PORT] [--store] [--json]\n\n"+listenHelp+"\nflags:\n")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return fail(e, name, false, exitUsage, fmt.Errorf("event listen takes no arguments (got %q); see 'b2bx event listen -h'", pos[0]))
	}
	if *keep < webhook.MinRetention {
		return fail(e, name, false, exitUsage, fmt.Errorf("--keep %s is shorter than the delivery rules' retry schedule (about 31 hours): give at least %s", *keep, webhook.MinRetention))
	}
	var keys events.KeySets
	for _, spec := range jwks {
		if err := keys.AddSpec(spec, nil); err != nil {
			return fail(e, name, false, exitUsage, fmt.Errorf("--jwks: %w", err))
		}
	}
	secrets, code, err := sf.load(ctx, e)
	if err != nil {
		return fail(e, name, false, code, err)
	}
	if *dir == "" {
		if *dir, err = webhook.DefaultDir(e.getenv); err != nil {
			return fail(e, name, false, exitUsage, fmt.Errorf("no --dir given and %w", err))
		}
	}
	var tp *teamPush
	if *toTeam {
		if tp, err = listenTeamPush(ctx, e); err != nil {
			return fail(e, name, false, exitUsage, err)
		}
		defer tp.finish(teamDrainWait)
	}
	out := &listenOutput{w: e.stdout, json: *asJSON}
	onRecord, onBatch := out.record, func(int, time.Duration) {}
	var mx *metrics.Listen
	if *admin != "" {
		if _, err := metrics.AdminAddr(*admin); err != nil {
			return fail(e, name, false, exitUsage, err)
		}
		mx = metrics.NewListen(tp.team()) // the outbox's gauges with --store, else absent
		onRecord = func(r webhook.Record) { mx.Record(r); out.record(r) }
		onBatch = mx.Batch
	}
	ro := events.ReceiverOptions{Secrets: secrets}
	if !keys.Empty() {
		ro.KeySets = keys.For
	}
	say := func(msg string) { fmt.Fprintf(e.stderr, "b2bx event listen: %s\n", termsafe.String(msg)) }
	// what is committed joins its orders in the tracking index at once
	noter := track.NewCaptureNoter(session.Env{Getenv: e.getenv}, say)
	defer noter.Close()
	h, replayed, err := webhook.Open(webhook.Config{Dir: *dir, Receiver: ro, Retention: *keep, OnRecord: onRecord, OnBatch: onBatch,
		OnCommitted: func(c webhook.Committed) { noter.Add(c.Path); tp.enqueue(outbox.CaptureEntry(c.Path)) }, OnNote: say})
	if err != nil {
		return fail(e, name, false, exitStorage, err)
	}
	ln, err := webhook.Listen(*addr, *certFile, *keyFile)
	if err != nil {
		return fail(e, name, false, exitUsage, err)
	}
	if mx != nil {
		adm, err := metrics.ServeAdmin(*admin, mx.Registry(), func() error {
			if ctx.Err() != nil {
				return errors.New("stopping")
			}
			return nil
		})
		if err != nil {
			ln.Close()
			h.Close()
			return fail(e, name, false, exitUsage, err)
		}
		defer adm.Close()
		fmt.Fprintf(e.stderr, "b2bx event listen: admin on http://%s (/healthz, /metrics)\n", adm.Addr())
	}
	scheme := "http"
	if *certFile != "" {
		scheme = "https"
	}
	fmt.Fprintf(e.stderr, "b2bx event listen: receiving on %s://%s (captures in %s; %d earlier deliveries replayed); Ctrl-C stops\n",
		scheme, ln.Addr(), termsafe.String(*dir), replayed)
	if err := webhook.Serve(ctx, ln, h); err != nil {
		fmt.Fprintf(e.stderr, "b2bx event listen: %s\n", termsafe.String(err.Error()))
		return exitUsage
	}
	d, n := h.Receiver.Delivered()
	fmt.Fprintf(e.stderr, "b2bx event listen: stopped; %d deliveries (%d events) in %s\n", d, n, termsafe.String(*dir))
	return exitOK
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

// Set adds one value.
func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// listenOutput prints one line per delivery; deliveries are answered
// concurrently, so lines are written whole under a lock.
type listenOutput struct {
	mu   sync.Mutex
	w    io.Writer
	json bool
}

func (o *listenOutput) record(r webhook.Record) {
	var line []byte
	if o.json {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(r) != nil {
			return
		}
		line = escapeDangerous(buf.Bytes())
	} else {
		line = []byte(listenLine(r) + "\n")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	_, _ = o.w.Write(line)
}

// listenLine is the human line of one delivery: time, status and result,
// capture, senders, types, events, findings. Event content is untrusted
// and sanitised.
func listenLine(r webhook.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %d %-9s", r.Time.UTC().Format("15:04:05.000"), r.Status, r.Result)
	if r.Code != "" && r.Code != r.Result {
		fmt.Fprintf(&b, " %s", termsafe.String(r.Code))
	}
	capture := r.Delivery
	if capture == "" {
		capture = "refused"
	}
	fmt.Fprintf(&b, "  %s", capture)
	if len(r.Senders) > 0 {
		fmt.Fprintf(&b, "  from %s", termsafe.String(human.Clip(strings.Join(r.Senders, ","), 40)))
	}
	if len(r.Events) > 0 {
		fmt.Fprintf(&b, "  %s", countNoun(len(r.Events), "event", "events"))
		if len(r.Types) > 0 {
			fmt.Fprintf(&b, " %s", termsafe.String(human.Clip(strings.Join(shortTypes(r.Types), ","), 60)))
		}
		if len(r.Events) == 1 && r.Events[0].Sequence > 0 {
			fmt.Fprintf(&b, "  %s#%d", termsafe.String(human.Clip(r.Events[0].Subject, 40)), r.Events[0].Sequence)
		}
	}
	for _, rel := range r.Released {
		fmt.Fprintf(&b, "  released #%d", rel.Event)
	}
	for _, s := range r.Streams {
		if len(s.Parked) > 0 || len(s.Missing) > 0 {
			fmt.Fprintf(&b, "  [%s: parked %s, missing %s]", termsafe.String(human.Clip(s.Subject, 40)), human.OrDash(human.Int64s(s.Parked, 20)), human.OrDash(strings.Join(s.Missing, ",")))
		}
	}
	if fs := findingCodes(r.Findings); fs != "" {
		fmt.Fprintf(&b, "  findings: %s", fs)
	}
	if r.RetryAfter > 0 {
		fmt.Fprintf(&b, "  Retry-After %ds", r.RetryAfter)
	}
	fmt.Fprintf(&b, "  (%s)", r.Latency.Round(100*time.Microsecond))
	return b.String()
}

// shortTypes drops the nutrab2b. prefix and .v2 suffix.
func shortTypes(ts []string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = strings.TrimSuffix(strings.TrimPrefix(t, "nutrab2b."), ".v2")
	}
	return out
}

// findingCodes lists the findings' codes (with the platform code), each
// once, severity-marked: error!, warning~, info.
func findingCodes(fs []events.Finding) string {
	seen := map[string]bool{}
	var parts []string
	for _, f := range fs {
		c := string(f.Code)
		if f.Platform != "" {
			c += "/" + f.Platform
		}
		switch f.Severity {
		case events.SevError:
			c += "!"
		case events.SevWarning:
			c += "~"
		}
		if !seen[c] {
			seen[c] = true
			parts = append(parts, c)
		}
	}
	return strings.Join(parts, " ")
}
