//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	// bin is the b2bx binary under test (built by TestMain).
	bin string
	// repoRoot is the repository's root directory.
	repoRoot string
	// goEnv pins Go's caches for child processes whose HOME is a temp dir
	// (.ci/keyring-session asks `go env`; a fresh HOME would mean a cold cache).
	goEnv []string
)

// commandTimeout bounds every single b2bx run; nothing here should take
// more than a few seconds.
const commandTimeout = 60 * time.Second

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 2
	}
	repoRoot = root
	for _, name := range []string{"GOCACHE", "GOMODCACHE"} {
		out, err := exec.Command("go", "env", name).Output()
		if err == nil && len(bytes.TrimSpace(out)) > 0 {
			goEnv = append(goEnv, name+"="+string(bytes.TrimSpace(out)))
		}
	}
	if b := os.Getenv("B2BX_E2E_BIN"); b != "" {
		// Relative to the repository, like the Makefile's $(BIN).
		if bin = b; !filepath.IsAbs(b) {
			bin = filepath.Join(repoRoot, b)
		}
		if st, err := os.Stat(bin); err != nil || st.IsDir() {
			fmt.Fprintf(os.Stderr, "e2e: B2BX_E2E_BIN=%s is not a file (%v); build it first (make build) or unset it\n", b, err)
			return 2
		}
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "b2bx-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 2
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "b2bx")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/b2bx")
	build.Dir = repoRoot
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building cmd/b2bx failed:", err)
		return 2
	}
	return m.Run()
}

// world is one test's private environment: HOME, XDG and b2bx directories
// in a temp dir, the D-Bus session bus disabled (so no b2bx process can
// reach a real keyring), and the secrets every output is checked against.
type world struct {
	dir     string // the test's temp dir
	dataDir string // $B2BX_DATA_DIR
	config  string // $B2BX_CONFIG (the profile file)
	tmpDir  string // $TMPDIR of the child processes
	env     []string

	mu      sync.Mutex
	secrets []string // canaries: never in any output or file
}

func newWorld(t *testing.T) *world {
	t.Helper()
	dir := t.TempDir()
	w := &world{dir: dir, dataDir: filepath.Join(dir, "data"), config: filepath.Join(dir, "config", "b2bx", "profiles.toml"), tmpDir: filepath.Join(dir, "tmp")}
	for _, d := range []string{"home", "xdg-config", "xdg-data", "xdg-cache", "xdg-state", "tmp"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o700))
	}
	w.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "xdg-config"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "xdg-data"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "xdg-cache"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "xdg-state"),
		"TMPDIR=" + w.tmpDir,
		"B2BX_DATA_DIR=" + w.dataDir,
		"B2BX_CONFIG=" + w.config,
		"DBUS_SESSION_BUS_ADDRESS=disabled:",
		"LANG=C.UTF-8",
		"TERM=xterm-256color",
	}
	if tc := os.Getenv("GOTOOLCHAIN"); tc != "" {
		w.env = append(w.env, "GOTOOLCHAIN="+tc)
	}
	w.env = append(w.env, goEnv...)
	return w
}

// addSecret registers a canary that must never appear in output or files.
func (w *world) addSecret(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.secrets = append(w.secrets, s)
}

// requireNoSecret fails when text holds a registered secret.
func (w *world) requireNoSecret(t *testing.T, what, text string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.secrets {
		if strings.Contains(text, s) {
			// Name the secret by its last characters only: the failure
			// message itself must not spread it further.
			t.Fatalf("%s shows a secret (the one ending in …%s)", what, s[len(s)-4:])
		}
	}
}

// requireNoSecretOnDisk walks the data and config directories (spool files,
// sidecars, upload history, profiles) and fails when a file holds a secret.
func (w *world) requireNoSecretOnDisk(t *testing.T) {
	t.Helper()
	for _, root := range []string{w.dataDir, filepath.Dir(w.config), filepath.Join(w.dir, "home")} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			w.requireNoSecret(t, path, string(b))
			return nil
		})
		require.NoError(t, err)
	}
}

// result is one finished b2bx run.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// b2bx runs the binary with the world's environment plus extraEnv, stdin
// from the given string (not a terminal), and checks both outputs for
// secrets.
func (w *world) b2bx(t *testing.T, extraEnv []string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(append([]string{}, w.env...), extraEnv...)
	cmd.Dir = w.dir
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		r.code = exitErr.ExitCode()
	case err != nil:
		require.NoError(t, err, "b2bx %s", strings.Join(args, " "))
	}
	require.NoError(t, ctx.Err(), "b2bx %s did not finish in time\n%s", strings.Join(args, " "), r)
	w.requireNoSecret(t, "b2bx "+strings.Join(args, " "), r.stdout+r.stderr)
	return r
}

// requireTool skips the test when a program is missing, or fails it when
// the environment variable strict is set (CI installs the tools).
func requireTool(t *testing.T, strict string, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv(strict) != "" {
				t.Fatalf("%s is not installed but %s is set: install it (apt-get install -y %s)", tool, strict, tool)
			}
			t.Skipf("%s is not installed (apt-get install -y %s); set %s=1 to make this a failure", tool, tool, strict)
		}
	}
}

// waitUntil polls cond every 50 ms until it holds or timeout passes.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
