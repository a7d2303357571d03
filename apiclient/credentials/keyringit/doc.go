// Package keyringit holds the integration tests of the credentials package
// against a real Secret Service (gnome-keyring on a private D-Bus session,
// see .ci/keyring-session and DEVELOPERS.md). It has no code of its own: it
// is a separate package so that keyring.MockInit in the unit tests, which
// replaces go-keyring's provider for the whole process, cannot reach it.
package keyringit
