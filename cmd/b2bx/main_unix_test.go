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
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-time.After(20 * time.Second):
		t.Fatal("the second signal did not end the process")
	}
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "%v", err)
	require.Equal(t, exitInterrupted, ee.ExitCode(), stderr.String())
	require.Contains(t, stderr.String(), "press Ctrl-C again to quit at once")
	require.Contains(t, stderr.String(), "quitting now")
}
