package logview

import (
	"log/slog"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/tui/common"
)

func newModel(t *testing.T) (Model, *slog.Logger) {
	t.Helper()
	h := New(100, nil)
	c := &common.Common{Styles: common.NewStyles(true)}
	return NewModel(c, h).SetSize(80, 10), slog.New(h)
}

func TestModelShowsRecordsOnOpen(t *testing.T) {
	m, log := newModel(t)
	require.Contains(t, m.View(), "Session log (0)")
	log.Info("partner api call", "op", "list", "correlationId", "corr-42")
	m, cmd := m.Open()
	require.NotNil(t, cmd, "an open view ticks")
	v := m.View()
	require.Contains(t, v, "Session log (1)")
	require.Contains(t, v, "correlationId=corr-42")
}

func TestModelEmptyExplains(t *testing.T) {
	m, _ := newModel(t)
	m, _ = m.Open()
	require.Contains(t, m.View(), "Nothing logged yet")
}

func TestModelTickReloadsWhileOpenOnly(t *testing.T) {
	m, log := newModel(t)
	m, _ = m.Open()
	gen := m.gen
	log.Info("later", "op", "claim")

	m, cmd := m.Update(TickMsg{gen: gen})
	require.NotNil(t, cmd, "keeps ticking while open")
	require.Contains(t, m.View(), "later")

	log.Info("after close", "op", "ack")
	m = m.Close()
	m, cmd = m.Update(TickMsg{gen: gen})
	require.Nil(t, cmd, "a closed view stops ticking")
	require.NotContains(t, m.View(), "after close")

	// A tick of an earlier opening is ignored, so two ticks never run at once.
	m, _ = m.Open()
	_, cmd = m.Update(TickMsg{gen: gen})
	require.Nil(t, cmd)
}

func TestModelFollowsTheNewestAndScrolls(t *testing.T) {
	m, log := newModel(t)
	for range 30 {
		log.Info("row", "op", "list")
	}
	log.Info("newest", "op", "ack")
	m, _ = m.Open()
	require.Contains(t, m.View(), "newest")
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("g")})
	require.NotContains(t, m.View(), "newest")
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("G")})
	require.Contains(t, m.View(), "newest")
	require.LessOrEqual(t, strings.Count(m.View(), "\n")+1, 10)
}

// TestModelWrapsAt80: at the smallest terminal (80×24) a record wider
// than the screen wraps at spaces, so every correlation ID is whole on
// screen; the wrapped records scroll.
func TestModelWrapsAt80(t *testing.T) {
	h := New(100, nil)
	c := &common.Common{Styles: common.NewStyles(true)}
	log := slog.New(h)
	ids := []string{"0c2b7e4e-5d7a-4f0b-9a53-1f6e2d7c8b9a", "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"}
	for i := range 12 {
		log.Info("partner api call answered", "op", "claim", "status", 200, "duration", "12ms",
			"deliveryAttemptId", "da-"+strings.Repeat("7", 30), "correlationId", ids[i%2])
	}
	m, _ := NewModel(c, h).SetSize(80, 22).Open()
	v := m.View()
	for _, l := range strings.Split(v, "\n") {
		require.LessOrEqual(t, ansi.StringWidth(l), 80, "%q", l)
	}
	require.Contains(t, v, "correlationId="+ids[1], "the newest record's ID is whole")
	require.Regexp(t, `\n    \S`, v, "continuation lines are indented")

	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("g")})
	top := m.View()
	require.Contains(t, top, "correlationId="+ids[0], "the oldest record's ID is whole")
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")})
	require.NotEqual(t, top, m.View(), "j scrolls")

	// Wider again: one line per record.
	m = m.SetSize(200, 22)
	require.NotRegexp(t, `\n    \S`, m.View())
}

func TestWrapWordsKeepsIDsWhole(t *testing.T) {
	id := "connectionId=3c0394dd-136a-40b5-b0c2-1f3003083d8a"
	lines := wrapWords("23:47:48 DBG worker step done step=verify correlationId=2468c55e8735a09679c90d642af5da94 deliveryAttemptId=9c616806-e504-41a4-84b3-ac71092787fa "+id, 80)
	require.Equal(t, []string{
		"23:47:48 DBG worker step done step=verify",
		"correlationId=2468c55e8735a09679c90d642af5da94",
		"deliveryAttemptId=9c616806-e504-41a4-84b3-ac71092787fa",
		id,
	}, lines)
	for i, l := range lines {
		room := 80
		if i > 0 {
			room -= len(indent)
		}
		require.LessOrEqual(t, ansi.StringWidth(l), room)
	}
	long := strings.Repeat("x", 200)
	lines = wrapWords("a "+long, 80)
	require.Equal(t, "a", lines[0])
	require.Equal(t, long, strings.Join(lines[1:], ""), "a word wider than the screen is cut, nothing lost")
}
