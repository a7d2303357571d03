package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/events/webhook"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/metrics"
	"github.com/nutrab2b/b2bx/internal/outbox"
	"github.com/nutrab2b/b2bx/internal/teamstore"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/internal/who"
)

func init() {
	register(&command{name: "store push", summary: "send everything this machine stored to the team store (idempotent: what it has is not sent again)", run: runStorePush})
}

// openTeamStore connects the team store of config.toml's [store]: the
// Remote, who pushes (the [store] user, else the OS user, on this host)
// and its close. A nil Remote with a nil error means none is configured:
// then nothing is queued and nothing is shown. internal/teamstore sets
// it (its *teamstore.Store is the Remote); tests set a fake.
var openTeamStore = func(_ context.Context, e *env) (outbox.Remote, who.Who, func(), error) {
	r, by, err := teamstore.ConfiguredRemote(e.getenv, func() (credentials.SecretStore, error) { return teamSecrets(e) })
	if err != nil || r == nil {
		return nil, who.Who{}, nil, err
	}
	return r, by, r.Close, nil // connected on first push: a command queues even while the database is down
}

// teamDrainWait bounds how long a command that stored something waits
// at its end for the outbox to drain.
var teamDrainWait = 10 * time.Second

// teamPush is a command's outbox and pusher while a team store is
// configured; nil (all methods are no-ops) when none is.
type teamPush struct {
	e     *env
	name  string
	box   *outbox.Outbox
	p     *outbox.Pusher
	close func()
	// remote is what p pushes to (a *teamstore.Remote, or a test's fake)
	remote outbox.Remote
}

// teamRemote opens the configured team store; nil when none is. An
// error is returned with what to check.
func teamRemote(ctx context.Context, e *env) (outbox.Remote, who.Who, func(), error) {
	if openTeamStore == nil {
		return nil, who.Who{}, nil, nil
	}
	r, by, closeFn, err := openTeamStore(ctx, e)
	if closeFn == nil {
		closeFn = func() {}
	}
	return r, by, closeFn, err
}

// startTeamPush starts the outbox of the data directory and its pusher
// for command name when a team store is configured. It never fails the
// command: a problem is said once and the command goes on locally.
func startTeamPush(ctx context.Context, e *env, name string) *teamPush {
	t, err := newTeamPush(ctx, e, name)
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx %s: %s; working on the local store only (run 'b2bx store push' later)\n", name, termsafe.String(err.Error()))
	}
	return t
}

// newTeamPush is startTeamPush returning the problem: nil, nil when no
// team store is configured. Opening needs no reachable database (the
// pusher retries); an error is the configuration's or the disk's.
func newTeamPush(ctx context.Context, e *env, name string) (*teamPush, error) {
	say := func(msg string) { fmt.Fprintf(e.stderr, "b2bx %s: %s\n", name, termsafe.String(msg)) }
	r, by, closeFn, err := teamRemote(ctx, e)
	if err != nil {
		return nil, fmt.Errorf("team store: %s", outbox.Redact(err.Error()))
	}
	if r == nil {
		return nil, nil
	}
	dir, err := spool.DefaultRoot(e.getenv)
	var box *outbox.Outbox
	if err == nil {
		box, err = outbox.Open(outbox.Dir(dir), outbox.Options{Warn: say})
	}
	if err != nil {
		closeFn()
		return nil, fmt.Errorf("team store: %w", err)
	}
	if by.IsZero() {
		by = who.Default("")
	}
	p := box.Start(context.WithoutCancel(ctx), outbox.PushOptions{Remote: r, By: by, Warn: say})
	return &teamPush{e: e, name: name, box: box, p: p, close: closeFn, remote: r}, nil
}

// appTeamPush is the app's outbox: its lines go to the status bar while
// the app runs (stderr would tear the screen), what still waits at the
// end to stderr.
func appTeamPush(ctx context.Context, e *env) *teamPush {
	quiet := *e
	quiet.stderr = io.Discard
	t, err := newTeamPush(ctx, &quiet, "app")
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx: %s; working on the local store only\n", termsafe.String(err.Error()))
	}
	if t != nil {
		t.e = e
	}
	return t
}

// appTeam is the app's team store: its outbox (appTeamPush) and the
// team's data it reads (teamstore.Faces, nil when none is configured),
// wired so the app's key plans hold the team's key-plan lock of a
// connection until the key they reserved is pushed, as `b2bx upload`
// does.
func appTeam(ctx context.Context, e *env) (*teamPush, *teamstore.Faces) {
	tp := appTeamPush(ctx, e)
	faces := teamstore.NewFaces(e.getenv, func() (credentials.SecretStore, error) { return teamSecrets(e) })
	if r, ok := tp.pushRemote().(*teamstore.Remote); ok && faces != nil {
		r.OnUploadPushed(faces.UploadPushed)
	}
	return tp, faces
}

// pushRemote is where the outbox pushes to; nil without one.
func (t *teamPush) pushRemote() outbox.Remote {
	if t == nil {
		return nil
	}
	return t.remote
}

// team is what the metrics endpoint reads of the outbox (its gauges);
// nil without a team store, so they are absent rather than 0.
func (t *teamPush) team() metrics.TeamStatus {
	if t == nil {
		return nil
	}
	return teamGauges{t.p}
}

// teamGauges answers the metrics from the pusher's state in memory.
type teamGauges struct{ p *outbox.Pusher }

func (g teamGauges) Waiting() int    { return g.p.Status().Waiting }
func (g teamGauges) Reachable() bool { return g.p.Status().Reachable }

// Attach implements tui.TeamStore.
func (t *teamPush) Attach(s *spool.Store) { t.attach(s) }

// StatusLine implements tui.TeamStore.
func (t *teamPush) StatusLine() string { return t.p.Status().Short() }

// listenTeamPush is `event listen --store`'s outbox: it needs a team
// store.
func listenTeamPush(ctx context.Context, e *env) (*teamPush, error) {
	t, err := newTeamPush(ctx, e, "event listen")
	if err == nil && t == nil {
		err = errors.New("--store needs a team store: set [store] url in config.toml and 'b2bx store init' it (see docs/team-store.md)")
	}
	return t, err
}

// attach makes s queue what it stores.
func (t *teamPush) attach(s *spool.Store) {
	if t != nil && s != nil {
		t.box.Attach(s)
	}
}

// enqueue queues an entry (an `event listen` capture).
func (t *teamPush) enqueue(en outbox.Entry) {
	if t != nil {
		t.box.Enqueue(en)
	}
}

// pushNow drains the outbox within wait and leaves the pusher running:
// upload pushes the key it reserved before a colleague may plan the next.
func (t *teamPush) pushNow(wait time.Duration) outbox.Status {
	if t == nil {
		return outbox.Status{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return t.p.Drain(ctx)
}

// finish drains the outbox within wait, says what still waits, and
// stops the pusher.
func (t *teamPush) finish(wait time.Duration) outbox.Status {
	if t == nil {
		return outbox.Status{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	st := t.p.Drain(ctx)
	cancel()
	t.p.Stop()
	_ = t.box.Close()
	t.close()
	if msg := stillWaiting(st); msg != "" {
		fmt.Fprintf(t.e.stderr, "b2bx %s: %s\n", t.name, msg)
	}
	return st
}

// stillWaiting is the line a command ends with when the team store does
// not have everything yet ("" when it has).
func stillWaiting(st outbox.Status) string {
	if st.Waiting == 0 && st.Dropped == 0 {
		return ""
	}
	msg := st.Short()
	if st.LastError != "" && !st.Reachable {
		msg += " (" + st.LastError + ")"
	}
	if st.Elsewhere {
		return msg + "; the b2bx holding this machine's outbox pushes them"
	}
	return msg + "; the stored files are safe here, and the next b2bx with the team store (or 'b2bx store push') sends them"
}

// storePushJSON is store push's --json result.
type storePushJSON struct {
	Found  outbox.Found  `json:"found"`
	Status outbox.Status `json:"status"`
}

func runStorePush(ctx context.Context, e *env, args []string) int {
	const name = "store push"
	fs := newFlagSet(e, name, "")
	wait := fs.Duration("wait", 10*time.Minute, "wait at most this long for the team store to take everything")
	asJSON := fs.Bool("json", false, "print what was found and the outbox's status as JSON")
	var caps listFlag
	fs.Var(&caps, "captures", "also push the captures (*.http) of this `DIR` (repeatable; the default capture directory always)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return fail(e, name, *asJSON, exitUsage, fmt.Errorf("store push takes no arguments (got %q); see 'b2bx store push -h'", pos[0]))
	}
	if *wait <= 0 {
		return fail(e, name, *asJSON, exitUsage, errors.New("--wait must be positive (e.g. 10m)"))
	}
	r, by, closeFn, err := teamRemote(ctx, e)
	if err != nil {
		return fail(e, name, *asJSON, exitAPI, fmt.Errorf("team store: %s", outbox.Redact(err.Error())))
	}
	if r == nil {
		return fail(e, name, *asJSON, exitUsage, errors.New("no team store is configured: set [store] url in config.toml and 'b2bx store init' it (see docs/team-store.md)"))
	}
	defer closeFn()
	m, err := track.LoadMachine(session.Env{Getenv: e.getenv})
	if err != nil {
		return fail(e, name, *asJSON, exitUsage, err)
	}
	say := func(msg string) { fmt.Fprintf(e.stderr, "b2bx %s: %s\n", name, termsafe.String(msg)) }
	box, err := outbox.Open(outbox.Dir(m.Dir), outbox.Options{Warn: say})
	if err != nil {
		return fail(e, name, *asJSON, exitStorage, err)
	}
	defer box.Close()
	if d, err := webhook.DefaultDir(e.getenv); err == nil {
		caps = append([]string{d}, caps...)
	}
	found, err := box.EnqueueAll(ctx, m.Roots, caps)
	if err != nil {
		return fail(e, name, *asJSON, exitStorage, err)
	}
	if by.IsZero() {
		by = who.Default("")
	}
	p := box.Start(ctx, outbox.PushOptions{Remote: r, By: by, Warn: say})
	dctx, cancel := context.WithTimeout(ctx, *wait)
	st := p.Drain(dctx)
	cancel()
	p.Stop()
	st = p.Status()
	code := exitOK
	if st.Waiting > 0 || st.Dropped > 0 {
		code = exitAPI
	}
	if *asJSON {
		if c := emitJSON(e, name, storePushJSON{Found: found, Status: st}); c != exitOK {
			return c
		}
		return code
	}
	fmt.Fprintf(e.stdout, "found %d deliveries, %d upload records, %d seen lines, %d captures; %d new to the outbox\n",
		found.Deliveries, found.Uploads, found.Seen, found.Captures, found.Queued)
	fmt.Fprintf(e.stdout, "pushed %d\n", st.Pushed)
	fmt.Fprint(e.stdout, outbox.FormatStatus(st))
	if code != exitOK {
		fmt.Fprintf(e.stderr, "b2bx %s: %s\n", name, stillWaiting(st))
	}
	return code
}

func init() {
	OutboxStatus = localOutboxStatus
}

// localOutboxStatus is `store status`'s line about this machine's
// outbox: how many records wait to be pushed.
func localOutboxStatus(_ context.Context, e *env) (string, map[string]any) {
	dir, err := spool.DefaultRoot(e.getenv)
	if err != nil {
		return "", nil
	}
	n, err := outbox.Waiting(outbox.Dir(dir))
	switch {
	case err != nil:
		return "local outbox: not readable: " + outbox.Redact(err.Error()), map[string]any{"outboxError": outbox.Redact(err.Error())}
	case n == 0:
		return "local outbox: nothing waits to be pushed", map[string]any{"outboxWaiting": 0}
	}
	return fmt.Sprintf("local outbox: %d record(s) wait to be pushed (any b2bx command that stores pushes them; or run 'b2bx store push')", n),
		map[string]any{"outboxWaiting": n}
}
