package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/nutrab2b/b2bx/internal/bundle"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
)

func init() {
	register(&command{name: "bundle", summary: "write a ticket bundle (directory and .tar.gz) about one delivery or upload for the partner's operator", run: runBundle})
}

// bundleJSON is the --json output of bundle.
type bundleJSON struct {
	Dir     string   `json:"dir"`
	Archive string   `json:"archive"`
	Files   []string `json:"files"`
	Subject string   `json:"subject"`
}

// bundleTimeline, when set, replaces the tracking index as the source of
// the bundle's timeline.txt (tests).
var bundleTimeline bundle.TimelineFunc

// indexTimeline is the timeline of the delivery's or upload's
// conversation from the tracking index (brought up to date first), as
// b2bx find --timeline tells it.
func indexTimeline(e *env) bundle.TimelineFunc {
	return func(ctx context.Context, conn, id string) ([]string, error) {
		m, x, err := openMachineIndex(ctx, e, "bundle")
		if err != nil {
			return nil, err
		}
		defer x.Close()
		c, steps, ok, err := x.TimelineOf(ctx, conn, id, m.SLA())
		if err != nil {
			return nil, err
		}
		if !ok {
			return []string{"The tracking index holds nothing about " + id + " on this connection."}, nil
		}
		return track.TimelineText(c, steps), nil
	}
}

// runBundle reads only the local store: it needs a connection (a
// profile, or --connection) but no secret, and sends nothing.
func runBundle(ctx context.Context, e *env, args []string) int {
	const name = "bundle"
	fs := newFlagSet(e, name, "(DELIVERY-ID | UPLOAD-ID)")
	profile := fs.String("c", "", "connection profile `NAME` (see 'b2bx conn ls')")
	conn := fs.String("connection", "", "connection `ID` (instead of -c)")
	out := fs.String("o", ".", "write the bundle into `DIR`")
	asJSON := fs.Bool("json", false, "print {dir, archive, files, subject} as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	switch {
	case len(pos) != 1:
		return fail(e, name, *asJSON, exitUsage, errors.New("give one DELIVERY-ID (a fetched deliveryAttemptId) or UPLOAD-ID (an upload id or idempotency key)"))
	}
	t, store, code, err := localStore(e, *profile, *conn)
	if err != nil {
		return fail(e, name, *asJSON, code, err)
	}
	tl := bundleTimeline
	if tl == nil {
		tl = indexTimeline(e)
	}
	res, err := bundle.Write(ctx, bundle.Options{Store: store, ConnectionID: t.ConnectionID, ID: pos[0], OutDir: *out,
		Version: readBuildInfo().String(), Timeline: tl})
	if err != nil {
		code := exitStorage
		if errors.Is(err, bundle.ErrNotFound) {
			code = exitUsage
		}
		return fail(e, name, *asJSON, code, err)
	}
	if *asJSON {
		return emitJSON(e, name, bundleJSON{Dir: res.Dir, Archive: res.Archive, Files: res.Files, Subject: res.Subject})
	}
	fmt.Fprintf(e.stdout, "bundle        %s\narchive       %s\nabout         %s\n", termsafe.String(res.Dir), termsafe.String(res.Archive), res.Subject)
	return exitOK
}
