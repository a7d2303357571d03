package teamstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/internal/settings"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/internal/who"
)

// ErrNotConfigured: config.toml has no [store] url.
var ErrNotConfigured = errors.New("teamstore: no team store is configured: add [store] url = \"postgres://USER@HOST/DB?sslmode=verify-full\" to config.toml (docs/team-store.md)")

// Settings reads the [store] section of the user's config.toml (found as
// credentials.ConfigPath finds profiles.toml).
func Settings(getenv func(string) string) (settings.Store, error) {
	profiles, err := credentials.ConfigPath(getenv)
	if err != nil {
		return settings.Store{}, err
	}
	cfg, err := settings.Load(settings.Path(profiles), nil, nil, getenv)
	if err != nil {
		return settings.Store{}, fmt.Errorf("config.toml: %w", err)
	}
	return cfg.Store, nil
}

// ConfigFrom is the Config of a [store] section: by the configured user
// (else the OS user) on this host, the password from secrets.
func ConfigFrom(st settings.Store, secrets credentials.SecretStore) Config {
	return Config{URL: st.URL, By: who.Default(st.User), Secrets: secrets}
}

// OpenConfigured opens the configured team store: ErrNotConfigured when
// there is none; else Open's errors (ErrUnreachable, ErrNoSchema …).
// What the CLI and the app both ask before reading the team's data.
func OpenConfigured(ctx context.Context, getenv func(string) string, secrets credentials.SecretStore) (*Store, error) {
	st, err := Settings(getenv)
	if err != nil {
		return nil, err
	}
	if !st.Configured() {
		return nil, ErrNotConfigured
	}
	return Open(ctx, ConfigFrom(st, secrets))
}

// TeamIndex is the team's index when a team store is configured and
// reachable, for the faces that read the team's data (find, its
// timeline, --overdue). With none configured it is nil and note "";
// when the store cannot be used it is nil and note is the one line to
// say (this machine's index answers instead). close releases it.
func TeamIndex(ctx context.Context, getenv func(string) string, secrets func() (credentials.SecretStore, error)) (x *track.Index, close func(), note string) {
	_, x, close, note = OpenTeam(ctx, getenv, secrets)
	return x, close, note
}

// OpenTeam is TeamIndex with the open Store too (a bundle reads a
// colleague's delivery from it); both are released by close.
func OpenTeam(ctx context.Context, getenv func(string) string, secrets func() (credentials.SecretStore, error)) (s *Store, x *track.Index, close func(), note string) {
	st, err := Settings(getenv)
	if err != nil || !st.Configured() {
		return nil, nil, nil, "" // config.toml's own problems are said where it is read for them
	}
	var ks credentials.SecretStore
	if secrets != nil {
		ks, _ = secrets() // no keyring: PGPASSWORD or .pgpass
	}
	s, err = Open(ctx, ConfigFrom(st, ks))
	if err != nil {
		return nil, nil, nil, "team store not used (" + termsafe.String(err.Error()) + "): this machine's index answers"
	}
	x, err = s.Index(ctx)
	if err != nil {
		s.Close()
		return nil, nil, nil, "team store not used (" + termsafe.String(err.Error()) + "): this machine's index answers"
	}
	return s, x, func() { x.Close(); s.Close() }, ""
}
