package eventview

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/tui/common"
)

// TestExportFindings: :export writes the findings shown (the filter
// applies) as a CSV a CSV parser reads back.
func TestExportFindings(t *testing.T) {
	m := opened(t, testdata("batch_issues.json"), 120, 40)
	ex, ok := m.Screen().(common.Exporter)
	require.True(t, ok, "the inspector is exportable")
	path := filepath.Join(t.TempDir(), "findings.csv")
	what, err := ex.Exporter()(path, false)
	require.NoError(t, err)
	require.Equal(t, "6 event findings", what)
	f, err := os.Open(path)
	require.NoError(t, err)
	recs, err := csv.NewReader(f).ReadAll()
	_ = f.Close()
	require.NoError(t, err)
	require.Len(t, recs, 7)

	m = press(t, m, "/", "n", "b", "-", "e", "0", "0", "5", "enter")
	what, err = m.Screen().(common.Exporter).Exporter()(path, true)
	require.NoError(t, err)
	require.Equal(t, "2 event findings", what)
}
