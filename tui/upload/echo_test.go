package upload

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

// TestKeyEchoIsSanitised: the Idempotency-Key input shows pasted
// invisible characters made visible (and refuses them as a key).
func TestKeyEchoIsSanitised(t *testing.T) {
	e := newSimEnv(t)
	m := e.open(t, Options{Path: e.file(t, "po.edi", orders("REF1", 1, "PO-4711"))})
	m = press(t, m, "e")
	m.keyIn.SetValue("")
	m, _ = m.Update(paste(hostilePaste))
	requireSafeEcho(t, m.View())
}
