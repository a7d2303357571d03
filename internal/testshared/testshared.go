// Package testshared finds the material some tests read from outside the
// repository, in ../shared next to the checkout: the corpus of real
// interchanges and the EDIFACT directory sources. CI clones only the
// repository, so a test that needs them skips without them, unless
// RequireEnv is set to 1: then a missing directory fails the test, so
// that a CI run that should have the material cannot pass by skipping.
package testshared

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// RequireEnv is the environment switch: "1" turns a missing shared
// directory from a skip into a failure.
const RequireEnv = "B2BX_REQUIRE_SHARED"

// Dir returns the path of ../shared/elem... as seen from the repository
// root, which it finds from the working directory (a test runs in its
// package's directory) by looking for go.mod upwards. It does not check
// that the path exists: see Require.
func Dir(elem ...string) string {
	root := repoRoot()
	return filepath.Join(append([]string{filepath.Dir(root), "shared"}, elem...)...)
}

// Require checks that path exists and returns it. When it does not, the
// test is skipped, or fails when RequireEnv is "1"; what names the
// material for the message ("the corpus").
func Require(t testing.TB, what, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		Missing(t, what, err)
	}
	return path
}

// Missing skips t because what is not available (err says why), or fails
// it when RequireEnv is "1".
func Missing(t testing.TB, what string, err error) {
	t.Helper()
	msg := fmt.Sprintf("%s is not available (%v)", what, err)
	if Required() {
		t.Fatalf("%s, and %s=1 requires it: check out ../shared next to the repository", msg, RequireEnv)
		return
	}
	t.Skipf("%s; set %s=1 to make this a failure", msg, RequireEnv)
}

// Required reports whether RequireEnv is set to "1".
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// repoRoot is the nearest directory at or above the working directory
// that holds go.mod (the working directory itself when there is none).
func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd
		}
		dir = parent
	}
}
