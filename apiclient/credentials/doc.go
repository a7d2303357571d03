// Package credentials manages connection profiles and their API key
// secrets.
//
// Profiles live in a human-editable TOML file (see ConfigPath): base URL,
// connection ID, an optional partner label, the key ID for the inbox and the
// key ID for the mailbox, and an optional spool directory. The file never
// holds a secret; Load rejects one (a key named like a secret, or a
// connection or partner value shaped like one), refuses a path that is not
// a regular file without blocking on it, and warns (File.Warnings) when
// other users can read or write the file.
//
// Secrets live in a SecretStore. KeyringStore is the OS keyring through
// github.com/zalando/go-keyring (service "b2bx", account
// "<profile>/<key id>"), with a timeout on every call and errors that say
// what to do (ErrNoService, ErrLocked, ErrNotFound, ErrTooLarge,
// ErrTimeout). Its calls are serialised; a call that timed out may still
// complete (an unlock prompt answered late), so until it returns further
// calls fail at once and Settle waits for it: a rollback never runs before
// a late write. Resolve finds each key's secret in the store first, then in
// $B2BX_API_KEY, and says where it came from.
package credentials
