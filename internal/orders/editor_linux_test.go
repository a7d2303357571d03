package orders

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// StopEditor stops what the editor started too: a
// wrapper script's child (here the `sleep` of a hung $EDITOR) would
// otherwise outlive the app holding its terminal.
func TestEditorCommandCancelStopsTheEditorsChildren(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	ed := filepath.Join(dir, "editor.sh")
	require.NoError(t, os.WriteFile(ed, []byte("#!/bin/sh\nsleep 3600 &\necho $! > "+pidFile+".tmp\nmv "+pidFile+".tmp "+pidFile+"\nwait\n"), 0o755))
	env := map[string]string{"EDITOR": ed}
	args := EditorArgs(func(k string) string { return env[k] }, filepath.Join(dir, "work.edi"))
	c := exec.Command(args[0], args[1:]...)
	require.NoError(t, c.Start())
	var child int
	for i := 0; i < 3000 && child == 0; i++ { // bounded: 30 s
		if b, err := os.ReadFile(pidFile); err == nil {
			child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	require.NotZero(t, child, "the editor did not start its child")
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
	require.True(t, alive(child))
	require.NoError(t, StopEditor(c.Process))
	_ = c.Wait()
	for i := 0; i < 3000 && alive(child); i++ { // bounded: 30 s
		time.Sleep(10 * time.Millisecond)
	}
	require.False(t, alive(child), "the editor's child %d outlived the cancel", child)
}

// descendants finds children of children.
func TestDescendantsFindsGrandchildren(t *testing.T) {
	require.NotContains(t, descendants(os.Getpid()), os.Getpid())
	require.Empty(t, descendants(1<<30))
}
