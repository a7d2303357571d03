package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// envAPIKey is the environment variable holding "<key-id>:<secret>" for
// automation. It is read, never logged or echoed.
const envAPIKey = "B2BX_API_KEY"

// connFlags are the flags every API command accepts to choose a connection:
// a profile name (-c NAME) or an explicit --url and --connection with the
// credential from B2BX_API_KEY.
type connFlags struct {
	profile    string
	url        string
	connection string
}

func addConnFlags(fs *flag.FlagSet) *connFlags {
	f := &connFlags{}
	fs.StringVar(&f.profile, "c", "", "connection profile `NAME` (see 'b2bx conn ls')")
	fs.StringVar(&f.url, "url", "", "Partner API base `URL` (with --connection; key from $"+envAPIKey+")")
	fs.StringVar(&f.connection, "connection", "", "connection `ID` (with --url)")
	return f
}

// connTarget is a resolved connection: where to talk to and with which keys.
type connTarget struct {
	Name         string // profile name, empty for --url/--connection
	BaseURL      string
	ConnectionID string
	Inbox        secret.Credential // key for POST /inbox
	Mailbox      secret.Credential // key for the mailbox calls
	StoreDir     string            // spool directory override; empty means the default
}

var errNoConnection = errors.New("no connection chosen: pass -c NAME (a profile from 'b2bx conn ls') or --url URL --connection ID with $" + envAPIKey + "=<key-id>:<secret>")

// resolve turns the flags into a connTarget. Errors are usage errors.
func (f *connFlags) resolve(ctx context.Context, e *env) (connTarget, error) {
	switch {
	case f.profile != "" && (f.url != "" || f.connection != ""):
		return connTarget{}, errors.New("-c cannot be combined with --url/--connection")
	case f.profile != "":
		return resolveProfile(ctx, e, f.profile)
	case f.url == "" && f.connection == "":
		return connTarget{}, errNoConnection
	case f.url == "" || f.connection == "":
		return connTarget{}, errors.New("--url and --connection go together")
	}
	raw := e.getenv(envAPIKey)
	if raw == "" {
		return connTarget{}, fmt.Errorf("$%s is not set: export %s=<key-id>:<secret> or use a profile (-c NAME)", envAPIKey, envAPIKey)
	}
	cred, err := secret.ParseCredential(raw)
	if err != nil {
		return connTarget{}, fmt.Errorf("$%s: %w", envAPIKey, err)
	}
	return connTarget{BaseURL: f.url, ConnectionID: f.connection, Inbox: cred, Mailbox: cred}, nil
}
