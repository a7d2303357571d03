package conntab

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/tui/common"
)

// TestBundleFromMailboxAndUploads: T on a downloaded entry and on an
// upload writes a bundle directory and its archive; the footer names the
// path and y offers it; no file of it holds a token or the secret.
func TestBundleFromMailboxAndUploads(t *testing.T) {
	dir := bundlesIn(t)

	e := newAnswerEnv(t)
	e.upload(t, "orders_rejectable.edi", 1)
	m := e.tab(t)
	m, _ = pressAll(t, m, "P")
	require.Equal(t, worker.PhaseAcked, m.run.Phase())

	m, n := pressAll(t, m, "T")
	require.Contains(t, n, "bundle for the partner's operator: "+dir)
	require.NotEmpty(t, m.bundlePath)
	require.DirExists(t, m.bundlePath)
	require.FileExists(t, m.bundlePath+".tar.gz")
	m, _ = pressAll(t, m, "y")
	menu, ok := m.stack.Top().(*common.CopyMenu)
	require.True(t, ok)
	require.Contains(t, menu.Items(), common.CopyItem{Label: "bundle path", Value: m.bundlePath})
	m, _ = pressAll(t, m, "esc")

	m, n = pressAll(t, m, "H", "T")
	require.Contains(t, n, "bundle for the partner's operator")
	m, _ = pressAll(t, m, "y")
	menu, ok = m.stack.Top().(*common.CopyMenu)
	require.True(t, ok)
	var bundles []string
	for _, it := range menu.Items() {
		if it.Label == "bundle path" {
			bundles = append(bundles, it.Value)
		}
	}
	require.Len(t, bundles, 1, "the uploads screen offers the bundle it wrote")

	// Canary over every file written.
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() || strings.HasSuffix(p, ".tar.gz") {
			return nil
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NotContains(t, string(b), canaryToken, p)
		require.NotContains(t, string(b), answerSecret, p)
		return nil
	}))
}

// TestBundleTimelineFromTheIndex: T hands the tab's timeline source to
// the bundle, so timeline.txt tells the conversation instead of "this
// b2bx has no tracking index" (issue 23 §5).
func TestBundleTimelineFromTheIndex(t *testing.T) {
	bundlesIn(t)

	e := newAnswerEnv(t)
	e.upload(t, "orders_rejectable.edi", 1)
	m := e.tab(t)
	var asked []string
	m.timeline = func(_ context.Context, conn, id string) ([]string, error) {
		asked = append(asked, conn+" "+id)
		return []string{"order PO-4720 — NEEDS ACTION", "step one of the conversation"}, nil
	}
	m, _ = pressAll(t, m, "P")
	m, n := pressAll(t, m, "T")
	require.Contains(t, n, "bundle for the partner's operator")
	require.Len(t, asked, 1)
	require.True(t, strings.HasPrefix(asked[0], answerConn+" "))
	b, err := os.ReadFile(filepath.Join(m.bundlePath, "timeline.txt"))
	require.NoError(t, err)
	require.Contains(t, string(b), "step one of the conversation")
	require.NotContains(t, string(b), "no tracking index")
}

// bundlesIn makes T write its bundles under a temporary directory for the
// test, and returns it.
func bundlesIn(t *testing.T) string {
	dir := t.TempDir()
	old := bundleDir
	bundleDir = dir
	t.Cleanup(func() { bundleDir = old })
	return dir
}
