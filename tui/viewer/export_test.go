package viewer

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/jsonout"
	"github.com/nutrab2b/b2bx/tui/common"
)

// TestExportWritesParseJSON: :export in the viewer writes exactly the
// JSON of parse --json for the file; a .csv name is refused, an
// existing file kept without force, and after Close nothing is read.
func TestExportWritesParseJSON(t *testing.T) {
	m := open(t, fixture("orders_rejectable.edi"))
	ex, ok := m.Screen().(common.Exporter)
	require.True(t, ok)
	dir := t.TempDir()
	out := filepath.Join(dir, "doc.json")
	what, err := ex.Exporter()(out, false)
	require.NoError(t, err)
	require.Contains(t, what, "parse --json")

	data, err := os.ReadFile(fixture("orders_rejectable.edi"))
	require.NoError(t, err)
	doc, err := edi.Parse(data)
	require.NoError(t, err)
	var want bytes.Buffer
	w := bufio.NewWriter(&want)
	require.NoError(t, jsonout.Write(context.Background(), w, m.src.Name(), doc, jsonout.Options{}))
	require.NoError(t, w.Flush())
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, want.String(), string(got))

	_, err = ex.Exporter()(out, false)
	require.ErrorContains(t, err, "exists")
	_, err = ex.Exporter()(filepath.Join(dir, "doc.csv"), false)
	require.ErrorIs(t, err, ErrExportJSON)

	require.NoError(t, m.Close())
	_, err = m.Screen().(common.Exporter).Exporter()(filepath.Join(dir, "after.json"), false)
	require.ErrorIs(t, err, ErrClosed)
}
