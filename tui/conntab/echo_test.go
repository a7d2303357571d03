package conntab

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/tui/common/commontest"
)

// TestFilterEchoIsSanitised: the / filter shows a pasted bidi override
// as <U+202E>; the filter still matches what was typed.
func TestFilterEchoIsSanitised(t *testing.T) {
	m, _, _ := newTest(t, 3, 10)
	m, _ = pressAll(t, m, "/")
	m, _ = m.Update(commontest.Paste(commontest.HostilePaste))
	require.NotNil(t, topOf[filterScreen](m), "the filter has the keys")
	commontest.RequireSafeEcho(t, m.View())
	require.Contains(t, m.table.Filter(), "\u202e", "the typed value is used as typed")
}
