package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// ErrRollbackFailed matches a StoreSecrets or Tx.Undo error after which
// the store may not be as it was: the error names the keys to check.
var ErrRollbackFailed = errors.New("rolling back the keyring failed")

// Tx is a completed StoreSecrets; Undo puts back what was there before.
type Tx struct {
	store   credentials.SecretStore
	profile string
	touched []prior
}

// prior is what a key held before the transaction wrote it.
type prior struct {
	keyID string
	had   bool
	v     secret.Value
}

// StoreSecrets writes the secrets of profile, all or none: it reads what
// each key holds first and, when a call fails, restores every key it
// wrote — including the failed one, because a keyring write that timed
// out may still land. Before restoring it waits for such a pending call
// (credentials.Settler), so the late write cannot overtake the undo.
// When the rollback itself fails, the error also matches
// ErrRollbackFailed and says which secrets to check.
func StoreSecrets(ctx context.Context, store credentials.SecretStore, profile string, secrets []KeySecret) (*Tx, error) {
	tx := &Tx{store: store, profile: profile}
	for _, s := range secrets {
		v, gerr := store.Get(ctx, profile, s.KeyID)
		if gerr != nil && !errors.Is(gerr, credentials.ErrNotFound) {
			return nil, tx.abort(ctx, gerr)
		}
		// Recorded before Set: a Set that fails may still have landed.
		tx.touched = append(tx.touched, prior{keyID: s.KeyID, had: gerr == nil, v: v})
		if err := store.Set(ctx, profile, s.KeyID, s.Secret); err != nil {
			return nil, tx.abort(ctx, err)
		}
	}
	return tx, nil
}

// abort undoes after a failed call and returns err, joined with the
// rollback failure if there is one.
func (tx *Tx) abort(ctx context.Context, err error) error {
	if uerr := tx.Undo(ctx); uerr != nil {
		return fmt.Errorf("%w; %w", err, uerr)
	}
	return err
}

// Undo restores every key the transaction wrote: the previous secret, or
// none. It runs even when ctx was cancelled (each store call has its own
// timeout), first waiting for a pending keyring call to finish. The error
// matches ErrRollbackFailed and names the secrets that may have changed.
func (tx *Tx) Undo(ctx context.Context) error {
	if tx == nil || len(tx.touched) == 0 {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	if s, ok := tx.store.(credentials.Settler); ok {
		if err := s.Settle(ctx); err != nil {
			return tx.rollbackErr(tx.touched, err)
		}
	}
	var failed []prior
	var first error
	for i := len(tx.touched) - 1; i >= 0; i-- {
		p := tx.touched[i]
		var err error
		if p.had {
			err = tx.store.Set(ctx, tx.profile, p.keyID, p.v)
		} else if err = tx.store.Delete(ctx, tx.profile, p.keyID); errors.Is(err, credentials.ErrNotFound) {
			err = nil
		}
		if err != nil {
			failed = append(failed, p)
			if first == nil {
				first = err
			}
		}
	}
	if len(failed) > 0 {
		return tx.rollbackErr(failed, first)
	}
	return nil
}

func (tx *Tx) rollbackErr(keys []prior, cause error) error {
	var accounts string
	for i, p := range keys {
		if i > 0 {
			accounts += ", "
		}
		accounts += credentials.Account(tx.profile, p.keyID)
	}
	// The store error's hint was already given with the first failure.
	why := cause.Error()
	var se *credentials.StoreError
	if errors.As(cause, &se) {
		why = se.Kind.Error()
		if se.Err != nil && !errors.Is(se.Err, se.Kind) {
			why += ": " + se.Err.Error()
		}
	}
	return fmt.Errorf("%w (%s): the keyring entries %s may hold the new secret or none; check them with 'b2bx conn ls' and store the right one with 'b2bx conn set-secret %s'",
		ErrRollbackFailed, why, accounts, tx.profile)
}
