package main

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/tui"
)

func init() {
	register(&command{name: "app", summary: "open the terminal app (the same as b2bx with no arguments)", run: runApp})
}

// runTUI runs the app; tests replace it (they have no terminal).
var runTUI = tui.Run

func runApp(ctx context.Context, e *env, args []string) int {
	const name = "app"
	fs := newFlagSet(e, name, "")
	fresh := fs.Bool("fresh", false, "start clean: forget the open tabs, page sizes and filters saved by the last run")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		fmt.Fprintln(e.stderr, "b2bx app: takes no arguments; see 'b2bx app -h'")
		return exitUsage
	}
	if !isTerminal(e.stdin) || !isTerminal(e.stdout) {
		fmt.Fprintln(e.stderr, "b2bx: the app needs a terminal on stdin and stdout; the commands below work without one.")
		fmt.Fprintln(e.stderr)
		usage(e.stderr)
		return exitUsage
	}
	cfg, statePath, code := appSettings(e, *fresh)
	if code != exitOK {
		return code
	}
	// A closed terminal (SIGHUP) ends the app like SIGTERM: leases are
	// released and the demo's temp dir removed.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP)
	defer stop()
	// One store for the whole session: a keyring that proved unreachable
	// is not waited for again (session.StoreFromEnv is sticky).
	store, err := session.StoreFromEnv(e.getenv)
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx: %v\n", err)
		return exitUsage
	}
	opts := tui.Options{Env: session.Env{Getenv: e.getenv, Store: store}, StoreName: "the OS keyring",
		Input: e.stdin, Output: e.stdout, Config: cfg, StatePath: statePath}
	// the outbox, and the team's data (find, the timeline, the dashboard,
	// H, key plans): opened by the app off its UI goroutine
	tp, team := appTeam(ctx, e)
	if tp != nil {
		opts.TeamStore = tp
	}
	if team != nil {
		opts.Team = team
	}
	release := holdTerminal(e.stdin, e.stdout)
	err = runTUI(ctx, opts)
	release()
	team.Close()
	tp.finish(teamDrainWait) // what still waits is said after the screen is back
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(e.stderr, "b2bx: %v\n", err)
		return exitUsage
	}
	return exitOK
}
