package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// inspectJSON is the --json document of event inspect: the inputs as
// given and the events.Report fields.
type inspectJSON struct {
	Inputs []string `json:"inputs"`
	events.Report
}

func runEventInspect(ctx context.Context, e *env, args []string) int {
	const name = "event inspect"
	fs := newFlagSet(e, name, "FILE|DIR...")
	asJSON := fs.Bool("json", false, "print one JSON document: inputs, deliveries, events, streams, findings, errors, warnings")
	now := fs.String("now", "", "the receiver's clock for signature timestamps, Unix seconds (default: each capture's Date header; without one the timestamp is not checked)")
	jwksPath := fs.String("jwks", "", "the sender's published JWKS FILE: verify every envelope.signature (detached JWS, ES256 or EdDSA)")
	fromStart := fs.Bool("from-start", false, "every sender+subject starts at sequence 1 (default: at the lowest sequence in the set)")
	var sf secretFlags
	sf.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) == 0 {
		fs.Usage()
		return fail(e, name, *asJSON, exitUsage, errors.New("give a capture FILE or a DIR of captures (NAME.json + NAME.headers, NAME.http)"))
	}
	opts := events.Options{StartAtOne: *fromStart}
	if opts.Now, err = parseNow(*now, opts.Now); err != nil {
		return fail(e, name, *asJSON, exitUsage, err)
	}
	if *jwksPath != "" {
		if opts.JWKS, err = readJWKS(*jwksPath); err != nil {
			return fail(e, name, *asJSON, exitUsage, err)
		}
	}
	if sf.given() {
		secrets, code, err := sf.load(ctx, e)
		if err != nil {
			return fail(e, name, *asJSON, code, err)
		}
		opts.Secrets = secrets
	}
	var ds []events.Delivery
	for _, p := range pos {
		d, err := events.ReadPath(p)
		if err != nil {
			return fail(e, name, *asJSON, exitUsage, err)
		}
		ds = append(ds, d...)
	}
	rep := events.Inspect(ds, opts)
	noteCaptures(ctx, e, pos) // the tracking index links the events to their orders
	if *asJSON {
		if c := emitJSON(e, name, inspectJSON{Inputs: pos, Report: rep}); c != exitOK {
			return c
		}
	} else {
		w := bufio.NewWriter(e.stdout)
		writeInspectHuman(w, pos, rep)
		if err := w.Flush(); err != nil {
			fmt.Fprintf(e.stderr, "b2bx %s: writing the output failed: %s\n", name, termsafe.String(err.Error()))
			return exitStorage
		}
	}
	if rep.HasErrors() {
		return exitFileError
	}
	return exitOK
}

// maxJWKSFile bounds a JWKS file; a real one is a few KiB.
const maxJWKSFile = 1 << 20

func readJWKS(path string) (*events.JWKS, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--jwks: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxJWKSFile+1))
	if err != nil {
		return nil, fmt.Errorf("--jwks: reading %s: %w", path, err)
	}
	if len(raw) > maxJWKSFile {
		return nil, fmt.Errorf("--jwks: %s is larger than 1 MiB; that is not a JWKS", path)
	}
	k, err := events.ParseJWKS(raw)
	if err != nil {
		return nil, fmt.Errorf("--jwks %s: %w", path, err)
	}
	return k, nil
}

// writeInspectHuman prints the report; every string from a capture goes
// through termsafe.
func writeInspectHuman(w io.Writer, inputs []string, r events.Report) {
	safe := termsafe.String
	fmt.Fprintf(w, "%s: %s, %s, %d error(s), %d warning(s)\n", safe(strings.Join(inputs, " ")),
		countNoun(len(r.Deliveries), "delivery", "deliveries"), countNoun(len(r.Events), "event", "events"), r.Errors, r.Warnings)
	for _, d := range r.Deliveries {
		kind := "one event"
		if d.Batch {
			kind = fmt.Sprintf("batch of %d events", len(d.Events))
		}
		fmt.Fprintf(w, "\nDelivery %d  %s  %s, %d bytes\n", d.Index, safe(d.Name), kind, d.Bytes)
		fmt.Fprintf(w, "  signature  %s\n", signatureLine(d))
		for _, i := range d.Events {
			ev := r.Events[i]
			fmt.Fprintf(w, "  #%-3d %-9s seq %-4s %s  %s  %s\n", ev.Index, ev.Outcome, seqText(ev.Sequence), human.OrDash(safe(ev.ID)), human.OrDash(safe(ev.Type)), human.OrDash(safe(ev.IdempotencyKey)))
		}
	}
	if len(r.Streams) > 0 {
		fmt.Fprintf(w, "\nOrdering per sender + subject:\n")
		for _, s := range r.Streams {
			line := fmt.Sprintf("  %s  %s: processed up to %d", safe(s.Sender), safe(s.Subject), s.LastProcessed)
			if len(s.Parked) > 0 {
				line += fmt.Sprintf("; parked %s (%s)", human.Int64s(s.Parked, 20), events.NBParked)
			}
			if s.Heartbeat > s.LastProcessed {
				line += fmt.Sprintf("; HEARTBEAT reports %d", s.Heartbeat)
			}
			if len(s.Missing) > 0 {
				line += "; the sender must replay " + strings.Join(s.Missing, ", ")
			}
			fmt.Fprintln(w, line)
		}
	}
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "\nNo findings.\n")
		return
	}
	fmt.Fprintf(w, "\nFindings (#N = event index, D = delivery, both 0-based):\n")
	for _, f := range r.Findings {
		where := "set"
		switch {
		case f.Event >= 0:
			where = fmt.Sprintf("#%d", f.Event)
			if f.EventID != "" {
				where += " " + safe(human.Clip(f.EventID, 40))
			}
		case f.Delivery >= 0:
			where = fmt.Sprintf("D%d", f.Delivery)
		}
		if f.Field != "" {
			where += " " + safe(f.Field)
		}
		code := string(f.Code)
		if f.Platform != "" {
			code += " " + f.Platform
		}
		fmt.Fprintf(w, "  %-7s %s  %s: %s\n", f.Severity, code, where, safe(f.Message))
	}
}

func signatureLine(d events.DeliveryReport) string {
	if !d.HasHeaders {
		return "headers not captured"
	}
	s := d.Signature
	if s == nil {
		return "not verified (see findings)"
	}
	if !s.Valid {
		return "INVALID (" + events.NBSignature + ")"
	}
	line := fmt.Sprintf("valid (v1 %d, secret %d, t=%s", s.MatchedV1, s.MatchedSecret, s.Signature.T)
	switch d.Clock {
	case "now":
		line += fmt.Sprintf(", skew %ds against --now", s.SkewSeconds)
	case "date-header":
		line += fmt.Sprintf(", skew %ds against the Date header", s.SkewSeconds)
	default:
		line += ", timestamp not checked"
	}
	return line + ")"
}

func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func seqText(n int64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}
