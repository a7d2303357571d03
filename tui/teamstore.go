package tui

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// TeamStore is the team store's outbox as the app sees it (cmd/b2bx
// builds it from internal/outbox when config.toml has a [store]): each
// connection's spool queues what it stores into it, and the status bar
// shows its line. Without one nothing is queued or shown.
type TeamStore interface {
	// Attach makes s queue what it stores (after each durable write).
	Attach(s *spool.Store)
	// StatusLine is "team store: 12 waiting, unreachable since 09:10";
	// it must be quick (it is read once a second).
	StatusLine() string
}

// teamTick is how often the status bar's team store line is refreshed.
const teamTick = time.Second

// teamTickMsg refreshes the team store line.
type teamTickMsg struct{}

func teamTickCmd() tea.Cmd {
	return tea.Tick(teamTick, func(time.Time) tea.Msg { return teamTickMsg{} })
}

// teamTicked reads the team store's line (IO-free: the pusher keeps its
// status in memory), and why the team's data is not read if it is not
// (this machine's answers), and schedules the next read.
func (m Model) teamTicked() (Model, tea.Cmd) {
	if m.team == nil && m.teamData == nil {
		return m, nil
	}
	var segs []string
	if m.team != nil {
		if l := m.team.StatusLine(); l != "" {
			segs = append(segs, l)
		}
	}
	if m.teamData != nil {
		if n := m.teamData.Note(); n != "" {
			segs = append(segs, termsafe.String(n))
		}
	}
	m.teamLine = strings.Join(segs, " · ")
	return m, teamTickCmd()
}
