package eventview

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
)

// hostilePaste is what the audit pasted into every text input: bidi
// overrides and isolates, zero-width and invisible characters, line
// separators, C1 controls (finding 5).
const hostilePaste = "Z\u202eRLO\u2066LRI\u200bZWSP\u009bCSI\u0085NEL\ufeffBOM\u061cALM\u2028LS\u00adSHY-Q"

func paste(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true} }

// requireSafeEcho fails when the screen echoes one of hostilePaste's
// dangerous runes raw; it shows them as <U+XXXX>.
func requireSafeEcho(t *testing.T, view string) {
	t.Helper()
	for _, r := range "\u202e\u2066\u200b\u009b\u0085\ufeff\u061c\u2028\u00ad" {
		require.NotContains(t, view, string(r), "%U echoed raw", r)
	}
	require.Regexp(t, `<U\+(202E|FEFF|00AD)>`, view, "the pasted text is shown, made visible")
}

// TestPathAndFilterEchoIsSanitised: the path (p) and the findings
// filter (/) show pasted invisible characters made visible.
func TestPathAndFilterEchoIsSanitised(t *testing.T) {
	m := New(testCommon(100, 30), Options{Dir: t.TempDir()})
	m = run(t, m, m.Init())
	m = press(t, m, "p")
	require.Equal(t, inPath, m.focus)
	m, _ = m.Update(paste(hostilePaste))
	requireSafeEcho(t, m.View())

	m = opened(t, testdata("batch_issues.json"), 100, 30)
	m = press(t, m, "/")
	require.Equal(t, inFilter, m.focus)
	m, _ = m.Update(paste(hostilePaste))
	requireSafeEcho(t, m.View())
}
