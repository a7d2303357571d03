//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const (
	envParseChild    = "B2BX_TEST_PARSE_CHILD"     // the arguments, separated by 0x1F
	envParseSignalAt = "B2BX_TEST_PARSE_SIGNAL_AT" // a stage at which the child sends itself SIGINT
)

// childOpening is what the child prints on stderr as parse starts to
// open its input: the signal handler is in place from then on.
const childOpening = "child: opening the input"

// TestParseChild is the child process of the parse interrupt tests: it
// runs b2bx with the arguments in B2BX_TEST_PARSE_CHILD. With
// B2BX_TEST_PARSE_SIGNAL_AT set to a stage ("parse", "output") it sends
// itself SIGINT when parse enters that stage and waits until the signal
// has cancelled the command's context, so the stage starts cancelled.
func TestParseChild(t *testing.T) {
	args := os.Getenv(envParseChild)
	if args == "" {
		t.Skip("run by the parse interrupt tests")
	}
	at := os.Getenv(envParseSignalAt)
	parseHook = func(ctx context.Context, stage string) {
		if stage == "open" {
			fmt.Fprintln(os.Stderr, childOpening)
		}
		if stage == at {
			_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				fmt.Fprintln(os.Stderr, "child: the signal did not cancel the context")
			}
		}
	}
	os.Exit(realMain(strings.Split(args, "\x1f")))
}

// parseChild is a running TestParseChild.
type parseChild struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr chan string // its lines
	lines  []string
	waited chan error
}

// startParseChild runs b2bx parse with args in a child process and
// waits until it starts to open its input.
func startParseChild(t *testing.T, stdin io.Reader, signalAt string, args ...string) *parseChild {
	t.Helper()
	c := &parseChild{stderr: make(chan string, 100), waited: make(chan error, 1)}
	c.cmd = exec.Command(os.Args[0], "-test.run=^TestParseChild$", "-test.count=1")
	c.cmd.Env = append(os.Environ(), envParseChild+"="+strings.Join(append([]string{"parse"}, args...), "\x1f"), envParseSignalAt+"="+signalAt,
		"GORACE=atexit_sleep_ms=0") // a race-enabled child would sleep 1 s at exit
	c.cmd.Stdin = stdin
	c.cmd.Stdout = &c.stdout
	errPipe, err := c.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, c.cmd.Start())
	t.Cleanup(func() { _ = c.cmd.Process.Kill() })
	go func() {
		lines := bufio.NewScanner(errPipe)
		for lines.Scan() {
			c.stderr <- lines.Text()
		}
		close(c.stderr)
		c.waited <- c.cmd.Wait()
	}()
	c.waitLine(t, childOpening)
	return c
}

// waitLine reads the child's stderr until a line containing want.
func (c *parseChild) waitLine(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-c.stderr:
			if !ok {
				t.Fatalf("the child ended without printing %q: %q", want, c.lines)
			}
			c.lines = append(c.lines, line)
			if strings.Contains(line, want) {
				return
			}
		case <-timeout:
			t.Fatalf("the child did not print %q: %q", want, c.lines)
		}
	}
}

// exit waits (at most 10 s) for the child to end on its own and returns
// its exit code and its whole stderr.
func (c *parseChild) exit(t *testing.T) (int, string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-c.stderr:
			if ok {
				c.lines = append(c.lines, line)
				continue
			}
			err := <-c.waited
			stderr := strings.Join(c.lines, "\n")
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatalf("waiting for the child: %v", err)
			}
			return c.cmd.ProcessState.ExitCode(), stderr
		case <-timeout:
			t.Fatalf("the child is still running 10 s after the first signal: %q", c.lines)
		}
	}
}

// requireInterrupted: the first signal ended the command with 130 and
// the message for what it was doing; no second signal was needed.
func requireInterrupted(t *testing.T, c *parseChild, doing string) {
	t.Helper()
	code, stderr := c.exit(t)
	require.Equal(t, exitInterrupted, code, stderr)
	require.Contains(t, stderr, "b2bx: interrupted: stopping")
	require.Contains(t, stderr, "b2bx parse: interrupted while "+doing)
	require.NotContains(t, stderr, "interrupted again", "the first signal was enough")
}

// settle gives the child a moment to block in the open or read it is
// starting (the tests hold whether or not it got there).
func settle() { time.Sleep(100 * time.Millisecond) }

// TestParseInterruptFIFO: parse of a FIFO stops at the first SIGINT or
// SIGTERM, whether no writer ever opens it (open blocks) or the writer
// holds it open and sends nothing (read blocks); both used to need SIGKILL.
func TestParseInterruptFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "in.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))

	c := startParseChild(t, nil, "", fifo)
	settle()
	require.NoError(t, c.cmd.Process.Signal(os.Interrupt))
	requireInterrupted(t, c, "reading "+fifo+": nothing was parsed")

	c = startParseChild(t, nil, "", fifo, "--json")
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // returns once the child has opened it
	require.NoError(t, err)
	defer w.Close()
	_, err = w.WriteString("UNB+UNOC:3+S+R+250312:1030+X'UNH+1+ORDERS:D:96A:UN'")
	require.NoError(t, err)
	settle()
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	requireInterrupted(t, c, "reading "+fifo+": nothing was parsed")
	require.Empty(t, c.stdout.String())
}

// TestParseInterruptStdin: parse - on a pipe that nobody writes stops at
// the first signal.
func TestParseInterruptStdin(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer w.Close()
	defer r.Close()
	c := startParseChild(t, r, "", "-")
	settle()
	require.NoError(t, c.cmd.Process.Signal(os.Interrupt))
	requireInterrupted(t, c, "reading (stdin): nothing was parsed")
}

// TestParseInterruptDevZero: parse /dev/zero (a device that never ends)
// stops at the first signal while it reads. It is also refused by size:
// see TestParseMaxInput.
func TestParseInterruptDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	c := startParseChild(t, nil, "", "/dev/zero", "--max-input", "4GiB")
	settle()
	require.NoError(t, c.cmd.Process.Signal(os.Interrupt))
	requireInterrupted(t, c, "reading /dev/zero: nothing was parsed")
}

// TestParseInterruptLargeFile: a signal that comes while a large file is
// parsed stops the parse (edi.ParseContext), and one that comes while
// the output is printed stops the output: the child signals itself as
// the stage starts, so the stage runs with its context cancelled.
func TestParseInterruptLargeFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "big.edi")
	require.NoError(t, os.WriteFile(name, ediPayload(2<<20), 0o600))

	c := startParseChild(t, nil, "parse", name)
	requireInterrupted(t, c, "parsing "+name+": nothing was printed")
	require.Empty(t, c.stdout.String())

	for _, args := range [][]string{{"--segments"}, {"--json", "--segments"}} {
		c = startParseChild(t, nil, "output", append([]string{name}, args...)...)
		requireInterrupted(t, c, "printing "+name+": the output is incomplete")
		require.Less(t, c.stdout.Len(), 64<<10, "%v: stopped before the first segments were printed", args)
	}

	c = startParseChild(t, nil, "", name, "--segments")
	code, stderr := c.exit(t)
	require.Equal(t, exitFileError, code, stderr) // (ediPayload's UNT does not count its segments)
	require.NotContains(t, stderr, "interrupted")
	require.Greater(t, c.stdout.Len(), 1<<20, "without a signal the whole list")
}

// TestParseDevZeroRefusedBySize: /dev/zero is cut off at --max-input
// with a clear message, not read until memory runs out (it grew to 8 GB).
func TestParseDevZeroRefusedBySize(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	code, out, errOut := runCmd(t, "", nil, "parse", "/dev/zero", "--max-input", "1MiB")
	require.Equal(t, exitUsage, code)
	require.Empty(t, out)
	require.Equal(t, "b2bx parse: /dev/zero holds more than 1 MiB, the most that is read for parsing: give --max-input with a larger size to read more (at most 4GiB), or split the input\n", errOut)
}
