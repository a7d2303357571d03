package viewer

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

// TestSearchEchoIsSanitised: the search input shows pasted invisible
// characters made visible.
func TestSearchEchoIsSanitised(t *testing.T) {
	m := open(t, fixture("contrl_22.edi"))
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/")})
	require.True(t, m.Capturing())
	m, _ = m.Update(paste(hostilePaste))
	requireSafeEcho(t, m.View())
}
