package session

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// EnvAPIKey holds "<key-id>:<secret>" for automation (and for ResolveURL).
// It is read, never logged or echoed.
const EnvAPIKey = credentials.EnvAPIKey

// Target is a resolved connection: where to talk to and with which keys.
type Target struct {
	Name         string // profile name; empty for ResolveURL
	BaseURL      string
	ConnectionID string
	Partner      string            // the profile's optional partner label
	Inbox        secret.Credential // key for POST /inbox
	Mailbox      secret.Credential // key for the mailbox calls
	StoreDir     string            // spool directory override; empty means the default
	SLA          *credentials.SLA  // the profile's answer deadlines (sla.contrl, sla.ordrsp); nil: the defaults
	Directory    string            // the profile's directory ("D.96A", "D.25A"); "" without a profile
	MIG          string            // the profile's partner rules file, resolved next to the profile file; "" for none
	Rate         int               // the profile's client-side limit in requests/s; 0: the contract's default (100)
}

// Env is what resolution may read of the outside world.
type Env struct {
	// Getenv reads the environment; nil → os.Getenv.
	Getenv func(string) string
	// Store is the secret store. nil → OpenStore, else StoreFromEnv per
	// call. A long-lived caller (the app) makes one store and keeps it, so
	// a keyring that proved unreachable is not waited for again.
	Store credentials.SecretStore
	// OpenStore makes the store on first need when Store is nil (the CLI
	// uses it so a bad $B2BX_KEYRING_TIMEOUT only matters to commands that
	// touch the keyring). nil → StoreFromEnv(Getenv).
	OpenStore func() (credentials.SecretStore, error)
	// Warn receives warnings that do not stop the operation (a profile
	// file readable by other users); nil discards them. The text is ours
	// but may name a path: sanitise it before a terminal.
	Warn func(msg string)
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return os.Getenv(k)
	}
	return e.Getenv(k)
}

func (e Env) store() (credentials.SecretStore, error) {
	switch {
	case e.Store != nil:
		return e.Store, nil
	case e.OpenStore != nil:
		return e.OpenStore()
	}
	return StoreFromEnv(e.getenv)
}

func (e Env) warn(msg string) {
	if e.Warn != nil {
		e.Warn(msg)
	}
}

// StoreFromEnv is the OS keyring with the per-call timeout from
// $B2BX_KEYRING_TIMEOUT (credentials.DefaultTimeout when unset), wrapped
// in credentials.Sticky: once the keyring proved unreachable, later calls
// fail at once.
func StoreFromEnv(getenv func(string) string) (credentials.SecretStore, error) {
	d, err := credentials.TimeoutFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	return credentials.Sticky(credentials.NewKeyringStore(credentials.WithTimeout(d))), nil
}

// LoadProfiles reads the profile file named by the environment
// (credentials.ConfigPath) and passes its warnings to env.Warn.
func LoadProfiles(env Env) (*credentials.File, error) {
	path, err := credentials.ConfigPath(env.getenv)
	if err != nil {
		return nil, err
	}
	f, err := credentials.Load(path)
	if err != nil {
		return nil, err
	}
	for _, w := range f.Warnings() {
		env.warn(w)
	}
	return f, nil
}

// FindProfile returns the named profile or an error saying how to list or
// add profiles.
func FindProfile(f *credentials.File, name string) (credentials.Profile, error) {
	if err := credentials.ValidateName(name); err != nil {
		return credentials.Profile{}, err
	}
	p, ok := f.Get(name)
	if !ok {
		return p, fmt.Errorf("no profile %q in %s: see 'b2bx conn ls', or add it with 'b2bx conn add %s --url URL --connection ID --key-id KEY'", name, f.Path, name)
	}
	return p, nil
}

// ResolveProfile loads the named profile and its secrets: each key from
// the secret store, else from $B2BX_API_KEY when that names the same key
// ID. Both keys of the profile must resolve, so an upload can never go out
// with the mailbox key by accident.
func ResolveProfile(ctx context.Context, env Env, name string) (Target, error) {
	f, err := LoadProfiles(env)
	if err != nil {
		return Target{}, err
	}
	p, err := FindProfile(f, name)
	if err != nil {
		return Target{}, err
	}
	store, err := env.store()
	if err != nil {
		return Target{}, err
	}
	r, err := credentials.Resolve(ctx, store, p, env.getenv)
	if err != nil {
		return Target{}, err
	}
	return Target{
		Name:         p.Name,
		BaseURL:      p.URL,
		ConnectionID: p.ConnectionID,
		Partner:      p.Partner,
		Inbox:        r.Inbox.Credential,
		Mailbox:      r.Mailbox.Credential,
		StoreDir:     p.StoreDir,
		SLA:          p.SLA,
		Directory:    p.EDIDirectory(),
		MIG:          p.MIGPath(f.Path),
		Rate:         p.Rate,
	}, nil
}

// ResolveURL is a connection without a profile: baseURL and connectionID
// as given, one key for inbox and mailbox from $B2BX_API_KEY. The URL gets
// the profile's rules (https, or http only on loopback; no user info,
// query or fragment), checked before any request; an error never quotes
// user info or an unparsable URL.
func ResolveURL(env Env, baseURL, connectionID string) (Target, error) {
	if err := credentials.ValidateBaseURL(baseURL); err != nil {
		return Target{}, fmt.Errorf("base URL %w", err)
	}
	if err := credentials.ValidateConnectionID(connectionID); err != nil {
		return Target{}, err
	}
	raw := env.getenv(EnvAPIKey)
	if raw == "" {
		return Target{}, fmt.Errorf("$%s is not set: export %s=<key-id>:<secret> or use a profile (-c NAME)", EnvAPIKey, EnvAPIKey)
	}
	cred, err := secret.ParseCredential(raw)
	if err != nil {
		return Target{}, fmt.Errorf("$%s: %w", EnvAPIKey, err)
	}
	return Target{BaseURL: baseURL, ConnectionID: connectionID, Inbox: cred, Mailbox: cred}, nil
}

// checkTarget refuses a Target that did not come from ResolveProfile or
// ResolveURL and breaks their rules.
func checkTarget(t Target) error {
	if err := credentials.ValidateBaseURL(t.BaseURL); err != nil {
		return fmt.Errorf("base URL %w", err)
	}
	if err := credentials.ValidateConnectionID(t.ConnectionID); err != nil {
		return err
	}
	if t.Inbox.IsZero() && t.Mailbox.IsZero() {
		return errors.New("no API key: resolve the connection with a profile or $" + EnvAPIKey)
	}
	return nil
}
