package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "conn add", summary: "add a connection profile and store its secret(s) in the OS keyring", run: runConnAdd})
	register(&command{name: "conn rm", summary: "remove a connection profile and its keyring secrets", run: runConnRm})
	register(&command{name: "conn set-secret", summary: "store or rotate a profile's API key secret in the OS keyring", run: runConnSetSecret})
}

// connFail prints a sanitised error for a conn subcommand, and then each
// advice line (our own text) on a line of its own.
func connFail(e *env, name string, code int, err error, advice ...string) int {
	fail(e, name, false, code, err)
	for _, a := range advice {
		fmt.Fprintln(e.stderr, "  "+a)
	}
	return code
}

// oneName takes the single NAME argument of a conn subcommand.
func oneName(pos []string) (string, error) {
	switch len(pos) {
	case 0:
		return "", errors.New("missing profile NAME")
	case 1:
		return pos[0], credentials.ValidateName(pos[0])
	}
	return "", fmt.Errorf("unexpected argument %q: give one profile NAME", termsafe.String(pos[1]))
}

type connAddFlags struct {
	url, connection, partner, storeDir string
	keyID, inboxKeyID, mailboxKeyID    string
	secretStdin, noSecret, force       bool
	rate                               int
}

func runConnAdd(ctx context.Context, e *env, args []string) int {
	const name = "conn add"
	fs := newFlagSet(e, name, "NAME")
	var f connAddFlags
	fs.StringVar(&f.url, "url", "", "Partner API base `URL` (https; http only on loopback)")
	fs.StringVar(&f.connection, "connection", "", "connection `ID`")
	fs.StringVar(&f.keyID, "key-id", "", "API key `ID` for inbox and mailbox")
	fs.StringVar(&f.inboxKeyID, "inbox-key-id", "", "API key `ID` for uploads (overrides --key-id)")
	fs.StringVar(&f.mailboxKeyID, "mailbox-key-id", "", "API key `ID` for the mailbox (overrides --key-id)")
	fs.StringVar(&f.partner, "partner", "", "optional partner/tenant `label`")
	fs.StringVar(&f.storeDir, "store-dir", "", "optional spool `directory` for this profile")
	fs.IntVar(&f.rate, "rate", 0, "client-side limit in `requests/s` the platform agreed for this partner (default: the contract's 100)")
	fs.BoolVar(&f.secretStdin, "secret-stdin", false, "read the secrets from stdin, one line per key, inbox key first (default: prompt without echo)")
	fs.BoolVar(&f.noSecret, "no-secret", false, "store no secret now (use 'conn set-secret' later or $"+envAPIKey+")")
	fs.BoolVar(&f.force, "force", false, "replace an existing profile of that name")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	p, err := f.profile(pos)
	if err != nil {
		return connFail(e, name, exitUsage, err)
	}
	file, err := loadProfiles(e)
	if err != nil {
		return connFail(e, name, exitUsage, err)
	}
	// The same checks session.SaveProfile makes, before asking for secrets.
	if _, err := session.CheckNew(file, p, f.force); err != nil {
		if errors.Is(err, session.ErrProfileExists) {
			err = fmt.Errorf("profile %q already exists in %s: pass --force to replace it, or rotate its secret with 'b2bx conn set-secret %s'", p.Name, file.Path, p.Name)
		}
		return connFail(e, name, exitUsage, err)
	}
	var store credentials.SecretStore
	var secrets map[string]secret.Value
	if f.noSecret {
		if f.force {
			// Only to delete the secrets of keys a replaced profile no
			// longer uses; without a store they stay.
			store, _ = secretStoreFor(e)
		}
	} else {
		if store, err = secretStoreFor(e); err != nil {
			return connFail(e, name, exitUsage, err)
		}
		list, err := readSecrets(e, f.secretStdin, p)
		if err != nil {
			return connFail(e, name, exitUsage, err)
		}
		secrets = map[string]secret.Value{}
		for _, s := range list {
			secrets[s.KeyID] = s.Secret
		}
	}
	res, err := session.SaveProfile(ctx, file, p, secrets, store, session.SaveOptions{Replace: f.force})
	if err != nil {
		return connAddFail(e, err)
	}
	for _, l := range res.Leftovers {
		fmt.Fprintf(e.stderr, "b2bx conn add: warning: %s\n", termsafe.String(l.Error()))
	}
	exists := res.Replaced
	verb := "added"
	if exists {
		verb = "replaced"
	}
	fmt.Fprintf(e.stdout, "%s profile %s in %s\n", verb, p.Name, termsafe.String(file.Path))
	for _, k := range p.Keys() {
		where := "no secret stored (use 'b2bx conn set-secret " + p.Name + "' or $" + envAPIKey + ")"
		if !f.noSecret {
			where = "secret stored in the OS keyring as " + credentials.Service + " / " + credentials.Account(p.Name, k.KeyID)
		}
		fmt.Fprintf(e.stdout, "  key %s (%s): %s\n", termsafe.String(k.KeyID), useList(k.Uses), termsafe.String(where))
	}
	fmt.Fprintf(e.stdout, "check it with: b2bx conn test %s\n", p.Name)
	return exitOK
}

// profile builds and validates the profile from the flags.
func (f connAddFlags) profile(pos []string) (credentials.Profile, error) {
	n, err := oneName(pos)
	if err != nil {
		return credentials.Profile{}, err
	}
	if f.secretStdin && f.noSecret {
		return credentials.Profile{}, errors.New("--secret-stdin and --no-secret exclude each other")
	}
	p := credentials.Profile{Name: n, URL: f.url, ConnectionID: f.connection, Partner: f.partner,
		InboxKeyID: firstNonEmpty(f.inboxKeyID, f.keyID), MailboxKeyID: firstNonEmpty(f.mailboxKeyID, f.keyID), Rate: f.rate}
	if p.InboxKeyID == "" && p.MailboxKeyID == "" {
		return p, errors.New("no API key: pass --key-id ID (one key for inbox and mailbox) or --inbox-key-id and --mailbox-key-id")
	}
	if f.storeDir != "" {
		abs, err := filepath.Abs(f.storeDir)
		if err != nil {
			return p, fmt.Errorf("--store-dir: %w", err)
		}
		p.StoreDir = abs
	}
	return p, p.Validate()
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// connAddFail reports a failed session.SaveProfile with the exit code and
// advice of the step that failed.
func connAddFail(e *env, err error) int {
	const name = "conn add"
	var se *session.StageError
	errors.As(err, &se)
	switch {
	case se == nil || se.Stage == session.StageValidate:
		return connFail(e, name, exitUsage, err)
	case errors.Is(err, session.ErrRollbackFailed):
		return connFail(e, name, exitStorage, err, "the profile was not saved, but the keyring may have changed: see above")
	case se.Stage == session.StageSecrets:
		return connFail(e, name, storeExit(err), err, "nothing was saved; to add the profile without a secret pass --no-secret")
	}
	return connFail(e, name, exitStorage, err)
}

// keySecret is a key and the secret to store for it.
type keySecret = session.KeySecret

// readSecrets reads one secret per distinct key of p, inbox key first.
func readSecrets(e *env, useStdin bool, p credentials.Profile, only ...string) ([]keySecret, error) {
	in := newSecretInput(e, useStdin)
	var out []keySecret
	for _, k := range p.Keys() {
		if len(only) > 0 && k.KeyID != only[0] {
			continue
		}
		v, err := in.read(p.Name, k)
		if err != nil {
			return nil, err
		}
		out = append(out, keySecret{KeyID: k.KeyID, Secret: v})
	}
	return out, nil
}

func runConnRm(ctx context.Context, e *env, args []string) int {
	const name = "conn rm"
	fs := newFlagSet(e, name, "NAME")
	keep := fs.Bool("keep-secrets", false, "remove only the profile; leave its secrets in the keyring")
	file, p, code, ok := namedProfile(e, name, fs, args)
	if !ok {
		return code
	}
	var removed []string
	if !*keep {
		store, err := secretStoreFor(e)
		if err != nil {
			return connFail(e, name, exitUsage, err)
		}
		// Secrets first: a failure leaves the profile in place, so the
		// command can simply be repeated; no orphaned secret remains.
		// The API keys, then the webhook secret 'b2bx event set-secret'
		// may have stored for the profile.
		ids := []string{}
		for _, k := range p.Keys() {
			ids = append(ids, k.KeyID)
		}
		if !p.HasKey(credentials.WebhookKeyID) {
			ids = append(ids, credentials.WebhookKeyID)
		}
		for _, id := range ids {
			err := store.Delete(ctx, p.Name, id)
			if err != nil && !errors.Is(err, credentials.ErrNotFound) {
				return connFail(e, name, storeExit(err), err, "the profile is kept; fix the keyring and run the command again, or pass --keep-secrets")
			}
			if err == nil {
				removed = append(removed, credentials.Account(p.Name, id))
			}
		}
	}
	file.Remove(p.Name)
	if err := file.Save(); err != nil {
		return connFail(e, name, exitStorage, err)
	}
	fmt.Fprintf(e.stdout, "removed profile %s from %s\n", p.Name, termsafe.String(file.Path))
	for _, a := range removed {
		fmt.Fprintf(e.stdout, "  deleted keyring secret %s / %s\n", credentials.Service, termsafe.String(a))
	}
	return exitOK
}

func runConnSetSecret(ctx context.Context, e *env, args []string) int {
	const name = "conn set-secret"
	fs := newFlagSet(e, name, "NAME")
	keyID := fs.String("key-id", "", "set only this key's secret (default: every key of the profile)")
	useStdin := fs.Bool("secret-stdin", false, "read the secrets from stdin, one line per key, inbox key first (default: prompt without echo)")
	_, p, code, ok := namedProfile(e, name, fs, args)
	if !ok {
		return code
	}
	var only []string
	if *keyID != "" {
		if !p.HasKey(*keyID) {
			return connFail(e, name, exitUsage, fmt.Errorf("profile %s uses key %s for the inbox and %s for the mailbox, not %s; to switch to a new key ID re-add the profile with 'b2bx conn add %s --force ...'",
				p.Name, p.InboxKeyID, p.MailboxKeyID, *keyID, p.Name))
		}
		only = []string{*keyID}
	}
	store, err := secretStoreFor(e)
	if err != nil {
		return connFail(e, name, exitUsage, err)
	}
	secrets, err := readSecrets(e, *useStdin, p, only...)
	if err != nil {
		return connFail(e, name, exitUsage, err)
	}
	if _, err := session.StoreSecrets(ctx, store, p.Name, secrets); err != nil {
		if errors.Is(err, session.ErrRollbackFailed) {
			return connFail(e, name, exitStorage, err)
		}
		return connFail(e, name, storeExit(err), err, "no secret was changed")
	}
	for _, s := range secrets {
		fmt.Fprintf(e.stdout, "stored the secret of key %s of profile %s in the OS keyring (%s / %s)\n",
			termsafe.String(s.KeyID), p.Name, credentials.Service, termsafe.String(credentials.Account(p.Name, s.KeyID)))
	}
	return exitOK
}
