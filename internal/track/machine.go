package track

import (
	"context"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// Machine is what this machine's profiles say about tracking: the spool
// roots to index, each connection's SLA and profile name. No secret is
// read.
type Machine struct {
	Dir      string                // the data directory (the index lives below it)
	Roots    []string              // spool roots: Dir and every profile's store_dir
	Profiles []credentials.Profile // every profile, by name
	SLAs     map[string]SLA        // connection ID → SLA (the first profile naming it)
	Names    map[string]string     // connection ID → profile name
	byName   map[string]credentials.Profile
}

// LoadMachine reads the profiles (if any) and the data directory from the
// environment.
func LoadMachine(env session.Env) (*Machine, error) {
	getenv := env.Getenv
	dir, err := spool.DefaultRoot(getenv)
	if err != nil {
		return nil, err
	}
	m := &Machine{Dir: dir, Roots: []string{dir}, SLAs: map[string]SLA{}, Names: map[string]string{}, byName: map[string]credentials.Profile{}}
	f, err := session.LoadProfiles(env)
	if err != nil {
		return nil, err
	}
	for _, name := range f.Names() {
		p, _ := f.Get(name)
		m.Profiles = append(m.Profiles, p)
		m.byName[name] = p
		if p.StoreDir != "" {
			m.Roots = append(m.Roots, p.StoreDir)
		}
		if _, ok := m.SLAs[p.ConnectionID]; !ok {
			c, o := p.Effective()
			m.SLAs[p.ConnectionID] = SLA{Contrl: c, Ordrsp: o}
			m.Names[p.ConnectionID] = name
		}
	}
	return m, nil
}

// Directory is the profile directory ("D.96A", "D.25A") of the first
// profile naming connection conn, "" when no profile does.
func (m *Machine) Directory(conn string) string {
	for _, p := range m.Profiles {
		if p.ConnectionID == conn {
			return p.EDIDirectory()
		}
	}
	return ""
}

// SLA is the SLAFunc of the machine's profiles (defaults elsewhere).
func (m *Machine) SLA() SLAFunc {
	return func(conn string) SLA {
		if s, ok := m.SLAs[conn]; ok {
			return s
		}
		return DefaultSLA
	}
}

// Connection returns the connection ID of profile name.
func (m *Machine) Connection(name string) (string, error) {
	p, ok := m.byName[name]
	if !ok {
		return "", fmt.Errorf("no profile %q: see 'b2bx conn ls'", name)
	}
	return p.ConnectionID, nil
}

// Open opens the machine's index; say receives the one line about a
// rebuild.
func (m *Machine) Open(ctx context.Context, say func(string)) (*Index, error) {
	return Open(ctx, Options{Dir: m.Dir, Roots: m.Roots, Say: say})
}
