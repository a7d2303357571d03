package orders

import (
	"os"
	"strings"
	"syscall"
)

// EditorArgs is the command that opens path in the operator's editor:
// $VISUAL, else $EDITOR, else vi, run through sh like git does, so an
// editor given with arguments ("code --wait", "emacs -nw") works and the
// path is passed as one argument whatever it holds. The app runs it with
// the terminal handed over (suspended); Review reads the result after.
func EditorArgs(getenv func(string) string, path string) []string {
	ed := strings.TrimSpace(getenv("VISUAL"))
	if ed == "" {
		ed = strings.TrimSpace(getenv("EDITOR"))
	}
	if ed == "" {
		ed = "vi"
	}
	return []string{"sh", "-c", ed + ` "$@"`, ed, path}
}

// StopEditor stops the whole editor started from EditorArgs: SIGTERM to
// the shell, the editor it started and what that started (a wrapper
// script's child would otherwise hold the terminal after its parent is
// gone), the deepest first. The app calls it when it is told to end
// while the editor runs (tui/common.Exec.RunContext), then kills what is
// left after a bounded grace.
func StopEditor(p *os.Process) error {
	if p == nil {
		return os.ErrProcessDone
	}
	kids := descendants(p.Pid)
	for i := len(kids) - 1; i >= 0; i-- {
		if q, err := os.FindProcess(kids[i]); err == nil {
			_ = q.Signal(syscall.SIGTERM)
		}
	}
	return p.Signal(syscall.SIGTERM)
}
