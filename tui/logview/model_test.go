package logview

import (
	"log/slog"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
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
