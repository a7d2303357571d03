package conntab

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/stretchr/testify/require"
)

// TestSelectDelivery: a timeline's mailbox step selects the delivery's
// row; one not on the page says how to find it.
func TestSelectDelivery(t *testing.T) {
	m, _, _ := newTest(t, 5, 10)
	require.Equal(t, 0, m.table.Cursor())
	m, notes := settle(t, m, func() tea.Msg { return SelectMsg{Tab: testTab, Delivery: "da-00003"} })
	require.Contains(t, infoText(notes), "delivery da-00003 selected")
	id, _ := m.table.SelectedID()
	require.Equal(t, "da-00003", id)
	_, notes = settle(t, m, func() tea.Msg { return SelectMsg{Tab: testTab, Delivery: "gone"} })
	require.Contains(t, infoText(notes), "not on this page of the mailbox and not stored here")
	id, _ = m.table.SelectedID()
	require.Equal(t, "da-00003", id)
}
