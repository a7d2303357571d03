package tui

import (
	"context"
	"errors"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/conntab"
)

// indexFor is the tab's Index: after a store, an acknowledge or an
// upload, once the tab is idle, the connection's part of the tracking
// index is brought up to date (track.IndexAfter, as the CLI does).
func indexFor(env session.Env, conn *session.Conn) conntab.IndexFunc {
	root, connID := conn.Spool.Root(), conn.Target.ConnectionID
	return func(ctx context.Context, stored []spool.Stored) error {
		return track.IndexAfter(ctx, env, root, connID, stored...)
	}
}

// machineSource is find's Source over this machine's index: every query
// loads the profiles (no secret), opens the index and syncs it first, so
// what was stored by another b2bx process shows too. When the index file
// cannot be used (track.db a directory, a read-only or full disk,
// another process holding it), the stored files answer through an index
// in memory (track.Machine.OpenQuery), as `b2bx find` does; the results
// head says so.
//
// With team data (Options.Team) the team's index answers once it is
// open, its steps by who did them; until then, or when it cannot be
// used, this machine's (the status bar says why).
type machineSource struct {
	env  session.Env
	wait func(ctx context.Context) error
	team TeamData // nil: this machine's index only
}

// open is the index to read and how to release it.
func (s machineSource) open(ctx context.Context) (*track.Machine, *track.Index, func(), track.Stats, error) {
	if s.wait != nil {
		if err := s.wait(ctx); err != nil {
			return nil, nil, nil, track.Stats{}, err
		}
	}
	m, err := track.LoadMachine(session.Env{Getenv: s.env.Getenv})
	if err != nil {
		return nil, nil, nil, track.Stats{}, err
	}
	if s.team != nil {
		if x := s.team.Index(ctx); x != nil { // the team's: shared, not closed here
			return m, x, func() {}, track.Stats{}, nil
		}
	}
	var said []string
	x, err := m.OpenQuery(ctx, func(msg string) { said = append(said, msg) })
	if err != nil {
		return nil, nil, nil, track.Stats{}, err
	}
	// What OpenQuery said (a rebuild, the files answering) is the head's
	// note; OpenQuery has synced the index already.
	st := track.Stats{Rebuilt: len(said) > 0, Reason: strings.Join(said, "; ")}
	return m, x, func() { x.Close() }, st, nil
}

// Find implements find.Source.
func (s machineSource) Find(ctx context.Context, q track.Query) (track.Result, track.Stats, error) {
	m, x, release, st, err := s.open(ctx)
	if err != nil {
		return track.Result{}, st, err
	}
	defer release()
	r, err := x.Find(ctx, q, m.SLA())
	for i := range r.Conversations { // the profile names people gave, as b2bx find prints them
		c := &r.Conversations[i]
		names := make([]string, len(c.Conns))
		for j, id := range c.Conns {
			if names[j] = m.Names[id]; names[j] == "" {
				names[j] = id
			}
		}
		c.Conns = names
	}
	return r, st, err
}

// Timeline implements find.Source.
func (s machineSource) Timeline(ctx context.Context, c track.Conversation) []track.Step {
	_, x, release, _, err := s.open(ctx)
	if err != nil {
		return []track.Step{{Kind: "note", Title: "the index cannot be read: " + termsafe.String(err.Error()), Source: "the tracking index"}}
	}
	defer release()
	return x.Timeline(ctx, c)
}

// ProfileOf implements profileNamer: the profile of a connection ID.
func (s machineSource) ProfileOf(ctx context.Context, connID string) (string, error) {
	m, err := track.LoadMachine(session.Env{Getenv: s.env.Getenv})
	if err != nil {
		return "", err
	}
	if n, ok := m.Names[connID]; ok {
		return n, nil
	}
	return "", errors.New("no profile of this machine is for connection " + connID)
}
