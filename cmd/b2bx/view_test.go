package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

func TestViewNeedsTerminal(t *testing.T) {
	code, _, stderr := runCmd(t, "", nil, "view", parseFixtures+"contrl_22_rejected.edi")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "needs a terminal")
	require.Contains(t, stderr, "b2bx parse "+parseFixtures+"contrl_22_rejected.edi --segments")
}

func TestViewUsage(t *testing.T) {
	code, _, stderr := runCmd(t, "", nil, "view")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "give exactly one FILE")
	code, _, _ = runCmd(t, "", nil, "view", "a", "b")
	require.Equal(t, exitUsage, code)
}

// fakeViewer replaces the program: it records what it was given.
func fakeViewer(t *testing.T, run func(src *viewer.Source) error) {
	t.Helper()
	old := runViewer
	runViewer = func(_ context.Context, _ io.Reader, _ io.Writer, src *viewer.Source) error { return run(src) }
	t.Cleanup(func() { runViewer = old })
}

func TestViewOpensAndCloses(t *testing.T) {
	pretendTerminal(t)
	var got *viewer.Source
	fakeViewer(t, func(src *viewer.Source) error {
		got = src
		require.NoError(t, src.Err())
		return nil
	})
	code, _, stderr := runCmd(t, "", nil, "view", parseFixtures+"contrl_22_rejected.edi")
	require.Equal(t, exitOK, code, stderr)
	require.NotNil(t, got)
	require.ErrorIs(t, got.Err(), viewer.ErrClosed, "the file must be closed when the viewer ends")
}

func TestViewMissingFile(t *testing.T) {
	pretendTerminal(t)
	fakeViewer(t, func(*viewer.Source) error { t.Fatal("the viewer ran"); return nil })
	name := filepath.Join(t.TempDir(), "no-\x1b]2;such-file.edi")
	code, _, stderr := runCmd(t, "", nil, "view", name)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "cannot read")
	require.Contains(t, stderr, "no-^[]2;such-file.edi")
	require.NotContains(t, stderr, "\x1b")
}

// TestViewFileChanged: a file shortened while it was viewed is reported
// when the viewer ends, with a non-zero exit.
func TestViewFileChanged(t *testing.T) {
	pretendTerminal(t)
	path := filepath.Join(t.TempDir(), "big.edi")
	data := []byte("UNB+UNOA:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO+9'" +
		strings.Repeat("FTX+AAI+++"+strings.Repeat("x", 60)+"'", 8000) + "UNT+8003+1'UNZ+1+R'")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	fakeViewer(t, func(src *viewer.Source) error {
		require.NoError(t, os.Truncate(path, 100))
		m := viewer.New(&common.Common{Styles: common.NewStyles(true)}, src, viewer.Options{}).SetSize(100, 30)
		m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("G")})
		_ = m.View() // reads the last rows, beyond the new end: faults, shows the error
		return nil
	})
	code, _, stderr := runCmd(t, "", nil, "view", path)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, edi.ErrFileChanged.Error())
}
