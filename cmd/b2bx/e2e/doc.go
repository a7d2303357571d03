// Package e2e holds the end-to-end tests of the built b2bx binary: they
// build cmd/b2bx once, start `b2bx sim --json` as a real subprocess and
// drive the real binary through exec and inside tmux (no-echo secret
// prompt, the upload replay/new prompt, fetch progress on a terminal,
// terminal-escape safety of parse output), and run .ci/scripts/tour.sh.
//
// The tests carry the build tag e2e so `go test ./...` stays fast:
//
//	make e2e    # go test -tags e2e -count=1 ./cmd/b2bx/e2e/
//
// Environment: B2BX_E2E_BIN uses a prebuilt binary instead of building
// one; B2BX_E2E_REQUIRE=1 (CI) turns a missing tmux into a failure instead
// of a skip; B2BX_KEYRING_IT=1 does the same for the gnome-keyring and
// dbus tools the secret-prompt test needs.
package e2e
