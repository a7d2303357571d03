package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
)

// secretStoreFor is the secret store of the CLI: the OS keyring with the
// timeout from $B2BX_KEYRING_TIMEOUT. Sticky: once the keyring proved
// unreachable, later calls of the same command fail at once. Tests replace
// it with an in-memory store.
var secretStoreFor = func(e *env) (credentials.SecretStore, error) {
	d, err := credentials.TimeoutFromEnv(e.getenv)
	if err != nil {
		return nil, err
	}
	return credentials.Sticky(credentials.NewKeyringStore(credentials.WithTimeout(d))), nil
}

// loadProfiles reads the profile file named by the environment.
func loadProfiles(e *env) (*credentials.File, error) {
	path, err := credentials.ConfigPath(e.getenv)
	if err != nil {
		return nil, err
	}
	return credentials.Load(path)
}

// findProfile returns the named profile or an error saying how to list or
// add profiles.
func findProfile(f *credentials.File, name string) (credentials.Profile, error) {
	if err := credentials.ValidateName(name); err != nil {
		return credentials.Profile{}, err
	}
	p, ok := f.Get(name)
	if !ok {
		return p, fmt.Errorf("no profile %q in %s: see 'b2bx conn ls', or add it with 'b2bx conn add %s --url URL --connection ID --key-id KEY'", name, f.Path, name)
	}
	return p, nil
}

// resolveProfile loads a named connection profile and its secrets: each
// key from the OS keyring, else from $B2BX_API_KEY when that names the same
// key ID. Both keys of the profile must resolve, so an upload can never go
// out with the mailbox key by accident.
func resolveProfile(ctx context.Context, e *env, name string) (connTarget, error) {
	f, err := loadProfiles(e)
	if err != nil {
		return connTarget{}, err
	}
	p, err := findProfile(f, name)
	if err != nil {
		return connTarget{}, err
	}
	store, err := secretStoreFor(e)
	if err != nil {
		return connTarget{}, err
	}
	r, err := credentials.Resolve(ctx, store, p, e.getenv)
	if err != nil {
		return connTarget{}, err
	}
	return connTarget{
		Name:         p.Name,
		BaseURL:      p.URL,
		ConnectionID: p.ConnectionID,
		Inbox:        r.Inbox.Credential,
		Mailbox:      r.Mailbox.Credential,
		StoreDir:     p.StoreDir,
	}, nil
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
