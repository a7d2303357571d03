package conntab

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBulkProcessPreviewThenRun: P with marked rows shows the plan and
// runs nothing until y; y processes the marked entries in the worker
// order, one by one.
func TestBulkProcessPreviewThenRun(t *testing.T) {
	m, be, _ := newTest(t, 5, 50)
	m, _ = pressAll(t, m, " ", "j", " ") // da-00000 and da-00002
	m, _ = pressAll(t, m, "P")
	p, ok := m.stack.Top().(previewScreen)
	require.True(t, ok, "a preview first: %T", m.stack.Top())
	require.Empty(t, be.claimed(), "nothing runs before y")
	v := flat(m.View())
	require.Contains(t, v, "da-00000")
	require.Contains(t, v, "da-00002")
	require.NotNil(t, p.yes)

	m, _ = pressAll(t, m, "y")
	require.Equal(t, []string{"da-00000", "da-00002"}, be.claimed())
	require.Empty(t, m.bulk)
	require.False(t, m.auto)
	require.Empty(t, m.marks, "the marks are used up")
}

// TestBulkProcessStopsAtFirstFailure: a failing entry stops the run; the
// entries after it are not claimed. N runs nothing.
func TestBulkProcessStopsAtFirstFailure(t *testing.T) {
	m, be, _ := newTest(t, 5, 50)
	be.fetchErr = map[string]error{"da-00001": errors.New("boom")}
	m, _ = pressAll(t, m, "*")
	m, _ = pressAll(t, m, "P", "N")
	require.Empty(t, be.claimed(), "N runs nothing")
	m, _ = pressAll(t, m, "P", "y")
	require.Equal(t, []string{"da-00000", "da-00001"}, be.claimed(), "stopped at the failure")
	require.Empty(t, m.bulk)
}
