package commontest

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

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

func TestMessagesDropsNilAndFlattensBatches(t *testing.T) {
	say := func(m tea.Msg) tea.Cmd { return func() tea.Msg { return m } }
	require.Equal(t, []tea.Msg{"a", "b"}, Messages(tea.Batch(say("a"), say(nil), tea.Batch(say("b")))))
	require.Len(t, Collect(tea.Batch(say("a"), say(nil))), 2, "Collect keeps the nil")
	require.Nil(t, Messages(nil))
}
