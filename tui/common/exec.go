package common

import (
	"os/exec"

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
	Cmd  *exec.Cmd
	Done func(error) tea.Msg
}

// Run is the tea.Cmd that runs e with the terminal handed over.
func (e Exec) Run() tea.Cmd {
	done := e.Done
	if done == nil {
		done = func(error) tea.Msg { return nil }
	}
	return tea.ExecProcess(e.Cmd, done)
}
