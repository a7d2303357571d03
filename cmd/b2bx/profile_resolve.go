package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// secretStoreFor is the secret store of the CLI: the OS keyring with the
// timeout from $B2BX_KEYRING_TIMEOUT. Sticky: once the keyring proved
// unreachable, later calls of the same command fail at once. Tests replace
// it with an in-memory store.
var secretStoreFor = func(e *env) (credentials.SecretStore, error) {
	return session.StoreFromEnv(e.getenv)
}

// sessionEnv is the CLI's view of the outside world for session: the
// store is made on first need, warnings go to stderr.
func sessionEnv(e *env) session.Env {
	return session.Env{
		Getenv:    e.getenv,
		OpenStore: func() (credentials.SecretStore, error) { return secretStoreFor(e) },
		Warn: func(msg string) {
			fmt.Fprintf(e.stderr, "b2bx: warning: %s\n", termsafe.String(msg))
		},
	}
}

// loadProfiles reads the profile file named by the environment.
func loadProfiles(e *env) (*credentials.File, error) {
	return session.LoadProfiles(sessionEnv(e))
}

// findProfile returns the named profile or an error saying how to list or
// add profiles.
func findProfile(f *credentials.File, name string) (credentials.Profile, error) {
	return session.FindProfile(f, name)
}

// resolveProfile loads a named connection profile and its secrets (see
// session.ResolveProfile).
func resolveProfile(ctx context.Context, e *env, name string) (connTarget, error) {
	return session.ResolveProfile(ctx, sessionEnv(e), name)
}

// storeExit is the exit code of a failed secret-store call: a missing
// secret is a setup problem (usage); an unreachable or failing keyring is
// a local storage failure.
func storeExit(err error) int {
	var se *credentials.StoreError
	if errors.As(err, &se) && !errors.Is(err, credentials.ErrNotFound) {
		return exitStorage
	}
	return exitUsage
}

// namedProfile is the common start of the conn commands that take one
// profile NAME: parse the flags, then load the profile file and find the
// profile. When ok is false the command exits with code (the error has
// been printed).
func namedProfile(e *env, name string, fs *flag.FlagSet, args []string) (file *credentials.File, p credentials.Profile, code int, ok bool) {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, p, flagExit(err), false
	}
	n, err := oneName(pos)
	if err == nil {
		file, err = loadProfiles(e)
	}
	if err == nil {
		p, err = findProfile(file, n)
	}
	if err != nil {
		return nil, p, connFail(e, name, exitUsage, err), false
	}
	return file, p, exitOK, true
}
