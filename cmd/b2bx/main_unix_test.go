//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const envInterruptChild = "B2BX_TEST_INTERRUPT_CHILD"

// TestInterruptChild is the child process of TestSecondSignalExitsAtOnce:
// a command that notices the cancel and then ignores it, like a step
// blocked in a local read.
func TestInterruptChild(t *testing.T) {
	if os.Getenv(envInterruptChild) != "1" {
		t.Skip("run by TestSecondSignalExitsAtOnce")
	}
	register(&command{name: "zz-stuck", run: func(ctx context.Context, e *env, _ []string) int {
		fmt.Fprintln(e.stdout, "ready")
		<-ctx.Done()
		fmt.Fprintln(e.stdout, "cancelled")
		time.Sleep(time.Hour) // deaf to the context from here on
		return exitOK
	}})
	// What an app registers (holdTerminal): run before the hard exit.
	onHardExit(func() { fmt.Println("terminal restored") })
	os.Exit(realMain([]string{"zz-stuck"}))
}

func TestSecondSignalExitsAtOnce(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestInterruptChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envInterruptChild+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := bufio.NewScanner(out)
	require.True(t, lines.Scan())
	require.Equal(t, "ready", lines.Text())

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.True(t, lines.Scan())
	require.Equal(t, "cancelled", lines.Text(), "the first signal cancels the command's context")

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	var rest []string
	waited := make(chan error, 1)
	go func() {
		for lines.Scan() { // read to the end before Wait closes the pipe
			rest = append(rest, lines.Text())
		}
		waited <- cmd.Wait()
	}()
	select {
	case err = <-waited:
	case <-time.After(20 * time.Second):
		t.Fatal("the second signal did not end the process")
	}
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "%v", err)
	require.Equal(t, exitInterrupted, ee.ExitCode(), stderr.String())
	require.Equal(t, []string{"terminal restored"}, rest, "the hard exit restores the terminal first")
	require.Contains(t, stderr.String(), "press Ctrl-C again to quit at once")
	require.Contains(t, stderr.String(), "quitting now")
}

// TestConfigFIFORefused: B2BX_CONFIG naming a FIFO (nobody writes it) or
// a device makes the commands that read profiles fail at once, saying
// what to point it at, instead of blocking in open (it needed SIGKILL).
func TestConfigFIFORefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "profiles.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, tc := range []struct {
		path, what string
		args       []string
	}{
		{fifo, "named pipe (FIFO)", []string{"conn", "ls"}},
		{fifo, "named pipe (FIFO)", []string{"mailbox", "ls", "-c", "p1"}},
		{"/dev/zero", "device", []string{"conn", "ls"}},
	} {
		done := make(chan struct{})
		var code int
		var errOut string
		go func() {
			defer close(done)
			code, _, errOut = runCmd(t, "", map[string]string{"B2BX_CONFIG": tc.path, "HOME": dir}, tc.args...)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close() // let the blocked open end
			}
			t.Fatalf("%v blocked on B2BX_CONFIG=%s", tc.args, tc.path)
		}
		require.NotEqual(t, exitOK, code, errOut)
		require.Contains(t, errOut, tc.path+" is a "+tc.what+", not a regular file: point $B2BX_CONFIG at a profile file", tc.args)
	}
}
