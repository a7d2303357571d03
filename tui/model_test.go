package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/tui/common"
)

func TestResultsGoToTheirOwnerOnly(t *testing.T) {
	m, be := newTestModel(t)
	m = open(t, m, "acme-de")
	m = open(t, m, "acme-at")
	de, at := m.tabs[0], m.tabs[1]
	require.NotEqual(t, de.id, at.id)

	m = update(t, m, fakeResult{owner: de.id, text: "page for de"})
	m = update(t, m, fakeResult{owner: at.id, text: "page for at"})
	require.Equal(t, []string{"result:page for de"}, be.state("acme-de").received())
	require.Equal(t, []string{"result:page for at"}, be.state("acme-at").received())

	// The active tab (acme-at) does not get de's result, whichever is active.
	m = press(t, m, "1")
	m = update(t, m, fakeResult{owner: at.id, text: "late for at"})
	require.Equal(t, []string{"result:page for de"}, be.state("acme-de").received())
	_ = m
}

func TestResultForAClosedTabIsDropped(t *testing.T) {
	m, be := newTestModel(t)
	m = open(t, m, "acme-de")
	m = open(t, m, "acme-at")
	deID := m.tabs[0].id
	m = press(t, m, "1", "ctrl+w")
	require.Len(t, m.tabs, 1)
	require.Equal(t, 1, be.state("acme-de").closed, "closing a tab cancels its work once")

	m = update(t, m, fakeResult{owner: deID, text: "stale page"})
	require.Empty(t, be.state("acme-de").received())
	require.Empty(t, be.state("acme-at").received(), "a stale result never lands in another tab")

	// A reopened connection gets a new ID: the old tab's late results
	// still match nothing.
	m = open(t, m, "acme-de")
	require.NotEqual(t, deID, m.tabs[len(m.tabs)-1].id)
	m = update(t, m, fakeResult{owner: deID, text: "older still"})
	require.Empty(t, be.state("acme-de").received())
}

// heldResult is an owned result holding something (like a claim's lease).
type heldResult struct {
	owner   common.TabID
	dropped *int
}

func (r heldResult) Owner() common.TabID { return r.owner }
func (r heldResult) Drop()               { *r.dropped++ }

func TestDroppedResultLetsGo(t *testing.T) {
	m, _ := newTestModel(t)
	m = open(t, m, "acme-de")
	id := m.tabs[0].id
	n := 0
	m = update(t, m, heldResult{owner: id, dropped: &n})
	require.Zero(t, n, "a live tab takes it")
	m = press(t, m, "ctrl+w")
	update(t, m, heldResult{owner: id, dropped: &n})
	require.Equal(t, 1, n, "the closed tab's result is let go of")
}

func TestErrorFromAClosedTabIsDropped(t *testing.T) {
	m, _ := newTestModel(t)
	m = open(t, m, "acme-de")
	id := m.tabs[0].id
	m = update(t, m, common.ErrorMsg{Tab: id, Code: "ERR_B2B_EXCHANGE_UNAVAILABLE", Action: "retry with backoff", CorrelationID: "corr-7", Text: "list: HTTP 503"})
	v := m.View()
	require.Contains(t, v, "acme-de: list: HTTP 503 [ERR_B2B_EXCHANGE_UNAVAILABLE]")
	require.Contains(t, v, "corr-7")

	m = press(t, m, "esc")
	require.NotContains(t, m.View(), "HTTP 503", "esc dismisses the error")

	m = press(t, m, "ctrl+w")
	m = update(t, m, common.ErrorMsg{Tab: id, Text: "late failure"})
	require.NotContains(t, m.View(), "late failure")
}

func TestErrorsStayUntilDismissed(t *testing.T) {
	m, _ := newTestModel(t)
	m = update(t, m, common.Info{Text: "boom", Err: true})
	m = press(t, m, "j", "k", "]", "[")
	require.Contains(t, m.View(), "boom", "other keys leave an error")
	require.Contains(t, m.footerView(), "esc dismiss the error")
	m = update(t, m, common.Info{Text: "a passing note"})
	require.Contains(t, m.View(), "a passing note")
	m = press(t, m, "j")
	require.NotContains(t, m.View(), "a passing note", "a note goes with the next key")
	m = press(t, m, "esc")
	require.NotContains(t, m.View(), "boom")
}

func TestOpenFailureShowsInFooter(t *testing.T) {
	m, _ := newTestModel(t)
	m, cmd := m.openConn("bad", true)
	m = update(t, m, cmd())
	require.Empty(t, m.tabs)
	require.Contains(t, m.View(), `opening bad: no profile "bad"`)
}

func TestAPIErrorFieldsInFooter(t *testing.T) {
	e := errorMsgOf(&apiclient.APIError{Op: "list mailbox", HTTPStatus: 503, Code: apiclient.CodeUnavailable,
		Message: "busy\x1b[2J", Action: "retry with backoff", CorrelationID: "corr-1"})
	require.Equal(t, apiclient.CodeUnavailable, e.Code)
	require.Equal(t, "retry with backoff", e.Action)
	require.Equal(t, "corr-1", e.CorrelationID)
	require.NotContains(t, e.Text, "\x1b")
	require.NotContains(t, e.Text, "retry with backoff", "the action is its own field")
}

func TestTabsOpenInRequestOrderAndFocus(t *testing.T) {
	m, _ := newTestModel(t, "acme-de", "acme-at")
	cmds := collect(m.Init())
	var opened []openedMsg
	for _, msg := range cmds {
		if o, ok := msg.(openedMsg); ok {
			opened = append(opened, o)
		}
	}
	require.Len(t, opened, 2)
	// The second finishes first: it still goes right of the first, and the
	// first asked-for tab gets the focus.
	m = update(t, m, opened[1])
	m = update(t, m, opened[0])
	require.Equal(t, "acme-de", m.tabs[0].name)
	require.Equal(t, "acme-at", m.tabs[1].name)
	require.Equal(t, 1, m.active)
	require.Contains(t, lines(m.View())[0], "[1 acme-de]")
}

func TestTabKeys(t *testing.T) {
	m, _ := newTestModel(t)
	m = open(t, m, "acme-de")
	m = open(t, m, "acme-at")
	require.Equal(t, 2, m.active)
	m = press(t, m, "]")
	require.Equal(t, 0, m.active, "] wraps to the connections page")
	m = press(t, m, "[")
	require.Equal(t, 2, m.active)
	m = press(t, m, "1")
	require.Equal(t, 1, m.active)
	require.Contains(t, m.View(), "fake tab acme-de body")
	m = press(t, m, "0")
	require.Equal(t, 0, m.active)
	m = press(t, m, "7")
	require.Equal(t, 0, m.active)
	require.Contains(t, m.View(), "no tab 7")
	// :conn NAME switches to an open tab instead of opening it again.
	m = press(t, m, ":")
	m = typeText(t, m, "conn acme-de")
	m = press(t, m, "enter")
	require.Equal(t, 1, m.active)
	require.Len(t, m.tabs, 2)
}

func TestClosingTheActiveTabMovesToANeighbour(t *testing.T) {
	m, _ := newTestModel(t)
	for _, n := range []string{"a", "b", "c"} {
		m = open(t, m, n)
	}
	m = press(t, m, "2", "ctrl+w")
	require.Equal(t, 2, m.active)
	require.Equal(t, "c", m.activeTab().name)
	m = press(t, m, "ctrl+w")
	require.Equal(t, 1, m.active)
	require.Equal(t, "a", m.activeTab().name)
	m = press(t, m, "ctrl+w")
	require.Equal(t, 0, m.active)
	m = press(t, m, "ctrl+w")
	require.Contains(t, m.View(), "the connections page stays open")
}

func TestQuitWithoutPendingQuitsAtOnce(t *testing.T) {
	m, be := newTestModel(t)
	m = open(t, m, "acme-de")
	m, cmd := updateCmd(t, m, keyMsg("q"))
	require.True(t, isQuit(cmd))
	require.Equal(t, 1, be.state("acme-de").closed)
	require.Empty(t, m.tabs)
}

func TestQuitAsksWhenAClaimWouldBeLost(t *testing.T) {
	m, be := newTestModel(t)
	m = open(t, m, "acme-de")
	st := be.state("acme-de")
	st.pending = "an active claim on da-1: its lease expires and uses a delivery attempt"

	m, cmd := updateCmd(t, m, keyMsg("q"))
	require.False(t, isQuit(cmd))
	require.Equal(t, modePrompt, mode(m))
	foot := m.footerView()
	require.Contains(t, foot, "Quit b2bx? acme-de: an active claim on da-1")
	require.Contains(t, foot, "[y/N]")

	m, cmd = updateCmd(t, m, keyMsg("n"))
	require.False(t, isQuit(cmd))
	require.Equal(t, modeNormal, mode(m))
	require.Zero(t, st.closed)
	require.Empty(t, st.received(), "the answer key does not reach the tab")

	m = press(t, m, "q")
	m, cmd = updateCmd(t, m, keyMsg("esc"))
	require.False(t, isQuit(cmd), "esc keeps things as they are")

	m = press(t, m, "q")
	_, cmd = updateCmd(t, m, keyMsg("y"))
	require.True(t, isQuit(cmd))
	require.Equal(t, 1, st.closed, "quitting releases the lease")
}

func TestLongPromptKeepsTheAnswerVisible(t *testing.T) {
	m, be := newTestModel(t)
	m = open(t, m, "acme-de")
	be.state("acme-de").pending = "an active claim on " + strings.Repeat("da-0123456789-", 20) + ": its lease expires and uses a delivery attempt"
	m = update(t, m, common.Info{Text: strings.Repeat("an error that fills lines ", 20), Err: true})
	m = press(t, m, "q")
	v := m.View()
	require.Len(t, lines(v), 30, "error and prompt fit in the frame")
	foot := lines(m.footerView())
	require.Len(t, foot, 6, "three lines of error, three of question")
	require.True(t, strings.HasSuffix(foot[5], "[y/N]"), foot[5])
	for _, l := range foot {
		require.LessOrEqual(t, len([]rune(l)), 100)
	}
}

func TestCloseTabAsksWhenAClaimWouldBeLost(t *testing.T) {
	m, be := newTestModel(t)
	m = open(t, m, "acme-de")
	st := be.state("acme-de")
	st.pending = "an active claim on da-1"
	m = press(t, m, "ctrl+w")
	require.Contains(t, m.footerView(), "Close acme-de? an active claim on da-1.")
	m = press(t, m, "n")
	require.Len(t, m.tabs, 1)
	m = press(t, m, ":")
	m = typeText(t, m, "close")
	m = press(t, m, "enter", "y")
	require.Empty(t, m.tabs)
	require.Equal(t, 1, st.closed)
}

func TestCtrlCQuitsAtOnceAndReleases(t *testing.T) {
	m, be := newTestModel(t)
	m = open(t, m, "acme-de")
	st := be.state("acme-de")
	st.pending = "an active claim on da-1"
	st.capturing = true // even while the tab takes every key
	m, cmd := updateCmd(t, m, keyMsg("ctrl+c"))
	require.True(t, isQuit(cmd))
	require.Equal(t, 1, st.closed)
	require.Empty(t, st.received())

	// ctrl+c at a prompt, too.
	m2, be2 := newTestModel(t)
	m2 = open(t, m2, "x")
	be2.state("x").pending = "claim"
	m2 = press(t, m2, "q")
	require.Equal(t, modePrompt, mode(m2))
	_, cmd = updateCmd(t, m2, keyMsg("ctrl+c"))
	require.True(t, isQuit(cmd))
	_ = m
}

func TestCapturingTabGetsGlobalKeys(t *testing.T) {
	m, be := newTestModel(t)
	m = open(t, m, "acme-de")
	st := be.state("acme-de")
	st.capturing = true
	m, cmd := updateCmd(t, m, keyMsg("q"))
	require.False(t, isQuit(cmd))
	m = press(t, m, "[", "1", ":", "?", "L", "esc")
	require.Equal(t, []string{"key:q", "key:[", "key:1", "key::", "key:?", "key:L", "key:esc"}, st.received())
	require.Equal(t, modeNormal, mode(m))
	require.Equal(t, 1, m.active)
}

func TestSmallTerminal(t *testing.T) {
	m, _ := newTestModel(t)
	m = open(t, m, "acme-de")
	m = update(t, m, tea.WindowSizeMsg{Width: 79, Height: 30})
	v := m.View()
	require.Contains(t, v, "needs a terminal of at least 80×24; this one is 79×30")
	require.NotContains(t, v, "fake tab")
	for _, l := range lines(v) {
		require.LessOrEqual(t, len([]rune(l)), 79)
	}
	m = press(t, m, "0")
	require.Equal(t, 1, m.active, "keys wait while the terminal is too small")
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 23})
	require.Contains(t, m.View(), "this one is 80×23")
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	require.Contains(t, m.View(), "fake tab acme-de body")
	require.Len(t, lines(m.View()), 24, "the frame fills the terminal exactly")

	m = update(t, m, tea.WindowSizeMsg{Width: 60, Height: 10})
	_, cmd := updateCmd(t, m, keyMsg("q"))
	require.True(t, isQuit(cmd), "q still quits")
}

func TestFrameFitsTheTerminal(t *testing.T) {
	m, _ := newTestModel(t)
	m = open(t, m, "acme-de")
	m = update(t, m, common.Info{Text: strings.Repeat("very long error ", 40), Err: true})
	v := m.View()
	require.Len(t, lines(v), 30)
	for _, l := range lines(v) {
		require.LessOrEqual(t, len([]rune(l)), 100)
	}
}

func TestHelpIsGeneratedFromTheKeyMaps(t *testing.T) {
	m, _ := newTestModel(t)
	m = open(t, m, "acme-de")
	m = press(t, m, "?")
	v := m.View()
	require.Contains(t, v, "Keys: acme-de")
	require.Contains(t, v, "fake tab action", "the active tab's keys")
	require.Contains(t, v, "prev tab", "the shell's keys")
	require.Contains(t, v, ":conn NAME")
	m = press(t, m, "x")
	require.Equal(t, modeHelp, mode(m), "other keys do nothing in help")
	m = press(t, m, "?")
	require.Equal(t, modeNormal, mode(m))

	m = press(t, m, "0", "?")
	require.Contains(t, m.View(), "add a connection", "the connection list's keys")
	m = press(t, m, "esc")
	require.Equal(t, modeNormal, mode(m))
}

func TestCommandLine(t *testing.T) {
	m, be := newTestModel(t)
	m = press(t, m, ":")
	require.Equal(t, modeCommand, mode(m))
	m = typeText(t, m, "frobnicate now")
	require.Contains(t, m.footerView(), ":frobnicate now")
	m = press(t, m, "enter")
	require.Equal(t, modeNormal, mode(m))
	require.Contains(t, m.View(), "unknown command :frobnicate; the commands are :conn NAME")

	m = press(t, m, "esc", ":")
	m = typeText(t, m, "conn")
	m = press(t, m, "enter")
	require.Contains(t, m.View(), ":conn takes one connection name")

	m = press(t, m, "esc", ":")
	m = typeText(t, m, "conn acme-de")
	m, cmd := updateCmd(t, m, keyMsg("enter"))
	require.Contains(t, m.View(), "opening acme-de…")
	require.Contains(t, m.View(), "(opening 1…)")
	m = update(t, m, cmd())
	require.Len(t, m.tabs, 1)
	require.NotNil(t, be.state("acme-de"))
	require.NotContains(t, m.View(), "opening acme-de")

	m = press(t, m, ":")
	m = typeText(t, m, "help")
	m = press(t, m, "enter")
	require.Equal(t, modeHelp, mode(m))
	m = press(t, m, "esc", ":")
	m = typeText(t, m, "nothing")
	m = press(t, m, "esc")
	require.Equal(t, modeNormal, mode(m))
	require.NotContains(t, m.View(), "unknown command", "esc abandons the line")

	m = press(t, m, ":")
	m = typeText(t, m, "q")
	_, cmd = updateCmd(t, m, keyMsg("enter"))
	require.True(t, isQuit(cmd))
}

func TestLogView(t *testing.T) {
	m, _ := newTestModel(t)
	m = press(t, m, "L")
	require.Equal(t, modeLog, mode(m))
	require.Contains(t, m.View(), "Session log (0)")
	require.Contains(t, m.View(), "session log", "the status bar says where you are")
	m = press(t, m, "L")
	require.Equal(t, modeNormal, mode(m))
	require.NotEqual(t, modeLog, mode(m))
}

func TestStatusBarShowsTheActiveTab(t *testing.T) {
	m, _ := newTestModel(t)
	m.c.Demo = true
	require.Contains(t, m.statusBar(), "DEMO │ connections: 0 profile(s)")
	m = open(t, m, "acme-de")
	sb := m.statusBar()
	require.Contains(t, sb, "DEMO │ acme-de conn-1 │ page 1 │ ! claim da-1 lease 0:42")
	require.Contains(t, lines(m.View())[0], "DEMO")
}

// TestClosePromptHandsBackItsAction: ctrl+w on a tab that would lose
// something asks; the prompt's action (close this tab) travels with it
// and comes back to the root only on y; N says nothing changed.
func TestClosePromptHandsBackItsAction(t *testing.T) {
	m, be := newTestModel(t)
	m = open(t, m, "acme-de")
	m = open(t, m, "acme-fr")
	st := be.state("acme-de")
	st.pending = "an active claim on da-1"
	m = press(t, m, "1", "ctrl+w")
	require.Equal(t, modePrompt, mode(m))
	require.Contains(t, m.footerView(), "Close acme-de? an active claim on da-1.")

	m = press(t, m, "n")
	require.Equal(t, modeNormal, mode(m))
	require.Equal(t, "nothing changed", m.foot.info)
	require.Len(t, m.tabs, 2)
	require.Zero(t, st.closed)

	m = press(t, m, "ctrl+w", "y")
	require.Equal(t, modeNormal, mode(m))
	require.Len(t, m.tabs, 1, "y closed the tab the prompt was asked for")
	require.Equal(t, "acme-fr", m.tabs[0].name)
	require.Equal(t, 1, st.closed)
}

// fakeTeamStore is a team store outbox that only has a line.
type fakeTeamStore struct{ line string }

func (fakeTeamStore) Attach(*spool.Store)  {}
func (f fakeTeamStore) StatusLine() string { return f.line }

// TestStatusBarShowsTheTeamStore: with a team store the status bar
// carries its line, refreshed by a tick; without one nothing is shown
// and no tick runs.
func TestStatusBarShowsTheTeamStore(t *testing.T) {
	m, _ := newTestModel(t)
	require.NotContains(t, m.statusBar(), "team store")
	m2, cmd := m.Update(teamTickMsg{})
	require.Nil(t, cmd, "no team store: no refresh")
	require.NotContains(t, m2.(Model).statusBar(), "team store")

	m.team = fakeTeamStore{line: "team store: 12 waiting, unreachable since 09:10"}
	m2, cmd = m.Update(teamTickMsg{})
	require.NotNil(t, cmd, "the next refresh is scheduled")
	require.Contains(t, m2.(Model).statusBar(), "connections: 0 profile(s) │ team store: 12 waiting, unreachable since 09:10")
}
