package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/nutrab2b/b2bx/edi/jsonout"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// envLog turns on logging to stderr: B2BX_LOG=debug|info|warn|error. The
// client and worker log only operation, status, stable code, correlation
// and IDs — never a key, token or payload.
const envLog = "B2BX_LOG"

// cliRetry is the retry policy of API commands: the contract's schedule,
// announced on stderr. Tests shorten it.
var cliRetry = apiclient.RetryPolicy{}

// cliLimiter is the client-side rate limit of API commands; nil is the
// default per-partner limit (apiclient.NewLimiter). Tests that page a
// thousand times lift it.
var cliLimiter *rate.Limiter

// isTerminal reports whether w is a terminal; a variable so tests can
// pretend.
var isTerminal = func(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// apiConn is everything an API command needs for one connection.
type apiConn struct {
	target connTarget
	client *apiclient.Client
	log    *slog.Logger
}

// cmdLogger is the logger for API commands: discarded unless $B2BX_LOG
// asks for a level.
func cmdLogger(e *env) *slog.Logger {
	var lvl slog.Level
	switch strings.ToLower(e.getenv(envLog)) {
	case "":
		return slog.New(slog.DiscardHandler)
	case "debug":
		lvl = slog.LevelDebug
	case "warn":
		lvl = slog.LevelWarn
	case "error":
		lvl = slog.LevelError
	}
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: lvl}))
}

// newAPIConn builds the client for a resolved connection (session, the
// same code the app uses). Retries are announced on stderr with the next
// attempt time; Ctrl-C gives up.
func newAPIConn(e *env, t connTarget, op string) (*apiConn, error) {
	log := cmdLogger(e)
	retry := cliRetry
	retry.Notify = func(ev apiclient.RetryEvent) {
		fmt.Fprintf(e.stderr, "b2bx %s: %s attempt %d failed: %s\n  next attempt at %s (in %s); Ctrl-C to give up\n",
			op, ev.Op, ev.Attempt, termsafe.String(ev.Err.Error()), ev.NextAt.Format(time.TimeOnly), ev.Wait.Round(time.Second))
	}
	c, err := session.NewClient(t, session.Options{Logger: log, Retry: retry, Limiter: cliLimiter})
	if err != nil {
		return nil, err
	}
	return &apiConn{target: t, client: c, log: log}, nil
}

// openSpool opens the connection's store: the profile's store directory,
// else $B2BX_DATA_DIR, else the XDG data directory (session.StoreRoot).
func openSpool(e *env, t connTarget) (*spool.Store, error) {
	return session.OpenSpool(t, e.getenv)
}

// writeJSON writes v as one JSON document. Strings stay exact for
// machines, but every rune a terminal would interpret (DEL, C1 controls,
// bidi overrides, ...) is written as a \u escape, so printing the raw
// output to a terminal is as safe as the human output. encoding/json
// already escapes C0 controls and replaces invalid UTF-8, but not DEL.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeDangerous(buf.Bytes()))
	return err
}

// escapeDangerous rewrites the runes of encoded JSON that a terminal
// would interpret as \u escapes (edi/jsonout's, which parse's JSON uses
// too).
func escapeDangerous(b []byte) []byte { return jsonout.EscapeDangerous(b) }

// emitJSON writes v to stdout; a failed write (a closed pipe, a full
// disk) is a local failure.
func emitJSON(e *env, name string, v any) int {
	if err := writeJSON(e.stdout, v); err != nil {
		fmt.Fprintf(e.stderr, "b2bx %s: writing the output failed: %s\n", name, termsafe.String(err.Error()))
		return exitStorage
	}
	return exitOK
}

// errorJSON is the --json body of a failure before any result exists.
type errorJSON struct {
	Error string `json:"error"`
}

// fail prints a terminal-safe error to stderr (and as JSON to stdout with
// --json) and returns code.
func fail(e *env, name string, asJSON bool, code int, err error) int {
	msg := termsafe.String(err.Error())
	if errors.Is(err, context.DeadlineExceeded) && !strings.Contains(msg, "--timeout") {
		msg += " (the overall --timeout ran out: raise it or check the network)"
	}
	fmt.Fprintf(e.stderr, "b2bx %s: %s\n", name, msg)
	if asJSON {
		_ = writeJSON(e.stdout, errorJSON{Error: msg})
	}
	return code
}

// shortHash shortens a hex digest for tables.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// progressInterval is the redraw period of the progress line (~10 Hz).
const progressInterval = 100 * time.Millisecond

// startProgress redraws one progress line on w from p's snapshots about
// ten times a second — never per chunk — until the returned stop is
// called, which draws the final state and ends the line.
func startProgress(w io.Writer, label string, p *apiclient.Progress) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	draw := func() { fmt.Fprintf(w, "\r\x1b[K%s  %s", label, formatProgress(p.Snapshot())) }
	go func() {
		defer close(done)
		tick := time.NewTicker(progressInterval)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				draw()
				fmt.Fprintln(w)
				return
			case <-tick.C:
				draw()
			}
		}
	}()
	return func() { close(quit); <-done }
}

// formatProgress renders "7.5 MiB / 15.0 MiB  50%  120.3 MB/s  3s".
func formatProgress(s apiclient.ProgressSnapshot) string {
	total := "?"
	pct := ""
	if s.Expected > 0 {
		total = human.Bytes(s.Expected)
		pct = fmt.Sprintf("  %3.0f%%", 100*s.Fraction())
	}
	return fmt.Sprintf("%s / %s%s  %.1f MB/s  %s", human.Bytes(s.Bytes), total, pct, s.BytesPerSec/1e6, s.Elapsed.Round(100*time.Millisecond))
}
