package conntab

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/fakeclock"
	"github.com/nutrab2b/b2bx/tui/common"
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

// TestSelectBeforeTheFirstPage: a tab just opened shows the delivery once
// its first page is read.
func TestSelectBeforeTheFirstPage(t *testing.T) {
	clk := fakeclock.New(t0)
	be := &fakeBackend{clock: clk, entries: testEntries(5)}
	c := &common.Common{Width: 120, Height: 40, Styles: common.NewStyles(true), Now: clk.Now}
	m := newModel(c, testTab, be, Options{PageSize: 10, Name: "acme-de"})
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m, _ = m.Update(SelectMsg{Tab: testTab, Delivery: "da-00004"})
	require.Equal(t, "da-00004", m.selectWant)
	m, notes := settle(t, m, m.Init())
	require.Contains(t, infoText(notes), "delivery da-00004 selected")
	id, _ := m.table.SelectedID()
	require.Equal(t, "da-00004", id)
	require.Empty(t, m.selectWant)
}
