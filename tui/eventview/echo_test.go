package eventview

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/tui/common/commontest"
)

// TestPathAndFilterEchoIsSanitised: the path (p) and the findings
// filter (/) show pasted invisible characters made visible.
func TestPathAndFilterEchoIsSanitised(t *testing.T) {
	m := New(testCommon(100, 30), Options{Dir: t.TempDir()})
	m = run(t, m, m.Init())
	m = press(t, m, "p")
	require.Equal(t, inPath, m.focus)
	m, _ = m.Update(commontest.Paste(commontest.HostilePaste))
	commontest.RequireSafeEcho(t, m.View())

	m = opened(t, testdata("batch_issues.json"), 100, 30)
	m = press(t, m, "/")
	require.Equal(t, inFilter, m.focus)
	m, _ = m.Update(commontest.Paste(commontest.HostilePaste))
	commontest.RequireSafeEcho(t, m.View())
}
