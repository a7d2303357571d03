package main

import (
	"context"
	"fmt"
)

// resolveProfile loads a named connection profile and its secrets.
// Replaced by the profiles/keyring implementation (issue 4).
func resolveProfile(_ context.Context, _ *env, name string) (connTarget, error) {
	return connTarget{}, fmt.Errorf("profile %q: connection profiles are not available in this build; use --url and --connection", name)
}
