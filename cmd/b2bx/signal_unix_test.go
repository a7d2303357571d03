//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/tui"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

const envSigtermChild = "B2BX_TEST_SIGTERM_CHILD"

// readyReader says "ready" on stdout at the app's first read of its
// input (the program is up), then blocks like a terminal nobody types in.
type readyReader struct {
	once sync.Once
	r    io.Reader
}

func (r *readyReader) Read(p []byte) (int, error) {
	r.once.Do(func() { fmt.Println("ready") })
	return r.r.Read(p)
}

// TestSigtermAppChild is the child process of TestOneSigtermEndsTheApp:
// the real app (or viewer) on a pretend terminal, through realMain's
// signal handling. "closed" is printed once
// the app has returned (its tabs closed, leases released).
func TestSigtermAppChild(t *testing.T) {
	if os.Getenv(envSigtermChild) == "" {
		t.Skip("run by TestOneSigtermEndsTheApp")
	}
	isTerminal = func(any) bool { return true }
	pr, _, err := os.Pipe() // the write end stays open: no key ever comes
	if err != nil {
		panic(err)
	}
	runTUI = func(ctx context.Context, o tui.Options) error {
		o.Input, o.Output = &readyReader{r: pr}, io.Discard
		err := tui.Run(ctx, o)
		fmt.Println("closed")
		return err
	}
	realViewer := runViewer
	runViewer = func(ctx context.Context, _ io.Reader, _ io.Writer, src *viewer.Source) error {
		err := realViewer(ctx, &readyReader{r: pr}, io.Discard, src)
		fmt.Println("closed")
		return err
	}
	os.Exit(realMain(strings.Fields(os.Getenv(envSigtermChild + "_ARGS"))))
}

// TestOneSigtermEndsTheApp: one SIGTERM ends the app (`b2bx app`, the
// same program as `b2bx demo` without its simulator) and `b2bx view`
// cleanly, every time. Bubble Tea's own signal handler used
// to race notifyInterrupt's for the same signal and hung the program in
// about one trial in five; several trials make that race show.
func TestOneSigtermEndsTheApp(t *testing.T) {
	for _, args := range []string{"app", "view ../../testdata/edifact/orders_d96a.edi"} {
		t.Run(strings.Fields(args)[0], func(t *testing.T) { sigtermTrials(t, args) })
	}
}

func sigtermTrials(t *testing.T, args string) {
	for trial := range 6 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSigtermAppChild$", "-test.count=1")
		dir := t.TempDir()
		cmd.Env = append(os.Environ(), envSigtermChild+"=1", envSigtermChild+"_ARGS="+args,
			"HOME="+dir, "B2BX_CONFIG="+filepath.Join(dir, "profiles.toml"), "DBUS_SESSION_BUS_ADDRESS=disabled:",
			"GORACE=atexit_sleep_ms=0") // a race-enabled child would sleep 1 s at exit
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		lines := bufio.NewScanner(out)
		require.True(t, lines.Scan(), "trial %d: the child never read its input", trial)
		require.Equal(t, "ready", lines.Text())

		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		var rest strings.Builder
		waited := make(chan error, 1)
		go func() {
			for lines.Scan() {
				rest.WriteString(lines.Text() + "\n")
			}
			waited <- cmd.Wait()
		}()
		select {
		case err = <-waited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("trial %d: one SIGTERM did not end the app", trial)
		}
		require.NoError(t, err, "trial %d: %s", trial, stderr.String())
		require.Equal(t, "closed\n", rest.String(), "trial %d: the app returned and closed its tabs", trial)
		require.Contains(t, stderr.String(), "interrupted: stopping")
		require.NotContains(t, stderr.String(), "quitting now", "one signal, no hard exit")
	}
}
