// Package session turns a choice of connection into everything an API
// command needs, for both faces of b2bx: the CLI (cmd/b2bx) and the
// terminal app (tui). Both call the same code, so a connection resolves,
// validates and fails the same way in either.
//
// A connection is chosen either by profile name (ResolveProfile: the
// profile file plus the secret store, with $B2BX_API_KEY as fallback) or
// explicitly (ResolveURL: a base URL and connection ID, the key from
// $B2BX_API_KEY). Either way the base URL must be https, or plain http on a
// loopback host, and carry no user name or password; the check runs before
// any request, and no error quotes a secret.
//
// Open builds the API client and opens the local spool for a Target;
// StoreRoot is the spool precedence (profile store_dir, $B2BX_DATA_DIR,
// XDG data directory).
//
// AddProfile and SaveProfile store a profile and its secrets as one
// transaction: the secrets first, rolled back when the profile file cannot
// be written. ConnStates lists every profile with the state of each key's
// secret (keyring, env, missing, locked, ...).
package session
