package main

import (
	"cmp"
	"context"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
)

func init() {
	register(&command{name: "check", summary: "pre-flight an ORDERS file without sending it (exit 0 clean, 1 warnings, 2 blocked)", run: runCheck})
}

// Exit codes of b2bx check.
const (
	checkClean    = 0
	checkWarnings = 1
	checkBlocked  = 2
)

// checkJSON is b2bx check --json.
type checkJSON struct {
	File      string          `json:"file"`
	Size      int64           `json:"size"`
	SHA256    string          `json:"sha256,omitempty"`
	Directory string          `json:"directory,omitempty"`
	Rules     string          `json:"rules,omitempty"`
	Verdict   string          `json:"verdict"` // clean, warnings, blocked
	Problem   string          `json:"problem,omitempty"`
	Checks    []checkLineJSON `json:"checks"`
}

type checkLineJSON struct {
	Name     string `json:"name"`
	Severity string `json:"severity"`
	Text     string `json:"text"`
	Rule     string `json:"rule,omitempty"`
}

// runCheck is the pre-flight `b2bx upload` and the upload screen run,
// on its own: -c names the connection (its directory and partner rules;
// no secret is read), --mig gives the rules file instead.
func runCheck(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "check", "FILE")
	conn := fs.String("c", "", "check for the connection profile `NAME`: its directory and partner rules (mig)")
	migFile := fs.String("mig", "", "check the partner's rules in `FILE` (TOML; instead of the profile's mig)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		return fail(e, "check", *asJSON, exitUsage, fmt.Errorf("give exactly one FILE holding one ORDERS interchange"))
	}
	var dir, profileMIG string
	var prof credentials.Profile
	if *conn != "" {
		f, err := loadProfiles(e)
		if err == nil {
			prof, err = findProfile(f, *conn)
			dir, profileMIG = prof.EDIDirectory(), prof.MIGPath(f.Path)
		}
		if err != nil {
			return fail(e, "check", *asJSON, exitUsage, err)
		}
	}
	rules := cmp.Or(*migFile, profileMIG)
	opts, err := orders.ConnectionOptions(dir, rules, false)
	if err != nil {
		return fail(e, "check", *asJSON, exitUsage, err)
	}
	if *conn != "" { // what this partner accepted before, from the profile's store (no secret needed)
		if store, err := openSpool(e, connTarget{Name: prof.Name, ConnectionID: prof.ConnectionID, StoreDir: prof.StoreDir}); err == nil {
			opts = opts.WithHistoryVerdicts(ctx, store, prof.ConnectionID, track.VerdictLoader(session.Env{Getenv: e.getenv}))
		}
	}
	pf, err := orders.InspectWith(ctx, pos[0], opts)
	if err != nil {
		return fail(e, "check", *asJSON, exitUsage, err)
	}
	code, verdict := checkClean, "clean"
	switch {
	case pf.Blocked():
		code, verdict = checkBlocked, "blocked"
	case len(pf.Warnings()) > 0:
		code, verdict = checkWarnings, "warnings"
	}
	if *asJSON {
		out := checkJSON{File: pf.Name, Size: pf.Size, SHA256: pf.SHA256, Directory: dir, Rules: rules, Verdict: verdict, Checks: []checkLineJSON{}}
		if pf.Problem != nil {
			out.Problem = pf.Problem.Error()
		}
		for _, c := range pf.Checks {
			out.Checks = append(out.Checks, checkLineJSON{Name: c.Name, Severity: c.Severity.String(), Text: c.Text, Rule: c.Rule})
		}
		if err := writeJSON(e.stdout, out); err != nil {
			return fail(e, "check", false, exitUsage, err)
		}
		return code
	}
	for _, c := range pf.Checks {
		fmt.Fprintf(e.stdout, "%s %s\n", checkMark(c.Severity), c.Text) // Text is terminal-safe
	}
	switch verdict {
	case "blocked":
		fmt.Fprintf(e.stdout, "blocked: %s\n", termsafe.String(pf.Problem.Error()))
	case "warnings":
		fmt.Fprintf(e.stdout, "%d warning(s): b2bx upload asks to confirm them; nothing was sent\n", len(pf.Warnings()))
	default:
		fmt.Fprintln(e.stdout, "clean: nothing was sent")
	}
	return code
}

// checkMark is the symbol of a report line (words and symbols, not only
// colour).
func checkMark(s orders.Severity) string {
	switch s {
	case orders.Blocking:
		return "✗"
	case orders.Warning:
		return "!"
	case orders.Note:
		return "·"
	}
	return "✓"
}
