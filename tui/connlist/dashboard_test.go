package connlist

import (
	"context"
	"errors"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
)

// fakeDashboard answers from a map; names not in it fail.
type fakeDashboard map[string]track.Figures

func (d fakeDashboard) Figures(_ context.Context, name string) (track.Figures, error) {
	f, ok := d[name]
	if !ok {
		return f, errors.New("no profile \x1b[2J" + name)
	}
	return f, nil
}

func TestDashboardFigures(t *testing.T) {
	now := time.Date(2026, 3, 12, 12, 0, 0, 0, time.UTC)
	full := track.Figures{Refused: 1, Awaiting: 2, Overdue: 1, NeedsAction: 1}
	created := make([]time.Time, 50)
	for i := range created {
		created[i] = now.Add(-time.Duration(i+1) * 30 * time.Minute)
	}
	full.AddMailboxPage(created, true, now)
	quiet := track.Figures{}
	quiet.AddMailboxPage(nil, false, now)
	src := &memSource{rows: []Row{{Name: "acme-de"}, {Name: "acme-at"}, {Name: "gone"}}}
	src.states = src.rows
	c := &common.Common{Styles: common.NewStyles(true), Now: func() time.Time { return now }}
	m := New(context.Background(), c, src, Options{Dashboard: fakeDashboard{"acme-de": full, "acme-at": quiet}}).SetSize(160, 40)
	var ticks []time.Duration
	m.tick = func(d time.Duration, _ func(time.Time) tea.Msg) tea.Cmd { ticks = append(ticks, d); return nil }

	m, _ = m.Update(run(m.Init())[0])
	require.Contains(t, m.View(), "reading the mailbox's first page and this machine's files…", "the list shows before any figure")
	m, cmd := m.Update(run(m.loadStates())[0])
	require.Equal(t, []time.Duration{RefreshEvery}, ticks, "the next round is scheduled")
	for _, msg := range run(cmd) {
		m, _ = m.Update(msg)
	}
	v := m.View()
	require.Contains(t, v, "50+ due (page 1) · oldest 25h (page 1) · age <1h ▁1 1-6h ▂10 6-24h █36")
	require.Contains(t, v, "refused here 1 · awaiting answer 2 · overdue 1 · needs action 1 (this machine's files)")
	require.Contains(t, v, "none due")
	require.Contains(t, v, "figures not available: no profile ^[[2Jgone", "errors are sanitised")

	// a reload drops the older round's late answers
	stale := figuresMsg{gen: m.gen, name: "acme-at", fig: full}
	m, _ = m.Reload()
	m, _ = m.Update(stale)
	require.NotEqual(t, full, m.figs["acme-at"].fig)
	// the tick of an old round starts nothing
	_, cmd = m.Update(figuresTick{gen: m.gen - 1})
	require.Nil(t, cmd)
}
