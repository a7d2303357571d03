package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/teamstore"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
)

func init() {
	register(&command{name: "store init", summary: "create or migrate the team store's schema in PostgreSQL ([store] url of config.toml; idempotent)", run: runStoreInit})
	register(&command{name: "store status", summary: "say whether the team store is reachable and its schema version", run: runStoreStatus})
	register(&command{name: "store login", summary: "keep the team store's database password in the OS keyring (no-echo prompt or --password-stdin)", run: runStoreLogin})
}

// OutboxStatus is the hook of the local outbox (internal/outbox, issue 22):
// when set, `b2bx store status` adds its line ("12 waiting, unreachable
// since 09:10") and its JSON fields. nil: no outbox on this build.
var OutboxStatus func(ctx context.Context, e *env) (line string, fields map[string]any)

// teamSecrets is the keyring the team store's password is read from
// (tests replace it).
var teamSecrets = func(e *env) (credentials.SecretStore, error) { return session.StoreFromEnv(e.getenv) }

// storeConfig reads [store] and the keyring; a missing url is a usage error.
func storeConfig(e *env, name string, asJSON bool) (teamstore.Config, int) {
	st, err := teamstore.Settings(e.getenv)
	if err != nil {
		return teamstore.Config{}, fail(e, name, asJSON, exitUsage, err)
	}
	if !st.Configured() {
		return teamstore.Config{}, fail(e, name, asJSON, exitUsage, teamstore.ErrNotConfigured)
	}
	secrets, err := teamSecrets(e)
	if err != nil {
		return teamstore.Config{}, fail(e, name, asJSON, exitUsage, err)
	}
	return teamstore.ConfigFrom(st, secrets), exitOK
}

func storeFlags(e *env, name string, args []string) (asJSON bool, code int, done bool) {
	fs := newFlagSet(e, name, "")
	j := fs.Bool("json", false, "print JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return false, flagExit(err), true
	}
	if len(pos) > 0 {
		return *j, fail(e, name, *j, exitUsage, fmt.Errorf("unexpected argument %q", termsafe.String(pos[0]))), true
	}
	return *j, exitOK, false
}

// storeStart parses the flags of store init and store status and reads
// the [store] configuration; done (with the exit code) when the command
// ends there (-h, a bad flag, no team store configured).
func storeStart(e *env, name string, args []string) (cfg teamstore.Config, asJSON bool, code int, done bool) {
	if asJSON, code, done = storeFlags(e, name, args); done {
		return cfg, asJSON, code, true
	}
	cfg, code = storeConfig(e, name, asJSON)
	return cfg, asJSON, code, code != exitOK
}

func runStoreInit(ctx context.Context, e *env, args []string) int {
	cfg, asJSON, code, done := storeStart(e, "store init", args)
	if done {
		return code
	}
	s, err := teamstore.Connect(ctx, cfg)
	if err != nil {
		return fail(e, "store init", asJSON, teamStoreExit(err), err)
	}
	defer s.Close()
	before, _ := s.SchemaVersions(ctx)
	if !asJSON && before.Team > 0 && before.Team < teamstore.SchemaVersion {
		// a migration of a store in use: it copies tables, say so before the wait
		fmt.Fprintf(e.stderr, "store init: migrating team tables %d → %d (a large store takes minutes, at most %s; ctrl+c stops it and the team tables stay as they were)\n",
			before.Team, teamstore.SchemaVersion, teamstore.MigrateTimeout)
	}
	v, err := s.Init(ctx)
	if err != nil {
		return fail(e, "store init", asJSON, exitStorage, err)
	}
	if asJSON {
		return emitJSON(e, "store init", map[string]any{"store": s.Target(), "teamSchema": v.Team, "indexSchema": v.Index, "changed": before != v})
	}
	what := "up to date"
	if before != v {
		what = fmt.Sprintf("migrated from %s", before)
	}
	fmt.Fprintf(e.stdout, "team store %s: schema %s (%s)\n", s.Target(), v, what)
	return exitOK
}

func runStoreStatus(ctx context.Context, e *env, args []string) int {
	cfg, asJSON, code, done := storeStart(e, "store status", args)
	if done {
		return code
	}
	st := teamstore.Status{}
	s, err := teamstore.Connect(ctx, cfg)
	if err == nil {
		defer s.Close()
		st, _ = s.Status(ctx)
	} else if p, perr := teamstore.Parse(cfg.URL); perr == nil {
		st = teamstore.Status{Target: p.Target, Err: err}
	} else {
		return fail(e, "store status", asJSON, exitUsage, perr)
	}
	var outLine string
	var outFields map[string]any
	if OutboxStatus != nil {
		outLine, outFields = OutboxStatus(ctx, e)
	}
	if asJSON {
		out := map[string]any{"store": st.Target, "reachable": st.Reachable, "current": st.Current,
			"teamSchema": st.Version.Team, "indexSchema": st.Version.Index, "by": cfg.By.String()}
		if st.Err != nil {
			out["error"] = termsafe.String(st.Err.Error())
		}
		for k, v := range outFields {
			out[k] = v
		}
		if c := emitJSON(e, "store status", out); c != exitOK {
			return c
		}
	} else {
		switch {
		case !st.Reachable:
			fmt.Fprintf(e.stdout, "team store %s: unreachable: %s\n", st.Target, termsafe.String(st.Err.Error()))
		case !st.Current:
			fmt.Fprintf(e.stdout, "team store %s: reachable, schema %s: %s\n", st.Target, st.Version, termsafe.String(st.Err.Error()))
		default:
			fmt.Fprintf(e.stdout, "team store %s: reachable, schema %s, records by %s\n", st.Target, st.Version, cfg.By)
		}
		if outLine != "" {
			fmt.Fprintln(e.stdout, termsafe.String(outLine))
		}
	}
	switch {
	case !st.Reachable, errors.Is(st.Err, track.ErrNewerSchema), errors.Is(st.Err, track.ErrNoSchema):
		return exitStorage
	}
	return exitOK
}

// teamStoreExit is the exit code of a team-store error: a URL that cannot be
// used is the user's to fix (usage), the rest the database's (storage).
func teamStoreExit(err error) int {
	if errors.Is(err, teamstore.ErrConfig) {
		return exitUsage
	}
	return exitStorage
}

// maxPassword bounds a password line read from stdin.
const maxPassword = 4096

func runStoreLogin(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "store login", "")
	fromStdin := fs.Bool("password-stdin", false, "read the password as one line from stdin instead of a no-echo prompt")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return fail(e, "store login", false, exitUsage, fmt.Errorf("unexpected argument %q", termsafe.String(pos[0])))
	}
	cfg, code := storeConfig(e, "store login", false)
	if code != exitOK {
		return code
	}
	p, err := teamstore.Parse(cfg.URL)
	if err != nil {
		return fail(e, "store login", false, exitUsage, err)
	}
	var raw string
	if *fromStdin {
		line, err := bufio.NewReaderSize(io.LimitReader(e.stdin, maxPassword+2), maxPassword+2).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fail(e, "store login", false, exitUsage, fmt.Errorf("--password-stdin: reading stdin: %w", err))
		}
		raw = strings.TrimRight(line, "\r\n")
		if len(raw) > maxPassword {
			return fail(e, "store login", false, exitUsage, fmt.Errorf("--password-stdin: the line is longer than %d bytes", maxPassword))
		}
	} else {
		raw, err = promptSecret(e, fmt.Sprintf("password of %s: ", p.Account))
		if errors.Is(err, errNoTerminal) {
			return fail(e, "store login", false, exitUsage, errors.New("stdin is not a terminal, so b2bx cannot prompt for the password: pass --password-stdin and write it as one line"))
		}
		if err != nil {
			return fail(e, "store login", false, exitUsage, err)
		}
	}
	if raw == "" {
		return fail(e, "store login", false, exitUsage, errors.New("an empty password was given; nothing was stored"))
	}
	if err := teamstore.Login(ctx, cfg.URL, secret.New(raw), cfg.Secrets); err != nil {
		return fail(e, "store login", false, teamStoreExit(err), err)
	}
	fmt.Fprintf(e.stdout, "the password of %s is in the OS keyring; b2bx connects to %s with it\n", termsafe.String(p.Account), p.Target)
	return exitOK
}
