package session

import (
	"context"
	"errors"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
)

// SecretState is the one-word status of a key's secret.
type SecretState string

// The states of a key's secret.
const (
	StateKeyring   SecretState = "keyring"    // in the secret store
	StateEnv       SecretState = "env"        // from $B2BX_API_KEY
	StateMissing   SecretState = "missing"    // nowhere
	StateNoKeyring SecretState = "no-keyring" // no OS keyring reachable, and not in the environment
	StateLocked    SecretState = "locked"     // the keyring is locked
	StateTimeout   SecretState = "timeout"    // the keyring did not answer
	StateError     SecretState = "error"      // another keyring failure
)

// KeyState is one distinct key of a profile and where its secret is. It
// never carries the secret.
type KeyState struct {
	KeyID string
	Uses  []credentials.Use
	State SecretState
	// Err says why the secret is not available (nil for StateKeyring and
	// StateEnv). Its text is ours and the key ID; sanitise it before a
	// terminal, as the profile file is hand-editable.
	Err error
}

// ConnState is one profile with the state of each key's secret.
type ConnState struct {
	Profile credentials.Profile
	Keys    []KeyState // inbox key first; one entry when one key serves both
}

// ConnStates lists every profile of file, sorted by name, with the state
// of each key's secret: the store first, then getenv's $B2BX_API_KEY.
// It never fails as a whole; wrap store in credentials.Sticky so an
// unreachable keyring costs one timeout, not one per key.
func ConnStates(ctx context.Context, store credentials.SecretStore, file *credentials.File, getenv func(string) string) []ConnState {
	out := []ConnState{}
	for _, n := range file.Names() {
		p, _ := file.Get(n)
		cs := ConnState{Profile: p}
		for _, k := range credentials.Inspect(ctx, store, p, getenv) {
			ks := KeyState{KeyID: k.KeyID, Uses: k.Uses, State: StateOf(k)}
			if k.Source == "" {
				ks.Err = k.StoreErr
			}
			cs.Keys = append(cs.Keys, ks)
		}
		out = append(out, cs)
	}
	return out
}

// StateOf is the state of one resolved or inspected key.
func StateOf(k credentials.Key) SecretState {
	switch {
	case k.Source != "":
		return SecretState(k.Source)
	case errors.Is(k.StoreErr, credentials.ErrNotFound):
		return StateMissing
	case errors.Is(k.StoreErr, credentials.ErrNoService):
		return StateNoKeyring
	case errors.Is(k.StoreErr, credentials.ErrLocked):
		return StateLocked
	case errors.Is(k.StoreErr, credentials.ErrTimeout):
		return StateTimeout
	}
	return StateError
}

// Problems summarises states for a listing: how many keys have no secret
// at all, and the first store failure other than a missing secret (one
// hint instead of one per key).
func Problems(states []ConnState) (missing int, problem error) {
	for _, cs := range states {
		for _, k := range cs.Keys {
			switch {
			case k.Err == nil:
			case k.State == StateMissing:
				missing++
			case problem == nil:
				problem = k.Err
			}
		}
	}
	return missing, problem
}
