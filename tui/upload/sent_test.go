package upload

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
	"github.com/nutrab2b/b2bx/tui/common/commontest"
)

// TestSentTellsTheTab: once a send's outcome is recorded, the screen
// tells its tab (SentMsg, which passes the stack to the tab) so the tab
// updates the tracking index.
func TestSentTellsTheTab(t *testing.T) {
	e := newSimEnv(t)
	m := e.open(t, Options{Path: e.file(t, "po.edi", orderstest.Orders("REF1", 1, "PO-4711"))})
	m, send := m.Update(keyMsg("y"))
	require.NotNil(t, send)
	var sent tea.Msg
	for _, msg := range commontest.Collect(send) {
		if s, ok := msg.(sentMsg); ok {
			sent = s
		}
	}
	require.NotNil(t, sent, "the send's result")
	_, cmd := m.Update(sent)
	var tabs []SentMsg
	for _, msg := range commontest.Collect(cmd) {
		if s, ok := msg.(SentMsg); ok {
			tabs = append(tabs, s)
		}
	}
	require.Equal(t, []SentMsg{{Tab: testTab}}, tabs)
	require.Equal(t, testTab, tabs[0].Owner())
}
