package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHoldTerminal: while a full-screen program runs, a hard exit leaves
// the alternate screen and shows the cursor; once the program has ended
// (release), a hard exit writes nothing.
func TestHoldTerminal(t *testing.T) {
	var out bytes.Buffer
	release := holdTerminal(strings.NewReader(""), &out)
	runHardExitHooks()
	require.Equal(t, leaveScreen, out.String())
	require.Contains(t, leaveScreen, "\x1b[?1049l", "the alternate screen is left")
	require.Contains(t, leaveScreen, "\x1b[?25h", "the cursor is shown")

	out.Reset()
	release()
	release = holdTerminal(strings.NewReader(""), &out)
	release()
	runHardExitHooks()
	require.Empty(t, out.String(), "released: nothing to restore")
}
