package eventview

import (
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/tui/common/commontest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/tui/common"
)

// host runs the screen as a program of its own, as the shell does: it
// passes the size, quits on ctrl+c or when the screen is done.
type host struct {
	c *common.Common
	m Model
}

func (h host) Init() tea.Cmd { return h.m.Init() }

func (h host) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		h.c.Width, h.c.Height = msg.Width, msg.Height
		h.m = h.m.SetSize(msg.Width, msg.Height)
		return h, nil
	case tea.KeyMsg:
		if msg.Type == tea.KeyCtrlC {
			return h, tea.Quit
		}
	}
	var cmd tea.Cmd
	h.m, cmd = h.m.Update(msg)
	if h.m.Done() {
		return h, tea.Quit
	}
	return h, cmd
}

func (h host) View() string { return h.m.View() }

// waitFor waits until the output shows every string (commontest.WaitFor).
func waitFor(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	commontest.WaitFor(t, tm.Output(), want...)
}

// TestFlowBatchWithDuplicateAndGap: open the screen on apiclient/events/testdata,
// type the batch's name, and the findings show NB-E005 and the sequences
// the sender must replay; / narrows to the gap, whose detail names the
// parked event; esc clears the filter, esc closes.
func TestFlowBatchWithDuplicateAndGap(t *testing.T) {
	c := testCommon(100, 30)
	tm := teatest.NewTestModel(t, host{c: c, m: New(c, Options{Dir: testdata("")})}, teatest.WithInitialTermSize(100, 30))
	waitFor(t, tm, "batch_issues.json", "captures")
	tm.Type("p")
	tm.Type("batch_issues.json")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor(t, tm, "DUPLICATE NB-E005", "DUPLICATE_CONFLICT NB-E005", "the sender must replay 4-5", "parked 6 (NB-E006)")
	tm.Type("/sequence_gap")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor(t, tm, "Finding SEQUENCE_GAP NB-E006")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitFor(t, tm, "[Findings 6]")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(host).m
	require.True(t, final.Done())
	require.Len(t, final.visible, 6)
	require.Equal(t, events.CodeSequenceGap, selected(final), "clearing the filter keeps the selection")
	requireContains(t, final.View(), "batch_issues.json", "✗ 4012345000009 / PO-4711: the sender must replay 4-5")
}
