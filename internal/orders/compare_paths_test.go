package orders

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ComparePaths: the diff of two named files (a timeline's ORDRSP step),
// and an error naming the file that cannot be read.
func TestComparePaths(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "edifact")
	diffs, err := ComparePaths(t.Context(), filepath.Join(dir, "orders_d96a.edi"), filepath.Join(dir, "ordrsp_d96a.edi"))
	require.NoError(t, err)
	require.Len(t, diffs, 1)
	require.Contains(t, diffs[0].Headline(), "for order PO-4711")
	require.Contains(t, strings.Join(diffs[0].Rows(false), "\n"), "quantity 12 → 6")

	_, err = ComparePaths(t.Context(), filepath.Join(dir, "gone.edi"), filepath.Join(dir, "ordrsp_d96a.edi"))
	require.ErrorContains(t, err, "gone.edi")
}
