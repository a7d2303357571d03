package main

import (
	"io"
	"os"
	"sync"

	"golang.org/x/term"
)

// atHardExit holds what must run before the process exits at once on a
// second signal (notifyInterrupt): the app's terminal is put back, or the
// shell is left raw on the alternate screen.
var atHardExit struct {
	mu    sync.Mutex
	next  int
	hooks map[int]func()
}

// onHardExit registers f to run before a hard exit; the returned func
// unregisters it.
func onHardExit(f func()) (unregister func()) {
	atHardExit.mu.Lock()
	defer atHardExit.mu.Unlock()
	if atHardExit.hooks == nil {
		atHardExit.hooks = map[int]func(){}
	}
	id := atHardExit.next
	atHardExit.next++
	atHardExit.hooks[id] = f
	return func() {
		atHardExit.mu.Lock()
		defer atHardExit.mu.Unlock()
		delete(atHardExit.hooks, id)
	}
}

// runHardExitHooks runs the registered hooks (once each).
func runHardExitHooks() {
	atHardExit.mu.Lock()
	hooks := atHardExit.hooks
	atHardExit.hooks = nil
	atHardExit.mu.Unlock()
	for _, f := range hooks {
		f()
	}
}

// leaveScreen are the sequences that undo what the app set on the
// terminal: mouse and bracketed paste off, cursor shown, the alternate
// screen left.
const leaveScreen = "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?25h\x1b[?1049l"

// holdTerminal saves in's terminal mode (when it is one) before a
// full-screen program starts, so a hard exit can put it back: the mode
// restored and leaveScreen written to out. release forgets it (the
// program restored the terminal itself).
func holdTerminal(in io.Reader, out io.Writer) (release func()) {
	var restore func()
	if f, ok := in.(*os.File); ok {
		if st, err := term.GetState(int(f.Fd())); err == nil {
			restore = func() { _ = term.Restore(int(f.Fd()), st) }
		}
	}
	return onHardExit(func() {
		_, _ = io.WriteString(out, leaveScreen)
		if restore != nil {
			restore()
		}
	})
}
