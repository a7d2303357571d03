package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "conn test", summary: "check a profile: secrets present, one mailbox page (limit 1) readable", run: runConnTest})
}

func runConnTest(ctx context.Context, e *env, args []string) int {
	const name = "conn test"
	fs := newFlagSet(e, name, "NAME")
	timeout := fs.Duration("timeout", 30*time.Second, "give up on the API after this long (no retries)")
	_, p, code, ok := namedProfile(e, name, fs, args)
	if !ok {
		return code
	}
	store, err := secretStoreFor(e)
	if err != nil {
		return connFail(e, name, exitUsage, err)
	}
	label := ""
	if p.Partner != "" {
		label = ", partner " + termsafe.String(p.Partner)
	}
	fmt.Fprintf(e.stdout, "profile %s: %s, connection %s%s\n", p.Name, termsafe.String(p.URL), termsafe.String(p.ConnectionID), label)
	r, err := credentials.Resolve(ctx, store, p, e.getenv)
	if err != nil {
		return connFail(e, name, storeExit(err), err)
	}
	for _, k := range []struct {
		use string
		key credentials.Key
	}{{"inbox", r.Inbox}, {"mailbox", r.Mailbox}} {
		fmt.Fprintf(e.stdout, "%-7s key %s: %s\n", k.use, termsafe.String(k.key.KeyID), sourceText(k.key))
	}
	if r.Inbox.KeyID != r.Mailbox.KeyID {
		fmt.Fprintln(e.stdout, "  (the inbox key is not exercised: the API has no read-only inbox call; an upload is its test)")
	}
	return checkMailbox(ctx, e, p, r, *timeout)
}

// sourceText says where a secret came from, and why the keyring was
// skipped when it was.
func sourceText(k credentials.Key) string {
	switch k.Source {
	case credentials.SourceKeyring:
		return "secret found in the OS keyring"
	case credentials.SourceEnv:
		why := "no keyring entry"
		switch {
		case errors.Is(k.StoreErr, credentials.ErrNoService):
			why = "no OS keyring available"
		case errors.Is(k.StoreErr, credentials.ErrLocked):
			why = "the keyring is locked"
		case errors.Is(k.StoreErr, credentials.ErrTimeout):
			why = "the keyring did not answer"
		case k.StoreErr != nil && !errors.Is(k.StoreErr, credentials.ErrNotFound):
			why = "the keyring failed"
		}
		return "secret from $" + envAPIKey + " (" + why + ")"
	}
	return "no secret"
}

// checkMailbox reads one mailbox page (limit 1) without retries and
// explains the outcome.
func checkMailbox(ctx context.Context, e *env, p credentials.Profile, r credentials.Resolved, timeout time.Duration) int {
	const name = "conn test"
	t := session.Target{Name: p.Name, BaseURL: p.URL, ConnectionID: p.ConnectionID, Partner: p.Partner,
		Inbox: r.Inbox.Credential, Mailbox: r.Mailbox.Credential, StoreDir: p.StoreDir}
	c, err := session.NewClient(t, session.Options{Logger: cmdLogger(e), Retry: apiclient.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		return connFail(e, name, exitUsage, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	page, err := c.ListMailbox(ctx, 1, "")
	if err == nil {
		more := "nothing more due"
		if page.HasMore {
			more = "more are due"
		}
		fmt.Fprintf(e.stdout, "mailbox: OK, GET /mailbox?limit=1 answered with %d entr%s, %s [correlation %s]\n",
			len(page.Entries), map[bool]string{true: "y", false: "ies"}[len(page.Entries) == 1], more, termsafe.String(page.CorrelationID))
		return exitOK
	}
	fmt.Fprintf(e.stdout, "mailbox: FAILED: %s\n", termsafe.String(err.Error()))
	var ae *apiclient.APIError
	switch {
	case errors.As(err, &ae) && ae.HTTPStatus == 404:
		explain404(e, p)
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(e.stdout, "no answer within %s: check the URL, your network or VPN, or raise --timeout\n", timeout)
	case errors.As(err, new(*apiclient.NetworkError)):
		fmt.Fprintln(e.stdout, "no HTTP answer: check the URL (scheme, host, port), your network, VPN or proxy")
	}
	return exitAPI
}

// explain404 spells out what a 404 from the mailbox can mean: the API
// answers every authentication and authorization failure with 404, so the
// cause cannot be read from the answer.
func explain404(e *env, p credentials.Profile) {
	w := e.stdout
	fmt.Fprintln(w, "The Partner API answers 404 to every authentication or authorization failure, so check:")
	fmt.Fprintf(w, "  1. key binding: key %s must be a workspace API key of the tenant that owns connection %s\n",
		termsafe.String(p.MailboxKeyID), termsafe.String(p.ConnectionID))
	fmt.Fprintf(w, "  2. scope: key %s needs %s (fetching also needs %s, %s and %s)\n", termsafe.String(p.MailboxKeyID),
		apiclient.ScopeMailboxList, apiclient.ScopeMailboxClaim, apiclient.ScopeMailboxPayloadRead, apiclient.ScopeMailboxAcknowledge)
	fmt.Fprintf(w, "  3. connection ID: is %q the right connection for this partner and key?\n", termsafe.String(p.ConnectionID))
	fmt.Fprintf(w, "  4. secret: a wrong or revoked secret looks the same; store the current one with 'b2bx conn set-secret %s --key-id %s'\n",
		p.Name, termsafe.String(p.MailboxKeyID))
}
