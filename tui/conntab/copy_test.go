package conntab

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/tui/common"
)

// copies are the Copy requests among the notes.
func copies(msgs []tea.Msg) []common.CopyItem {
	var out []common.CopyItem
	for _, m := range msgs {
		if c, ok := m.(common.Copy); ok {
			out = append(out, c.Item)
		}
	}
	return out
}

// TestCopyFromTheClaimPanel: y on a downloaded claim offers the
// delivery ID, hash, stored path and correlation ID in a menu, never the
// claim token (canary); a digit copies one and closes the menu.
func TestCopyFromTheClaimPanel(t *testing.T) {
	e := newAnswerEnv(t)
	e.upload(t, "orders_d96a.edi", 2)
	m := e.tab(t)
	m, _ = pressAll(t, m, "c", "d")
	require.Equal(t, worker.PhaseFetched, m.run.Phase())
	// The test's store path is long: a terminal wide enough for it, so
	// the panel must show it on one line (it is broken nowhere).
	m.c.Width = 160
	m = m.SetSize(160, 40)
	path := m.claim.res.Stored.Path
	require.Less(t, len(path), 150)
	require.Contains(t, m.View(), path, "the stored path is on screen whole")
	m, notes := press(t, m, "y")
	require.Empty(t, copies(notes), "several values: a menu first")
	menu, ok := m.stack.Top().(*common.CopyMenu)
	require.True(t, ok, "the copy menu is on top: %T", m.stack.Top())
	labels := map[string]string{}
	for _, it := range menu.Items() {
		labels[it.Label] = it.Value
		require.NotContains(t, it.Value, canaryToken, "a claim token is never offered")
	}
	for _, l := range []string{"delivery ID", "SHA-256", "stored path", "correlation ID"} {
		require.NotEmpty(t, labels[l], "offers the %s: %v", l, labels)
	}
	require.Equal(t, m.claim.entry.DeliveryAttemptID, labels["delivery ID"])
	require.NotContains(t, m.View(), canaryToken)
	require.Contains(t, m.View(), labels["stored path"], "the menu shows it whole")

	var n int
	for i, it := range menu.Items() {
		if it.Label == "stored path" {
			n = i + 1
		}
	}
	m, notes = press(t, m, string(rune('0'+n)))
	got := copies(notes)
	require.Len(t, got, 1)
	require.Equal(t, labels["stored path"], got[0].Value)
	_, still := m.stack.Top().(*common.CopyMenu)
	require.False(t, still, "the menu closed after the copy")
}

// TestCopyOneValueAtOnce: with a single value on screen y copies it
// without a menu (the uploads screen's answer row without its stored
// copy offers only the delivery ID… here: a fresh entry's values).
func TestCopyUploadValues(t *testing.T) {
	e := newAnswerEnv(t)
	key := e.upload(t, "orders_d96a.edi", 2)
	m := e.tab(t)
	m, _ = pressAll(t, m, "H", "y")
	menu, ok := m.stack.Top().(*common.CopyMenu)
	require.True(t, ok)
	found := false
	for _, it := range menu.Items() {
		found = found || (it.Label == "idempotency key" && it.Value == key)
	}
	require.True(t, found, "the upload's key is offered: %+v", menu.Items())
	m, _ = pressAll(t, m, "esc")
	_, onAnswers := m.stack.Top().(answersScreen)
	require.True(t, onAnswers, "esc copies nothing and closes only the menu")
	require.False(t, strings.Contains(m.View(), canaryToken))
}
