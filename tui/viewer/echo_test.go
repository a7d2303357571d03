package viewer

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/tui/common/commontest"
)

// TestSearchEchoIsSanitised: the search input shows pasted invisible
// characters made visible.
func TestSearchEchoIsSanitised(t *testing.T) {
	m := open(t, fixture("contrl_22.edi"))
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/")})
	require.True(t, m.Capturing())
	m, _ = m.Update(commontest.Paste(commontest.HostilePaste))
	commontest.RequireSafeEcho(t, m.View())
}
