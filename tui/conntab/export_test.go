package conntab

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/conntab/table"
)

// readCSV parses an exported file back.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	return recs
}

// TestExportMailboxPage: :export writes the rows on screen as a CSV a
// CSV parser reads back; an existing file is kept without :export!;
// with marks only the marked rows are written.
func TestExportMailboxPage(t *testing.T) {
	m, _, _ := newTest(t, 5, 50)
	path := filepath.Join(t.TempDir(), "page.csv")
	m, notes := settle(t, m, send(common.ExportMsg{Tab: testTab, Path: path}))
	require.Contains(t, infoText(notes), "exported mailbox page: 5 rows to "+path)
	recs := readCSV(t, path)
	require.Len(t, recs, 6, "a header and the five entries")
	require.Contains(t, recs[0], "deliveryAttemptId")
	require.Equal(t, "da-00000", recs[1][indexOf(recs[0], "deliveryAttemptId")])

	_, notes = settle(t, m, send(common.ExportMsg{Tab: testTab, Path: path}))
	require.Contains(t, infoText(notes), ":export: the file exists")
	require.Len(t, readCSV(t, path), 6, "kept")

	// Mark two rows (space moves on), export! again: only those.
	m, _ = pressAll(t, m, " ", "j", " ")
	require.Contains(t, m.View(), table.MarkMark)
	m, notes = settle(t, m, send(common.ExportMsg{Tab: testTab, Path: path, Force: true}))
	require.Contains(t, infoText(notes), "2 rows")
	recs = readCSV(t, path)
	require.Len(t, recs, 3)
	col := indexOf(recs[0], "deliveryAttemptId")
	require.Equal(t, []string{"da-00000", "da-00002"}, []string{recs[1][col], recs[2][col]})

	// * marks every filtered row; * again clears.
	m, n := pressAll(t, m, "*")
	require.Contains(t, n, "5 rows marked")
	_, n = pressAll(t, m, "*")
	require.Contains(t, n, "marks cleared")

	_, notes = settle(t, m, send(common.ExportMsg{Tab: testTab, Path: filepath.Join(t.TempDir(), "x.txt")}))
	require.Contains(t, infoText(notes), "does not end in .csv or .json")
}

func indexOf(cols []string, name string) int {
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	return -1
}
