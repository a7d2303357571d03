package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/session"
)

// envAPIKey is the environment variable holding "<key-id>:<secret>" for
// automation. It is read, never logged or echoed.
const envAPIKey = session.EnvAPIKey

// connFlags are the flags every API command accepts to choose a connection:
// a profile name (-c NAME) or an explicit --url and --connection with the
// credential from B2BX_API_KEY.
type connFlags struct {
	profile    string
	url        string
	connection string
	timeout    time.Duration
}

func addConnFlags(fs *flag.FlagSet) *connFlags {
	f := &connFlags{}
	fs.StringVar(&f.profile, "c", "", "connection profile `NAME` (see 'b2bx conn ls')")
	fs.StringVar(&f.url, "url", "", "Partner API base `URL` (with --connection; key from $"+envAPIKey+")")
	fs.StringVar(&f.connection, "connection", "", "connection `ID` (with --url)")
	fs.DurationVar(&f.timeout, "timeout", 0, "give up on the whole command after this `DURATION` (e.g. 30s, 5m; default: no overall limit, Ctrl-C stops)")
	return f
}

// deadlineError is the cause of an API command's context running out of
// --timeout; it matches context.DeadlineExceeded.
type deadlineError struct{ d time.Duration }

func (e *deadlineError) Error() string {
	return fmt.Sprintf("the overall --timeout of %s ran out: raise it (e.g. --timeout %s) or check the network", e.d, 2*e.d)
}

func (e *deadlineError) Is(target error) bool { return target == context.DeadlineExceeded }

// withTimeout bounds everything an API command does after flag parsing —
// keyring, requests, retries, downloads — by --timeout. A retry that
// would start after the deadline fails at once (apiclient.ErrRetryTooLong).
func (f *connFlags) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if f.timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, f.timeout, &deadlineError{d: f.timeout})
}

// connTarget is a resolved connection: where to talk to and with which keys.
type connTarget = session.Target

var errNoConnection = errors.New("no connection chosen: pass -c NAME (a profile from 'b2bx conn ls') or --url URL --connection ID with $" + envAPIKey + "=<key-id>:<secret>")

// resolve turns the flags into a connTarget through session, the same
// code the app uses. Errors are usage errors.
func (f *connFlags) resolve(ctx context.Context, e *env) (connTarget, error) {
	switch {
	case f.timeout < 0:
		return connTarget{}, errors.New("--timeout must be a positive duration such as 30s or 5m")
	case f.profile != "" && (f.url != "" || f.connection != ""):
		return connTarget{}, errors.New("-c cannot be combined with --url/--connection")
	case f.profile != "":
		return resolveProfile(ctx, e, f.profile)
	case f.url == "" && f.connection == "":
		return connTarget{}, errNoConnection
	case f.url == "" || f.connection == "":
		return connTarget{}, errors.New("--url and --connection go together")
	}
	return session.ResolveURL(sessionEnv(e), f.url, f.connection)
}
