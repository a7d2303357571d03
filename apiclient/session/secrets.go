package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// Stage is the step of SaveProfile that failed.
type Stage string

// The steps of SaveProfile, in order.
const (
	StageValidate Stage = "validate" // the profile or a secret is invalid, or the name is taken; nothing changed
	StageSecrets  Stage = "secrets"  // the secret store failed; no secret and no profile changed
	StageFile     Stage = "file"     // the profile file could not be written; the secrets were rolled back
)

// StageError is a SaveProfile failure and the step it happened in. Its
// text is the underlying error's.
type StageError struct {
	Stage Stage
	Err   error
}

func (e *StageError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *StageError) Unwrap() error { return e.Err }

// ErrProfileExists matches SaveProfile refusing to replace a profile
// without SaveOptions.Replace.
var ErrProfileExists = errors.New("a profile of that name already exists: replace it or choose another name")

// SaveOptions tune SaveProfile.
type SaveOptions struct {
	// Replace allows replacing an existing profile of the same name; the
	// keyring secrets of keys it no longer uses are deleted.
	Replace bool
}

// SaveResult says what SaveProfile did.
type SaveResult struct {
	Replaced bool     // an existing profile was replaced
	Stored   []string // key IDs whose secret was stored, inbox key first
	// Leftovers are secrets of the replaced profile's unused keys that
	// could not be deleted; the new profile is saved and works.
	Leftovers []error
}

// CheckNew validates p for saving into file (the same checks SaveProfile
// makes first), so a form or the CLI can refuse before asking for
// secrets. existing reports whether a profile of that name is replaced.
func CheckNew(file *credentials.File, p credentials.Profile, replace bool) (existing bool, err error) {
	if err := p.Validate(); err != nil {
		return false, err
	}
	_, existing = file.Get(p.Name)
	if existing && !replace {
		return true, fmt.Errorf("profile %q in %s: %w", p.Name, file.Path, ErrProfileExists)
	}
	return existing, nil
}

// AddProfile adds the new profile p to file and stores its secrets (key
// ID → secret; nil or empty stores none) as one transaction: see
// SaveProfile. An existing profile of that name is refused.
func AddProfile(ctx context.Context, file *credentials.File, p credentials.Profile, secrets map[string]secret.Value, store credentials.SecretStore) error {
	_, err := SaveProfile(ctx, file, p, secrets, store, SaveOptions{})
	return err
}

// SaveProfile validates p and each secret, stores the secrets (all or
// none: what was there before is restored on failure), then writes the
// profile file; when that fails the secrets are rolled back. store may be
// nil only when secrets is empty; then the old secrets of a replaced
// profile stay. Errors are *StageError.
func SaveProfile(ctx context.Context, file *credentials.File, p credentials.Profile, secrets map[string]secret.Value, store credentials.SecretStore, opts SaveOptions) (SaveResult, error) {
	var res SaveResult
	fail := func(s Stage, err error) (SaveResult, error) { return res, &StageError{Stage: s, Err: err} }
	existing, err := CheckNew(file, p, opts.Replace)
	if err != nil {
		return fail(StageValidate, err)
	}
	old, _ := file.Get(p.Name)
	ordered, err := orderSecrets(p, secrets)
	if err != nil {
		return fail(StageValidate, err)
	}
	if len(ordered) > 0 && store == nil {
		return fail(StageValidate, errors.New("no secret store to keep the secrets in"))
	}
	if err := file.Put(p); err != nil {
		return fail(StageValidate, err)
	}
	var tx *Tx
	if len(ordered) > 0 {
		if tx, err = StoreSecrets(ctx, store, p.Name, ordered); err != nil {
			file.Remove(p.Name)
			if existing {
				_ = file.Put(old)
			}
			return fail(StageSecrets, err)
		}
	}
	if err := file.Save(); err != nil {
		if tx != nil {
			if uerr := tx.Undo(ctx); uerr != nil {
				err = fmt.Errorf("%w; %w", err, uerr)
			}
		}
		return fail(StageFile, err)
	}
	for _, s := range ordered {
		res.Stored = append(res.Stored, s.KeyID)
	}
	res.Replaced = existing
	if existing && store != nil {
		res.Leftovers = dropUnusedSecrets(ctx, store, old, p)
	}
	return res, nil
}

// KeySecret is a key ID and the secret to store for it.
type KeySecret struct {
	KeyID  string
	Secret secret.Value
}

// orderSecrets puts the secrets in the order of p's keys (inbox first) and
// refuses a secret for a key p does not use or an unusable secret.
func orderSecrets(p credentials.Profile, secrets map[string]secret.Value) ([]KeySecret, error) {
	for id := range secrets {
		if !p.HasKey(id) {
			return nil, fmt.Errorf("a secret was given for key %q, which profile %s does not use (inbox %s, mailbox %s)", id, p.Name, p.InboxKeyID, p.MailboxKeyID)
		}
	}
	var out []KeySecret
	for _, k := range p.Keys() {
		v, ok := secrets[k.KeyID]
		if !ok {
			continue
		}
		if _, err := CleanSecret(v.Reveal()); err != nil {
			return nil, fmt.Errorf("secret of key %s: %w", k.KeyID, err)
		}
		out = append(out, KeySecret{KeyID: k.KeyID, Secret: v})
	}
	return out, nil
}

// CleanSecret trims surrounding whitespace (a pasted line ending) and
// refuses empty secrets or ones with spaces or control characters inside,
// which are always paste mistakes and cannot go into a Bearer header. The
// error never quotes the input.
func CleanSecret(raw string) (secret.Value, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return secret.Value{}, errors.New("it is empty")
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || !unicode.IsPrint(r) {
			return secret.Value{}, fmt.Errorf("it contains spaces or control characters (%d bytes read): paste only the secret", len(s))
		}
	}
	return secret.New(s), nil
}

// dropUnusedSecrets deletes the store entries of keys the replaced
// profile used and the new one does not. Failures are returned, not
// fatal: the new profile is saved and works.
func dropUnusedSecrets(ctx context.Context, store credentials.SecretStore, old, cur credentials.Profile) []error {
	var left []error
	for _, k := range old.Keys() {
		if cur.HasKey(k.KeyID) {
			continue
		}
		if err := store.Delete(ctx, old.Name, k.KeyID); err != nil && !errors.Is(err, credentials.ErrNotFound) {
			left = append(left, fmt.Errorf("the old secret of key %s stays in the keyring: %w", k.KeyID, err))
		}
	}
	return left
}
