package connlist

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Row is one connection profile as the list shows it. Every string is
// sanitised (the profile file is hand-editable).
type Row struct {
	Name         string
	URL          string
	ConnectionID string
	Partner      string
	// Directory is the profile's revision ("D.96A" or "D.25A"), the
	// directory its ORDERS, ORDRSP and APERAK are in.
	Directory string
	// Keys are the profile's distinct keys, mailbox key's use included.
	// Before the secret store answered, each State is "" (checking).
	Keys []Key
}

// Key is one key of a row and where its secret is.
type Key struct {
	KeyID string
	Uses  string // "inbox+mailbox", "mailbox", "inbox"
	State session.SecretState
	// Problem says why the secret is not available, sanitised; "" when it is.
	Problem string
}

// Listing is what Source.Profiles returns: the rows and the file they came from.
type Listing struct {
	Path     string
	Rows     []Row
	Warnings []string // sanitised
}

// NewConn is the add form's result: a validated profile and the secret
// of each of its keys.
type NewConn struct {
	Profile credentials.Profile
	Secrets map[string]secret.Value
}

// Source is where the list comes from and where a new connection goes.
// Its methods do IO and run inside tea.Cmds only.
type Source interface {
	// Profiles reads the profile file (fast: no secret store).
	Profiles(ctx context.Context) (Listing, error)
	// States adds the state of every key's secret (may wait on the
	// keyring, up to its timeout).
	States(ctx context.Context) (Listing, error)
	// Add saves the profile and its secrets as one transaction; it
	// refuses an existing name. The returned text says where the secrets went.
	Add(ctx context.Context, nc NewConn) (string, error)
}

// SessionSource is the Source over the profile file and a secret store
// (the OS keyring, or the demo's in-memory store).
type SessionSource struct {
	Env session.Env
	// StoreName says where secrets go, for the confirmation ("the OS keyring").
	StoreName string
}

// Profiles implements Source.
func (s SessionSource) Profiles(_ context.Context) (Listing, error) {
	var warnings []string
	env := s.Env
	env.Warn = func(msg string) { warnings = append(warnings, termsafe.String(msg)) }
	f, err := session.LoadProfiles(env)
	if err != nil {
		return Listing{}, err
	}
	l := Listing{Path: termsafe.String(f.Path), Rows: []Row{}, Warnings: warnings}
	for _, n := range f.Names() {
		p, _ := f.Get(n)
		r := rowOf(p)
		for _, k := range p.Keys() {
			r.Keys = append(r.Keys, Key{KeyID: termsafe.String(k.KeyID), Uses: usesOf(k.Uses)})
		}
		l.Rows = append(l.Rows, r)
	}
	return l, nil
}

// States implements Source.
func (s SessionSource) States(ctx context.Context) (Listing, error) {
	env := s.Env
	env.Warn = nil // Profiles reported them
	f, err := session.LoadProfiles(env)
	if err != nil {
		return Listing{}, err
	}
	store, err := s.store()
	if err != nil {
		return Listing{}, err
	}
	l := Listing{Path: termsafe.String(f.Path), Rows: []Row{}}
	for _, cs := range session.ConnStates(ctx, store, f, s.getenv()) {
		r := rowOf(cs.Profile)
		for _, k := range cs.Keys {
			key := Key{KeyID: termsafe.String(k.KeyID), Uses: usesOf(k.Uses), State: k.State}
			if k.Err != nil {
				key.Problem = termsafe.String(k.Err.Error())
			}
			r.Keys = append(r.Keys, key)
		}
		l.Rows = append(l.Rows, r)
	}
	return l, nil
}

// Add implements Source with session.AddProfile (the validation and the
// all-or-nothing secret storage of `b2bx conn add`).
func (s SessionSource) Add(ctx context.Context, nc NewConn) (string, error) {
	f, err := session.LoadProfiles(s.Env)
	if err != nil {
		return "", err
	}
	store, err := s.store()
	if err != nil {
		return "", err
	}
	if err := session.AddProfile(ctx, f, nc.Profile, nc.Secrets, store); err != nil {
		return "", err
	}
	where := s.StoreName
	if where == "" {
		where = "the OS keyring"
	}
	var accts []string
	for _, k := range nc.Profile.Keys() {
		if _, ok := nc.Secrets[k.KeyID]; !ok {
			continue
		}
		accts = append(accts, credentials.Service+"/"+credentials.Account(nc.Profile.Name, k.KeyID))
	}
	return termsafe.String(fmt.Sprintf("added %s to %s; secrets stored in %s as %s",
		nc.Profile.Name, f.Path, where, strings.Join(accts, ", "))), nil
}

func (s SessionSource) store() (credentials.SecretStore, error) {
	if s.Env.Store != nil {
		return s.Env.Store, nil
	}
	if s.Env.OpenStore != nil {
		return s.Env.OpenStore()
	}
	return session.StoreFromEnv(s.getenv())
}

func (s SessionSource) getenv() func(string) string {
	if s.Env.Getenv == nil {
		return os.Getenv
	}
	return s.Env.Getenv
}

func rowOf(p credentials.Profile) Row {
	return Row{Name: termsafe.String(p.Name), URL: termsafe.String(p.URL),
		ConnectionID: termsafe.String(p.ConnectionID), Partner: termsafe.String(p.Partner),
		Directory: termsafe.String(p.EDIDirectory())}
}

func usesOf(uses []credentials.Use) string {
	parts := make([]string, len(uses))
	for i, u := range uses {
		parts[i] = string(u)
	}
	return strings.Join(parts, "+")
}
