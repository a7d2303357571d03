package tui

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/testshared/codesize"
)

// TestNoLongFunctions: no hand-written function under tui/ (tests
// included) is longer than codesize.MaxFuncLines lines (issue 20 §5); a
// longer one is split along its seams. Generated files are left out.
func TestNoLongFunctions(t *testing.T) {
	long, err := codesize.LongFuncsIn(".", true, codesize.MaxFuncLines)
	require.NoError(t, err)
	require.Empty(t, long, "split these along their seams")
}
