package tui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/settings"
	"github.com/nutrab2b/b2bx/tui/common"
)

func loadConfig(t *testing.T, text string) (*settings.Config, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return settings.Load(path, Actions(), common.ThemeSlots, func(string) string { return "" })
}

// TestKeysRebindAndHelpShowsThem: [keys] rebinds a tab's action and a
// global one; the key maps match the new keys, not the old, and their
// help says the new keys.
func TestKeysRebindAndHelpShowsThem(t *testing.T) {
	names := map[string]bool{}
	for _, a := range Actions() {
		names[a.Name] = true
	}
	for _, n := range []string{"process", "copy", "bundle", "mark", "mark-all", "events", "quit", "page-down"} {
		require.True(t, names[n], "action %s is bindable", n)
	}
	require.False(t, names["go-tab"] || names["force-quit"], "1-9 and ctrl+c are fixed")

	cfg, err := loadConfig(t, "[keys]\nprocess = \"X\"\nlog = [\"ctrl+l\"]\n")
	require.NoError(t, err)
	tk, gk := TabKeys(cfg), GlobalKeys(cfg)
	require.True(t, key.Matches(keyMsg("X"), tk.Process))
	require.False(t, key.Matches(keyMsg("P"), tk.Process), "the old key is gone")
	require.Equal(t, "X", tk.Process.Help().Key, "help shows the key as bound")
	require.Equal(t, []string{"ctrl+l"}, gk.Log.Keys())
	require.Equal(t, []string{"c"}, tk.Claim.Keys(), "unbound actions keep their defaults")

	// "space" as config.toml names it matches the space bar.
	cfg, err = loadConfig(t, "[keys]\nclaim = \"space\"\nmark = \"m\"\n")
	require.NoError(t, err)
	tk = TabKeys(cfg)
	require.True(t, key.Matches(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}, tk.Claim))
	require.Equal(t, "space", tk.Claim.Help().Key)
}

// TestKeysConflictNamesFileAndLine: a tab action bound to a global key
// is refused at start with the file, the line and both actions.
func TestKeysConflictNamesFileAndLine(t *testing.T) {
	_, err := loadConfig(t, "[keys]\n\nprocess = \"e\"\n")
	require.Error(t, err)
	msg := err.Error()
	require.Contains(t, msg, "config.toml:3")
	require.Contains(t, msg, "process")
	require.Contains(t, msg, "events")
}

// TestThemeColoursAndNoColor: [theme] colours reach the styles; under
// NO_COLOR the theme is empty and nothing is coloured.
func TestThemeColoursAndNoColor(t *testing.T) {
	s := common.NewThemedStyles(false, map[string]string{"error": "#123456"})
	require.Equal(t, lipgloss.Color("#123456"), s.Error.GetForeground())
	require.NotEqual(t, lipgloss.Color("#123456"), s.Warn.GetForeground(), "other slots keep their defaults")
	plain := common.NewThemedStyles(true, map[string]string{"error": "#123456"})
	require.Equal(t, "o", plain.Error.Render("o"), "NO_COLOR wins")
}

// TestStateRemembersTabs: the open tabs' profiles and the focused one
// are saved, and read back in that order by the next run.
func TestStateRemembersTabs(t *testing.T) {
	m, _ := newTestModel(t)
	m = open(t, m, "acme-de")
	path := filepath.Join(t.TempDir(), "state.json")
	m.statePath = path
	require.NoError(t, m.saveState())
	st, err := settings.LoadState(path, false)
	require.NoError(t, err)
	require.Len(t, st.Tabs, 1)
	require.Equal(t, "acme-de", st.Tabs[0].Profile)
	fresh, err := settings.LoadState(path, true)
	require.NoError(t, err)
	require.Empty(t, fresh.Tabs, "--fresh starts clean")
}
