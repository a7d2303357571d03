package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events/webhook"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/simfeed"
)

// webhookFlags are sim's flags for sending webhook events.
type webhookFlags struct {
	url        string
	faults     string
	retryScale int
	heartbeat  time.Duration
	pause      time.Duration
	secret     secretFlags
	parsed     []string
}

func (w *webhookFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&w.url, "webhook", "", "send signed envelope v2 events for what happens in the simulator to this `URL` (http only on loopback)")
	fs.StringVar(&w.faults, "faults", "", "with --webhook: play these faults once: all, or a comma list of "+strings.Join(simfeed.AllFaults, ", "))
	fs.IntVar(&w.retryScale, "retry-scale", 1, "with --webhook: divide the retry schedule (0, 30s, 2m, 10m, 1h, 6h, 24h) by `N` (300 for a demo)")
	fs.DurationVar(&w.heartbeat, "heartbeat", 10*time.Second, "with --webhook: how often a HEARTBEAT reports the last sequences")
	fs.DurationVar(&w.pause, "fault-pause", time.Second, "with --faults: the pause between two faults")
	w.secret.register(fs)
}

func (w *webhookFlags) check() error {
	if w.url == "" {
		if w.faults != "" || w.secret.given() {
			return errors.New("--faults, --secret-stdin and -c go with --webhook URL")
		}
		return nil
	}
	if err := checkWebhookURL(w.url); err != nil {
		return err
	}
	if w.retryScale < 1 || w.retryScale > 100000 {
		return fmt.Errorf("--retry-scale must be from 1 to 100000, not %d", w.retryScale)
	}
	if w.heartbeat < 100*time.Millisecond {
		return fmt.Errorf("--heartbeat must be at least 100ms, not %s", w.heartbeat)
	}
	var err error
	w.parsed, err = simfeed.ParseFaults(w.faults)
	if err != nil {
		return fmt.Errorf("--faults: %w", err)
	}
	if !w.secret.given() {
		return errors.New("--webhook needs the webhook secret to sign with: --secret-stdin or -c PROFILE")
	}
	return nil
}

// checkWebhookURL accepts https anywhere and http on loopback only. The
// error never quotes the URL (its query may hold a token).
func checkWebhookURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return errors.New("--webhook: not an absolute URL such as http://127.0.0.1:8787/webhook")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return nil
		}
		return errors.New("--webhook: plain http only to a loopback address (127.0.0.1, [::1], localhost); use https for any other host")
	}
	return errors.New("--webhook: the URL must start with http:// or https://")
}

// start runs the feed until ctx ends; the returned stop waits for it.
func (w *webhookFlags) start(ctx context.Context, e *env, sim *partnersim.Sim, logger *slog.Logger) (func(), error) {
	secrets, _, err := w.secret.load(ctx, e)
	if err != nil {
		return nil, err
	}
	feed := simfeed.New(simfeed.Options{Sim: sim, Heartbeat: w.heartbeat, Faults: w.parsed, FaultPause: w.pause,
		Sender: &webhook.Sender{URL: w.url, Secret: secrets[0], Schedule: webhook.ScaledSchedule(w.retryScale)},
		Log: func(s simfeed.Sent) {
			codes := make([]string, len(s.Codes))
			for i, c := range s.Codes {
				codes[i] = string(c)
			}
			if s.Result.DeadLetter {
				// The rules: after 7 failed attempts the event goes to the
				// dead-letter queue and an ERROR_NOTICE is raised.
				logger.Error("ERROR_NOTICE: webhook event dead-lettered", "what", s.What, "subject", s.Subject, "sequence", s.Sequence, "attempts", len(s.Result.Attempts), "lastStatus", s.Status)
			}
			logger.Info("webhook", "what", s.What, "subject", s.Subject, "sequence", s.Sequence, "events", s.Events,
				"attempts", len(s.Result.Attempts), "status", s.Status, "result", s.Outcome, "findings", strings.Join(codes, ","), "deadLetter", s.Result.DeadLetter)
		}})
	logger.Info("sending webhook events", "faults", strings.Join(w.parsed, ","), "retryScale", w.retryScale)
	fctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = feed.Run(fctx) }()
	return func() { cancel(); wg.Wait() }, nil
}
