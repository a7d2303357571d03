package tui

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/settings"
	"github.com/nutrab2b/b2bx/internal/syncbuf"
	"github.com/nutrab2b/b2bx/tui/logview"
)

// TestFlowMarkExportCopyWithOwnKeys: with config.toml binding mark to m,
// the help shows m; m marks two rows, :export writes exactly those as a
// CSV a parser reads back; P previews processing the marked set and N
// runs nothing; y copies the selected entry's delivery ID with OSC 52
// and the footer says so; the state remembers the tab.
func TestFlowMarkExportCopyWithOwnKeys(t *testing.T) {
	env, dc, sim, dir := demoProfileEnv(t, 4, actCanary)
	cfg, err := loadConfig(t, "[keys]\nmark = \"m\"\n")
	require.NoError(t, err)
	var clipped syncbuf.Buffer
	old := clipOut
	clipOut = &clipped
	t.Cleanup(func() { clipOut = old })
	t.Setenv("TMUX", "")

	out := filepath.Join(dir, "marked.csv")
	state := filepath.Join(dir, "state.json")
	m, err := NewApp(context.Background(), Options{Env: env, Log: logview.New(0, nil), Config: cfg, StatePath: state})
	require.NoError(t, err)
	seen.Reset()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(140, 40))
	waitOutput(t, tm, "connections: 1 profile(s)")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "[1 "+dc.Name+"]", "head of the mailbox")
	tm.Type("?")
	waitOutput(t, tm, "m mark row")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	tm.Type("m")
	tm.Type("m")
	tm.Type(":export " + out)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "exported mailbox page: 2 rows")
	tm.Type("P")
	waitOutput(t, tm, "Process the marked entries")
	tm.Type("N")
	waitOutput(t, tm, "nothing was run")
	tm.Type("y")
	waitOutput(t, tm, "Copy which value?")
	tm.Type("1")
	waitOutput(t, tm, "copied delivery ID")
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitLong))
	final := tm.FinalModel(t).(Model)
	require.NoError(t, final.saveState()) // what Run does when the program ends
	for _, e := range sim.Entries(dc.ConnectionID) {
		require.Zero(t, e.Attempts, "nothing was claimed without y: %s", e.DeliveryAttemptID)
	}

	f, err := os.Open(out)
	require.NoError(t, err)
	recs, err := csv.NewReader(f).ReadAll()
	_ = f.Close()
	require.NoError(t, err)
	require.Len(t, recs, 3, "a header and the two marked rows")
	require.True(t, strings.HasPrefix(clipped.String(), "\x1b]52;c;"), "OSC 52: %q", clipped.String())

	st, err := settings.LoadState(state, false)
	require.NoError(t, err)
	require.Len(t, st.Tabs, 1)
	require.Equal(t, dc.Name, st.Tabs[0].Profile)

	_, err = seen.ReadFrom(tm.FinalOutput(t))
	require.NoError(t, err)
	require.NotContains(t, seen.String(), actCanary)
	require.NotContains(t, clipped.String(), actCanary)
}

const actCanary = "sk_actcanary_51d2"

// TestFlowStateRestoresTabs: the tabs of the last run open by
// themselves, each with its page size and filter.
func TestFlowStateRestoresTabs(t *testing.T) {
	env, dc, _, dir := demoProfileEnv(t, 4, actCanary)
	state := filepath.Join(dir, "state.json")
	require.NoError(t, settings.SaveState(state, settings.State{Version: settings.StateVersion,
		Tabs: []settings.TabState{{Profile: dc.Name, PageSize: 2}}}))
	m, err := NewApp(context.Background(), Options{Env: env, Log: logview.New(0, nil), StatePath: state})
	require.NoError(t, err)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(140, 40))
	waitOutput(t, tm, "[1 "+dc.Name+"]", "page 1: 2 entries, more (n)")
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitLong))
	final := tm.FinalModel(t).(Model)
	require.NotNil(t, final.quitState)
	require.Equal(t, 2, final.quitState.Tabs[0].PageSize, "the page size came back, and is remembered again")
}
