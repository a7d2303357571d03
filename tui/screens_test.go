package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

// openedViewer is the viewer an Opened carries.
func openedViewer(o common.Opened) viewer.Model {
	v, _ := viewer.FromScreen(o.Screen)
	return v
}

// run runs cmd (and its batches) and feeds every message back, like the
// program would, until nothing is left.
func run(t *testing.T, m Model, cmd tea.Cmd) Model {
	t.Helper()
	for _, msg := range collect(cmd) {
		if msg == nil {
			continue
		}
		var next tea.Cmd
		m, next = updateCmd(t, m, msg)
		m = run(t, m, next)
	}
	return m
}

// command types a command line and runs what it starts.
func command(t *testing.T, m Model, line string) Model {
	t.Helper()
	m = typeText(t, press(t, m, ":"), line)
	m, cmd := updateCmd(t, m, keyMsg("enter"))
	return run(t, m, cmd)
}

func fixturePath(name string) string {
	return filepath.Join("..", "testdata", "edifact", name)
}

// TestViewCommandOnTheConnectionList: :view PATH opens the segment
// viewer over the page; q and esc close it; its file is closed then.
func TestViewCommandOnTheConnectionList(t *testing.T) {
	m, _ := newTestModel(t)
	m = command(t, m, "view "+fixturePath("contrl_22_rejected.edi"))
	require.NotNil(t, shellViewer(m), "%s", m.foot.err)
	v := m.View()
	require.Contains(t, v, "CONTRL for interchange ICR0009: REJECTED, 2 errors")
	require.Contains(t, v, "viewer", "the status bar says what is shown")
	for _, l := range lines(v) {
		require.LessOrEqual(t, len([]rune(l)), 100)
	}
	require.Len(t, lines(v), 30, "the frame is the terminal's height")

	// The viewer's keys reach it; its search comes back to it.
	m = run(t, press(t, m, "/"), nil)
	require.True(t, shellViewer(m).Capturing())
	m, cmd := updateCmd(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("UCD")})
	m = run(t, m, cmd)
	m, cmd = updateCmd(t, m, keyMsg("enter"))
	m = run(t, m, cmd)
	require.Equal(t, 6, shellViewer(m).Cursor(), "the search moved to the UCD")

	// ? is the shell's help, naming the viewer's keys.
	m = press(t, m, "?")
	require.Contains(t, m.View(), "Keys: segment viewer")
	m = press(t, m, "esc")

	v1 := shellViewer(m)
	m, cmd = updateCmd(t, m, keyMsg("q"))
	require.False(t, isQuit(cmd), "q closes the viewer, it does not quit")
	require.Nil(t, shellViewer(m))
	require.Error(t, v1.Err(), "its file is closed")
	require.Contains(t, m.View(), "connection profiles", "the page under it is back")
}

func TestViewCommandErrors(t *testing.T) {
	m, _ := newTestModel(t)
	m = command(t, m, "view")
	require.Contains(t, m.foot.err, ":view needs a file")
	m = press(t, m, "esc")
	m = command(t, m, "view "+filepath.Join(t.TempDir(), "missing.edi"))
	require.Contains(t, m.foot.err, "the viewer cannot open it")
	require.Nil(t, shellViewer(m))

	// A second :view before the first opened: the first is stopped and
	// only the second is shown.
	m = press(t, m, "esc")
	m, first := m.openView(fixturePath("contrl_22.edi"))
	m, second := m.openView(fixturePath("contrl_22_rejected.edi"))
	stale := first().(common.Opened)
	require.ErrorIs(t, stale.Err, context.Canceled, "the replaced open stopped")
	require.Nil(t, stale.Screen)
	m = run(t, m, second)
	m = update(t, m, stale)
	require.Contains(t, m.View(), "REJECTED")
	require.Empty(t, m.foot.err, "a stopped open says nothing")

	// An open that finished before it was replaced is closed, not shown.
	m = press(t, m, "q")
	m, first = m.openView(fixturePath("contrl_22.edi"))
	done := first().(common.Opened)
	m, second = m.openView(fixturePath("contrl_22_rejected.edi"))
	m = run(t, m, second)
	m = update(t, m, done)
	require.Error(t, openedViewer(done).Err(), "the stale file was closed")
	require.Contains(t, m.View(), "REJECTED")
}

// TestViewCommandInATab: in a connection tab :view goes to the tab (its
// viewer sits next to v and D there).
func TestViewCommandInATab(t *testing.T) {
	m, be := newTestModel(t)
	m = open(t, m, "acme-de")
	m = command(t, m, "view ~/orders/po.edi")
	got := be.state("acme-de").received()
	require.NotEmpty(t, got)
	require.Equal(t, "view:~/orders/po.edi", got[len(got)-1], "the tab expands ~/ itself")
	require.Nil(t, shellViewer(m))
}

// TestQClosesATabsOverlay: while a tab shows a screen over its mailbox,
// q goes to the tab (which closes it) instead of quitting.
func TestQClosesATabsOverlay(t *testing.T) {
	m, be := newTestModel(t)
	m = open(t, m, "acme-de")
	st := be.state("acme-de")
	st.mu.Lock()
	st.overlay = true
	st.mu.Unlock()
	m, cmd := updateCmd(t, m, keyMsg("q"))
	require.False(t, isQuit(cmd))
	require.Equal(t, "key:q", st.received()[len(st.received())-1])
	st.mu.Lock()
	st.overlay = false
	st.mu.Unlock()
	_, cmd = updateCmd(t, m, keyMsg("q"))
	require.True(t, isQuit(cmd), "without the overlay q quits (nothing pending)")
	require.False(t, strings.Contains(m.View(), "viewer"))
}

// TestRunesReadTogetherAreKeys: keys that arrive as one message (tmux,
// typing fast) act one by one: ":view PATH" opens the command line and
// types the rest into it. In a text input they stay text; a paste is
// never split into commands.
func TestRunesReadTogetherAreKeys(t *testing.T) {
	m, be := newTestModel(t)
	m = update(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(":view " + fixturePath("contrl_22.edi"))})
	require.Equal(t, modeCommand, mode(m))
	require.Equal(t, "view "+fixturePath("contrl_22.edi"), cmdline(m))
	m, cmd := updateCmd(t, m, keyMsg("enter"))
	m = run(t, m, cmd)
	require.NotNil(t, shellViewer(m), "%s", m.foot.err)
	m = press(t, m, "q")

	m = open(t, m, "acme-de")
	st := be.state("acme-de")
	m = update(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("xx")})
	got := st.received()
	require.Equal(t, []string{"key:x", "key:x"}, got[len(got)-2:], "each key reaches the tab")

	st.mu.Lock()
	st.capturing = true
	st.mu.Unlock()
	m = update(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("PO-1")})
	got = st.received()
	require.Equal(t, "key:PO-1", got[len(got)-1], "a text input gets the runes as typed")
	st.mu.Lock()
	st.capturing = false
	st.mu.Unlock()
	n := len(st.received())
	m = update(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("qP"), Paste: true})
	require.Len(t, st.received(), n+1, "a paste is one message, never a q and a P")
	require.Equal(t, modeNormal, mode(m))
}

// TestViewCommandRefusesADevice: :view /dev/zero says at once that it is
// no file, instead of reading a GiB first.
func TestViewCommandRefusesADevice(t *testing.T) {
	m, _ := newTestModel(t)
	m = command(t, m, "view /dev/zero")
	require.Contains(t, m.foot.err, "the viewer cannot open it: cannot read /dev/zero: not a regular file")
	require.Nil(t, shellViewer(m))
	require.Empty(t, m.screens.Preparing(), "nothing is waited for any more")
}

// TestCommandLineEchoIsSanitised: the : line shows a pasted bidi
// override or zero-width space made visible (finding 5).
func TestCommandLineEchoIsSanitised(t *testing.T) {
	m, _ := newTestModel(t)
	m = press(t, m, ":")
	m = update(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("view Z\u202eRLO\u200bZWSP\u2066"), Paste: true})
	foot := m.footerView()
	for _, r := range "\u202e\u200b\u2066" {
		require.NotContains(t, foot, string(r))
	}
	require.Contains(t, foot, ":view Z<U+202E>RLO<U+200B>ZWSP<U+2066>")
	require.Equal(t, "view Z\u202eRLO\u200bZWSP\u2066", cmdline(m), "the line runs as typed")
}

// TestQClosesEveryScreen: q closes the screen on top, whatever it is
// (help, log, event inspector, viewer), and quits only once none is
// left; esc does the same at rest.
func TestQClosesEveryScreen(t *testing.T) {
	m, _ := newTestModel(t)
	m = pressSettle(t, m, "e")
	m = command(t, m, "view "+fixturePath("contrl_22.edi"))
	m = press(t, typeText(t, press(t, m, ":"), "log"), "enter", "?") // the log's tick is not run
	require.Equal(t, []string{"event inspector", "segment viewer", "session log", "help"}, titles(m))
	for _, want := range [][]string{{"event inspector", "segment viewer", "session log"}, {"event inspector", "segment viewer"}, {"event inspector"}, {}} {
		var cmd tea.Cmd
		m, cmd = updateCmd(t, m, keyMsg("q"))
		require.False(t, isQuit(cmd), "q closes a screen before it quits")
		require.Equal(t, want, titles(m))
	}
	m = pressSettle(t, m, "e", "esc")
	require.Empty(t, titles(m), "esc closes the inspector at rest")
	_, cmd := updateCmd(t, m, keyMsg("q"))
	require.True(t, isQuit(cmd), "with no screen open q quits")
}

// TestInspectorResultsCarryTheirOwner: the event inspector's results
// come back addressed to the root stack and its screen, not broadcast
// to every tab.
func TestInspectorResultsCarryTheirOwner(t *testing.T) {
	m, be := newTestModel(t)
	m = open(t, m, "acme-de")
	m = typeText(t, press(t, m, ":"), "events "+batchIssues)
	m, cmd := updateCmd(t, m, keyMsg("enter"))
	msgs := collect(cmd)
	require.NotEmpty(t, msgs)
	for _, msg := range msgs {
		sm, ok := msg.(common.ScreenMsg)
		require.True(t, ok, "%T", msg)
		require.Equal(t, common.RootOwner, sm.Owner())
		m = update(t, m, msg)
	}
	require.Contains(t, m.View(), "DUPLICATE_CONFLICT NB-E005")
	require.Empty(t, be.state("acme-de").received(), "the tab got none of them")
}

// titles are the root stack's screens, bottom first.
func titles(m Model) []string {
	out := []string{}
	for _, s := range m.screens.Screens() {
		out = append(out, s.Title())
	}
	return out
}
