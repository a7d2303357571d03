package upload

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/upload/uploadtest"
)

// TestSentTellsTheTab: once a send's outcome is recorded, the screen
// tells its tab (SentMsg, which passes the stack to the tab) so the tab
// updates the tracking index.
func TestSentTellsTheTab(t *testing.T) {
	e := newSimEnv(t)
	m := e.open(t, Options{Path: e.file(t, "po.edi", uploadtest.Orders("REF1", 1, "PO-4711"))})
	m, send := m.Update(keyMsg("y"))
	require.NotNil(t, send)
	var sent tea.Msg
	for _, msg := range flatten(send) {
		if s, ok := msg.(sentMsg); ok {
			sent = s
		}
	}
	require.NotNil(t, sent, "the send's result")
	_, cmd := m.Update(sent)
	var tabs []SentMsg
	for _, msg := range flatten(cmd) {
		if s, ok := msg.(SentMsg); ok {
			tabs = append(tabs, s)
		}
	}
	require.Equal(t, []SentMsg{{Tab: testTab}}, tabs)
	require.Equal(t, testTab, tabs[0].Owner())
}

// flatten runs cmd and the commands of its batches, returning every message.
func flatten(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, flatten(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}
