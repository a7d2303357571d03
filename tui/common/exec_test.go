package common

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
)

// An Exec made by a screen's command passes its stack unwrapped (the
// program must see it), and the message its Done makes comes back
// addressed to that screen.
func TestExecPassesStackAndAnswerReturnsToScreen(t *testing.T) {
	var log []string
	type edited struct{ err error }
	s := fakeScreen{name: "fix", log: &log, cmd: func() tea.Msg {
		return Exec{Cmd: exec.Command("true"), Done: func(err error) tea.Msg { return edited{err} }}
	}}
	st := NewStack(TabID(3))
	st.Push(s)
	_, cmd := st.Key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("E")})
	msg := cmd()
	e, ok := msg.(Exec)
	require.True(t, ok, "the Exec was wrapped: %T", msg)
	back := e.Done(nil)
	sm, ok := back.(ScreenMsg)
	require.True(t, ok, "Done's message is not addressed: %T", back)
	require.Equal(t, TabID(3), sm.Tab)
	require.Equal(t, edited{}, sm.Msg)
	require.NotNil(t, e.Run())
}

// startedExec is a boundExec running script under sh with its stdout on
// a pipe; the returned channel gets the first line the script writes.
func startedExec(t *testing.T, ctx context.Context, script string) (*boundExec, <-chan string) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close(); w.Close() })
	c := exec.Command("sh", "-c", script)
	c.Stdout = w
	lines := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(r).ReadString('\n')
		lines <- strings.TrimSpace(l)
	}()
	return &boundExec{cmd: c, ctx: ctx}, lines
}

// A hung editor ends when the app's context does (SIGTERM): Run returns
// instead of holding Bubble Tea's event loop, even for an editor that
// ignores SIGTERM (killed after the grace).
func TestExecRunContextEndsAHungCommand(t *testing.T) {
	old := ExecGrace
	// the grace is also how long a killed process may take to be reaped:
	// 50 ms was too short on a loaded machine (Run then reported the
	// command abandoned); a second keeps the test quick
	ExecGrace = time.Second
	t.Cleanup(func() { ExecGrace = old })
	for name, script := range map[string]string{
		"obeys SIGTERM":   "echo $$; exec sleep 3600",
		"ignores SIGTERM": "trap '' TERM; echo $$; while :; do sleep 1; done",
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b, lines := startedExec(t, ctx, script)
			ran := make(chan error, 1)
			go func() { ran <- b.Run() }()
			<-lines // the command runs
			cancel()
			select {
			case err := <-ran:
				require.ErrorIs(t, err, context.Canceled)
			case <-time.After(30 * time.Second): // a liveness guard, not a speed goal
				t.Fatal("Run did not end after the context did")
			}
		})
	}
}

// Without a context ending, Run is the command's own result.
func TestExecRunContextPassesTheResult(t *testing.T) {
	b := &boundExec{cmd: exec.Command("sh", "-c", "exit 3"), ctx: context.Background()}
	var ee *exec.ExitError
	require.ErrorAs(t, b.Run(), &ee)
	require.Equal(t, 3, ee.ExitCode())
}

// The Exec's own Stop is how a hung command is asked to end.
func TestExecRunContextUsesStop(t *testing.T) {
	old := ExecGrace
	ExecGrace = 10 * time.Second // Stop alone must end it
	t.Cleanup(func() { ExecGrace = old })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, lines := startedExec(t, ctx, "trap '' TERM; echo $$; while :; do sleep 1; done")
	stopped := make(chan struct{})
	b.stop = func() error { close(stopped); return b.cmd.Process.Kill() }
	ran := make(chan error, 1)
	go func() { ran <- b.Run() }()
	<-lines
	cancel()
	select {
	case <-ran:
	case <-time.After(30 * time.Second): // a liveness guard
		t.Fatal("Run did not end after Stop")
	}
	<-stopped
}
