package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
)

func init() {
	register(&command{name: "mig learn", summary: "write what a connection's partner accepted before as partner rules (TOML) to start from", run: runMIGLearn})
}

// runMIGLearn reads the connection's uploads and answers from its store
// (no secret, no network) and prints the learned rules, or writes them
// to -o FILE (never over an existing file).
func runMIGLearn(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "mig learn", "")
	conn := fs.String("c", "", "the connection profile `NAME` whose history to learn from")
	outPath := fs.String("o", "", "write the rules to `FILE` (must not exist) instead of stdout")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 0 || *conn == "" {
		return fail(e, "mig learn", false, exitUsage, errors.New("give the connection with -c NAME (and no other arguments)"))
	}
	f, err := loadProfiles(e)
	if err != nil {
		return fail(e, "mig learn", false, exitUsage, err)
	}
	p, err := findProfile(f, *conn)
	if err != nil {
		return fail(e, "mig learn", false, exitUsage, err)
	}
	store, err := openSpool(e, connTarget{Name: p.Name, ConnectionID: p.ConnectionID, StoreDir: p.StoreDir})
	if err != nil {
		return fail(e, "mig learn", false, exitStorage, err)
	}
	h, err := orders.LoadHistoryWith(ctx, store, p.ConnectionID, track.VerdictLoader(session.Env{Getenv: e.getenv}))
	if err != nil {
		return fail(e, "mig learn", false, exitStorage, fmt.Errorf("reading the connection's uploads and answers failed: %w", err))
	}
	if h.Accepted == 0 {
		return fail(e, "mig learn", false, exitUsage, fmt.Errorf("connection %s has no upload a CONTRL accepted (with its bytes still stored): nothing to learn from yet", termsafe.String(p.Name)))
	}
	out := orders.LearnMIG(h, p.Name)
	if *outPath == "" {
		for _, line := range strings.SplitAfter(string(out), "\n") {
			if line != "" {
				fmt.Fprintln(e.stdout, termsafe.String(strings.TrimSuffix(line, "\n")))
			}
		}
		return exitOK
	}
	w, err := os.OpenFile(*outPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = w.Write(out)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fail(e, "mig learn", false, exitStorage, err)
	}
	fmt.Fprintf(e.stderr, "b2bx mig learn: wrote the rules of %d accepted and %d rejected ORDERS to %s; review them, then set mig = %q in the profile\n",
		h.Accepted, h.Rejected, termsafe.String(*outPath), termsafe.String(*outPath))
	return exitOK
}
