package connlist

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/tui/common/commontest"
)

// TestFormEchoIsSanitised: the first-run form's fields show pasted
// invisible characters made visible.
func TestFormEchoIsSanitised(t *testing.T) {
	m := newList(&memSource{})
	m, _ = step(t, m, run(m.Init())[0])
	m, _ = keys(t, m, runes("+"))
	require.True(t, m.Capturing())
	m, _ = keys(t, m, commontest.Paste(commontest.HostilePaste))
	commontest.RequireSafeEcho(t, m.View())
}
