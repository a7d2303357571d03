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
	files, err := codesize.Files(".", false)
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var long []string
	for _, f := range files {
		got, err := codesize.LongFuncs(f, codesize.MaxFuncLines)
		require.NoError(t, err)
		long = append(long, got...)
	}
	require.Empty(t, long, "split these along their seams")
}
