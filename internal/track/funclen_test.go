package track

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/testshared/codesize"
)

// TestNoLongFunctions: no hand-written function of the index (its
// tests' world builders and property walks aside) is longer than
// codesize.MaxFuncLines lines (issue 20 §5).
func TestNoLongFunctions(t *testing.T) {
	long, err := codesize.LongFuncsIn(".", false, codesize.MaxFuncLines)
	require.NoError(t, err)
	require.Empty(t, long, "split these along their seams")
}
