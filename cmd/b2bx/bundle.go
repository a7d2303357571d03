package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/bundle"
	"github.com/nutrab2b/b2bx/internal/teamstore"
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
	return track.MachineTimeline(session.Env{Getenv: e.getenv}, func(msg string) {
		fmt.Fprintf(e.stderr, "b2bx bundle: %s\n", termsafe.String(msg))
	})
}

// bundleConn finds the connection of id in the tracking index when
// neither -c nor --connection names it: the one connection whose stored
// deliveries or uploads carry it.
// team, when not nil, is the team store's index (it is asked instead of
// this machine's).
func bundleConn(ctx context.Context, e *env, team *track.Index, id string) (string, int, error) {
	x, where := team, "in the team store"
	if x == nil {
		var err error
		if _, x, err = openMachineIndex(ctx, e, "bundle"); err != nil {
			return "", exitStorage, err
		}
		defer x.Close()
		where = "on this machine"
	}
	conns, err := x.ConnsOf(ctx, id)
	switch {
	case err != nil:
		return "", exitStorage, err
	case len(conns) == 0:
		return "", exitUsage, fmt.Errorf("%w: no stored delivery or upload %s has the ID %q: fetch it first, or name the connection with -c NAME",
			bundle.ErrNotFound, where, termsafe.String(id))
	case len(conns) > 1:
		return "", exitUsage, fmt.Errorf("the ID %q is stored on %d connections (%s): choose one with -c NAME or --connection ID",
			termsafe.String(id), len(conns), termsafe.String(strings.Join(conns, ", ")))
	}
	return conns[0], exitOK, nil
}

// colleagueOf is a bundle's source of a delivery only a colleague
// fetched: the team store's sidecar and bytes (checked by their
// SHA-256); nil without a team store.
func colleagueOf(s *teamstore.Store) bundle.ColleagueFunc {
	if s == nil {
		return nil
	}
	return s.Colleague
}

// runBundle reads only the local store: it needs a connection (a
// profile, --connection, or the one the tracking index finds the ID on)
// but no secret, and sends nothing.
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
	// the team's index when [store] url is set and answers (its steps say
	// who did them), else this machine's
	m, teamStore, team, closeTeam, err := openTeam(ctx, e, name)
	if err != nil {
		return fail(e, name, *asJSON, exitStorage, err)
	}
	defer closeTeam()
	if *profile == "" && *conn == "" {
		// the index knows where the ID is stored
		c, code, err := bundleConn(ctx, e, team, pos[0])
		if err != nil {
			return fail(e, name, *asJSON, code, err)
		}
		*conn = c
	}
	t, store, code, err := localStore(e, *profile, *conn)
	if err != nil {
		return fail(e, name, *asJSON, code, err)
	}
	tl := bundleTimeline
	switch {
	case tl != nil:
	case team != nil:
		tl = track.IndexTimeline(team, m.SLA())
	default:
		tl = indexTimeline(e)
	}
	res, err := bundle.Write(ctx, bundle.Options{Store: store, ConnectionID: t.ConnectionID, ID: pos[0], OutDir: *out,
		Version: readBuildInfo().String(), Timeline: tl, Directory: t.Directory, Colleague: colleagueOf(teamStore)})
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
