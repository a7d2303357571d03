package testshared

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that records Skipf and Fatalf instead of
// stopping the goroutine.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Skipf(format string, args ...any)  { r.skipped = fmt.Sprintf(format, args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

func TestMissingSkipsByDefault(t *testing.T) {
	t.Setenv(RequireEnv, "")
	r := &recorder{TB: t}
	Missing(r, "the corpus", errors.New("no such file"))
	require.Empty(t, r.failed)
	require.Equal(t, "the corpus is not available (no such file); set B2BX_REQUIRE_SHARED=1 to make this a failure", r.skipped)
}

func TestMissingFailsWhenRequired(t *testing.T) {
	t.Setenv(RequireEnv, "1")
	r := &recorder{TB: t}
	Missing(r, "the corpus", errors.New("no such file"))
	require.Empty(t, r.skipped)
	require.Equal(t, "the corpus is not available (no such file), and B2BX_REQUIRE_SHARED=1 requires it: check out ../shared next to the repository", r.failed)
}

func TestRequire(t *testing.T) {
	t.Setenv(RequireEnv, "1")
	r := &recorder{TB: t}
	dir := t.TempDir()
	require.Equal(t, dir, Require(r, "a directory", dir))
	require.Empty(t, r.failed+r.skipped, "an existing path passes")
	Require(r, "a directory", filepath.Join(dir, "absent"))
	require.Contains(t, r.failed, "a directory is not available")
}

// TestDir: ../shared is found from the repository root, whatever package
// directory the test runs in.
func TestDir(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	root := filepath.Dir(filepath.Dir(wd)) // internal/testshared -> repository
	require.Equal(t, filepath.Join(filepath.Dir(root), "shared", "corpus"), Dir("corpus"))
}

// TestCIRequiresEverything: CI must run the tests that would skip on a
// developer's machine (shared data, independent tools, the real keyring,
// tmux) with the switches that make a missing prerequisite a failure.
func TestCIRequiresEverything(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	require.NoError(t, err)
	ci := string(b)
	for _, want := range []string{
		"export " + RequireEnv + "=1",
		"export B2BX_REQUIRE_TOOLS=1",
		"B2BX_KEYRING_IT=1 .ci/keyring-session make test",
		"B2BX_E2E_REQUIRE=1 B2BX_KEYRING_IT=1 make e2e",
	} {
		require.Contains(t, ci, want)
	}
}
