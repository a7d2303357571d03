package session

import (
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// Options configure Open and NewClient. The zero value is the contract's
// defaults with logs discarded.
type Options struct {
	// Logger nil → logs are discarded.
	Logger *slog.Logger
	// Retry is the client's retry policy (zero → the contract schedule).
	Retry apiclient.RetryPolicy
	// HTTPClient nil → apiclient's process-wide transport, whose share
	// Conn.Close releases; a caller's client is left alone.
	HTTPClient *http.Client
	// Limiter nil → the target's rate (Target.Rate, from the profile),
	// else apiclient's default; share one between the connections of one
	// partner.
	Limiter *rate.Limiter
	// Getenv reads $B2BX_DATA_DIR and the XDG variables for the spool
	// root; nil → os.Getenv.
	Getenv func(string) string
}

// Conn is an open connection: the resolved target, its API client, its
// spool and logger.
type Conn struct {
	Target Target
	Client *apiclient.Client
	Spool  *spool.Store
	Log    *slog.Logger
}

// Open checks t (the same rules as ResolveURL) and builds its API client
// and spool. Nothing goes over the network.
func Open(t Target, opts Options) (*Conn, error) {
	c := &Conn{Target: t, Log: opts.Logger}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
		opts.Logger = c.Log
	}
	cl, err := NewClient(t, opts)
	if err != nil {
		return nil, err
	}
	c.Client = cl
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if c.Spool, err = OpenSpool(t, getenv); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close closes the API client (apiclient.Client.Close: its share of the
// shared transport; later calls fail with apiclient.ErrClosed). The spool
// needs no closing. It is safe to call more than once.
func (c *Conn) Close() {
	if c != nil && c.Client != nil {
		c.Client.Close()
	}
}

// NewClient checks t and builds its API client only (no spool), for
// commands that never store anything, such as listing the mailbox.
func NewClient(t Target, opts Options) (*apiclient.Client, error) {
	if err := checkTarget(t); err != nil {
		return nil, err
	}
	return apiclient.New(apiclient.Config{
		BaseURL:      t.BaseURL,
		ConnectionID: t.ConnectionID,
		Credentials:  apiclient.StaticCredentials{Inbox: t.Inbox, Mailbox: t.Mailbox},
		HTTPClient:   opts.HTTPClient,
		Logger:       opts.Logger,
		Limiter:      limiterFor(t, opts.Limiter),
		Retry:        opts.Retry,
	})
}

// StoreRoot is the spool root of t: the profile's store directory, else
// $B2BX_DATA_DIR, else $XDG_DATA_HOME/b2bx, else ~/.local/share/b2bx.
func StoreRoot(t Target, getenv func(string) string) (string, error) {
	if t.StoreDir != "" {
		return t.StoreDir, nil
	}
	return spool.DefaultRoot(getenv)
}

// OpenSpool opens (creating with 0700) the spool of t at StoreRoot.
func OpenSpool(t Target, getenv func(string) string) (*spool.Store, error) {
	root, err := StoreRoot(t, getenv)
	if err != nil {
		return nil, err
	}
	return spool.Open(root)
}

// limiters are the process's limiters, one per partner and rate: the
// contract's limit is per partner, and one partner may own several
// connections (the app's tabs and its start screen talk to them at once).
var limiters sync.Map // partnerKey → *rate.Limiter

// limiterFor is l when given, else the process's limiter of t's partner
// at t's rate (the profile's, or the contract's default). Targets of one
// API origin with the same partner label share it; a target without a
// label is its own partner, as far as b2bx can tell.
func limiterFor(t Target, l *rate.Limiter) *rate.Limiter {
	if l != nil {
		return l
	}
	n := t.Rate
	if n <= 0 {
		n = apiclient.DefaultRate
	}
	partner := "label:" + t.Partner
	if t.Partner == "" {
		partner = "connection:" + t.ConnectionID
	}
	key := strings.Join([]string{strings.TrimRight(t.BaseURL, "/"), partner, strconv.Itoa(n)}, "\x00")
	if v, ok := limiters.Load(key); ok {
		return v.(*rate.Limiter)
	}
	v, _ := limiters.LoadOrStore(key, apiclient.NewLimiterAt(n))
	return v.(*rate.Limiter)
}
