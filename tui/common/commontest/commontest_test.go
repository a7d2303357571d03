package commontest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Key's names are bubbletea's own: the message it builds reads back as
// the name, so key.Matches in the screens sees what a terminal sends.
func TestKeyReadsBackAsItsName(t *testing.T) {
	for name := range named {
		require.Equal(t, name, Key(name).String())
	}
	require.Equal(t, "q", Key("q").String())
	require.Equal(t, "jk", Key("jk").String(), "several runes read at once")
}
