package common

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// Exec asks the program to hand the terminal to an outside command (the
// operator's editor) and suspend the app until it ends, then give Done's
// message back. A screen returns it from a command like any result; its
// stack re-tags Done so the answer reaches the screen that asked, and
// the root (or Standalone) runs it with tea.ExecProcess. It is a request,
// not a tea.ExecProcess command, because a stack wraps what its screens'
// commands return and bubbletea's own exec message must reach the
// program unwrapped.
type Exec struct {
	Cmd *exec.Cmd
	// Stop, when set, asks the running Cmd (and what it started) to end;
	// else Cmd gets SIGTERM.
	Stop func() error
	Done func(error) tea.Msg
}

// Run is the tea.Cmd that runs e with the terminal handed over.
func (e Exec) Run() tea.Cmd {
	return tea.Exec(&boundExec{cmd: e.Cmd, stop: e.Stop, ctx: context.Background()}, e.done())
}

// RunContext is Run, bounded by ctx: when ctx ends (SIGTERM, SIGINT)
// while the command still runs, the command is stopped (e.Stop, else
// SIGTERM; SIGKILL after ExecGrace) and, if it still has not ended after
// a second ExecGrace, abandoned, so the program gets its terminal back
// and can end. Bubble Tea runs the command on its event loop: without
// this, a hung editor keeps the app from seeing the cancelled context.
func (e Exec) RunContext(ctx context.Context) tea.Cmd {
	return tea.Exec(&boundExec{cmd: e.Cmd, stop: e.Stop, ctx: ctx}, e.done())
}

func (e Exec) done() tea.ExecCallback {
	if e.Done == nil {
		return func(error) tea.Msg { return nil }
	}
	return e.Done
}

// ExecGrace is how long a stopped command gets to end, once after the
// polite stop and once after SIGKILL.
var ExecGrace = 2 * time.Second

// ErrExecAbandoned is the error of a command that did not end after it
// was killed: the program goes on without waiting for it.
var ErrExecAbandoned = errors.New("the editor did not end after it was killed; it was left behind")

// boundExec is a tea.ExecCommand whose Run ends when its context does.
type boundExec struct {
	cmd  *exec.Cmd
	stop func() error
	ctx  context.Context
}

func (b *boundExec) SetStdin(r io.Reader) {
	if b.cmd.Stdin == nil {
		b.cmd.Stdin = r
	}
}

func (b *boundExec) SetStdout(w io.Writer) {
	if b.cmd.Stdout == nil {
		b.cmd.Stdout = w
	}
}

func (b *boundExec) SetStderr(w io.Writer) {
	if b.cmd.Stderr == nil {
		b.cmd.Stderr = w
	}
}

// Run starts the command and waits for it or for the context, whichever
// ends first; every wait after the context ended is bounded.
func (b *boundExec) Run() error {
	if err := b.ctx.Err(); err != nil {
		return err
	}
	if b.cmd.WaitDelay == 0 {
		// Copying goroutines (a non-file stdin) end at most this long
		// after the child, so Wait cannot hang on them.
		b.cmd.WaitDelay = ExecGrace
	}
	if err := b.cmd.Start(); err != nil {
		return err
	}
	waited := make(chan error, 1)
	go func() { waited <- b.cmd.Wait() }()
	select {
	case err := <-waited:
		return err
	case <-b.ctx.Done():
	}
	if b.stop != nil {
		_ = b.stop()
	} else {
		_ = b.cmd.Process.Signal(stopSignal)
	}
	grace := time.NewTimer(ExecGrace)
	defer grace.Stop()
	select {
	case <-waited:
		return b.ctx.Err()
	case <-grace.C:
	}
	_ = b.cmd.Process.Kill()
	grace.Reset(ExecGrace)
	select {
	case <-waited:
		return b.ctx.Err()
	case <-grace.C:
		return ErrExecAbandoned
	}
}
