package common

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/textinput"
	"github.com/stretchr/testify/require"
)

// hostile are the runes the audit pasted into every input: bidi
// overrides and isolates, zero-width and invisible format characters,
// separators, C1 controls.
const hostile = "Z\u202eRLO\u2066LRI\u200bZWSP\u009bCSI\u0085NEL\ufeffBOM\u061cALM\u2028LS\u00adSHY\x1b[31m-Q"

// RequireSafeEcho fails when view holds a rune of hostile raw.
func requireSafeEcho(t *testing.T, view string) {
	t.Helper()
	for _, r := range "\u202e\u2066\u200b\u009b\u0085\ufeff\u061c\u2028\u00ad\x1b" {
		require.NotContains(t, view, string(r), "%U echoed raw", r)
	}
}

func TestInputViewSanitisesTheEcho(t *testing.T) {
	in := textinput.New()
	in.Prompt = ":"
	in.CharLimit = 200
	in.Focus()
	in.SetValue(hostile)
	v := InputView(in)
	requireSafeEcho(t, v)
	require.Contains(t, v, "Z<U+202E>RLO<U+2066>LRI")
	require.Contains(t, in.Value(), "Z\u202eRLO\u2066LRI", "the value stays as typed")

	// The cursor stays on the same character: before "RLO" here.
	in.SetCursor(2)
	require.Contains(t, InputView(in), "Z<U+202E>")

	// A masked input echoes its mask only.
	in.EchoMode, in.EchoCharacter = textinput.EchoPassword, '•'
	require.NotContains(t, InputView(in), "RLO")

	// Plain text is drawn as the textinput draws it.
	in.EchoMode = textinput.EchoNormal
	in.SetValue("PO-4711")
	require.Equal(t, in.View(), InputView(in))
	require.True(t, strings.HasPrefix(InputView(in), ":PO-4711"))
}
