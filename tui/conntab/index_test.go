package conntab

import (
	"bytes"
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/upload"
)

// indexCalls records the tab's updates of the tracking index.
type indexCalls struct {
	mu    sync.Mutex
	calls [][]string // delivery IDs per call; nil: the history
	acked []bool     // per call: every sidecar read then holds a receipt
	err   error
}

func (ic *indexCalls) fn(_ context.Context, stored []spool.Stored) error {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	var ids []string
	acked := true
	for _, st := range stored {
		ids = append(ids, st.Meta.DeliveryAttemptID)
		raw, err := os.ReadFile(st.Path[:len(st.Path)-len(".edi")] + ".json")
		acked = acked && err == nil && bytes.Contains(raw, []byte("acknowledgedAt"))
	}
	ic.calls, ic.acked = append(ic.calls, ids), append(ic.acked, acked)
	return ic.err
}

func (e *answerEnv) indexedTab(t *testing.T, ic *indexCalls) Model {
	t.Helper()
	c := &common.Common{Width: 120, Height: 40, Styles: common.NewStyles(true), Now: time.Now}
	m := New(c, testTab, e.conn, Options{Index: ic.fn})
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m, notes := settle(t, m, m.Init())
	require.Empty(t, infoText(notes))
	return m
}

// TestIndexAfterTheRunNotDuringIt: W stores and acknowledges both answers
// and only then, once the tab is idle, tells the tracking index, in one
// background update with both (their sidecars already hold the
// receipts): indexing never competes with a download or an acknowledge.
func TestIndexAfterTheRunNotDuringIt(t *testing.T) {
	e := newAnswerEnv(t)
	e.upload(t, "orders_d96a.edi", 2)
	ic := &indexCalls{}
	m := e.indexedTab(t, ic)
	m, n := pressAll(t, m, "W")
	require.Contains(t, n, "no due entries: worker mode stopped")
	require.Len(t, ic.calls, 1, "one update, after the run")
	require.Len(t, ic.calls[0], 2)
	require.True(t, ic.acked[0], "indexed after the acknowledges")
	require.False(t, m.index.running)
}

// TestIndexStepByStep: c, d indexes the stored delivery at once; a
// indexes it again with its receipt; a sent upload reads the history
// again; a failed update only says so.
func TestIndexStepByStep(t *testing.T) {
	e := newAnswerEnv(t)
	e.upload(t, "orders_d96a.edi", 2)
	ic := &indexCalls{}
	m := e.indexedTab(t, ic)
	m, _ = pressAll(t, m, "c")
	require.Empty(t, ic.calls, "a claim stores nothing")
	m, _ = pressAll(t, m, "d")
	require.Len(t, ic.calls, 1)
	require.Len(t, ic.calls[0], 1)
	require.False(t, ic.acked[0])
	m, _ = pressAll(t, m, "a")
	require.Len(t, ic.calls, 2)
	require.Equal(t, ic.calls[0], ic.calls[1])
	require.True(t, ic.acked[1])

	m, _ = settle(t, m, func() tea.Msg { return upload.SentMsg{Tab: testTab} })
	require.Len(t, ic.calls, 3)
	require.Nil(t, ic.calls[2], "after an upload: the history")

	ic.err = errors.New("disk full")
	_, notes := settle(t, m, func() tea.Msg { return upload.SentMsg{Tab: testTab} })
	require.Contains(t, infoText(notes), "the tracking index was not updated (disk full)")
}
