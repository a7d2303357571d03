package conntab

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/upload"
)

// IndexFunc brings the tracking index up to date after the tab stored or
// acknowledged deliveries (stored), or after an upload (stored empty: the
// history and the files sent are read again). The app gives
// track.IndexAfter for the tab's connection; it runs in a background
// command, never on the download path.
type IndexFunc func(ctx context.Context, stored []spool.Stored) error

// indexing is what the tab still has to tell the tracking index: like
// the links, it waits while P or W runs and goes in one background
// command once the tab is idle, so P and W cost what the CLI's fetch
// costs.
type indexing struct {
	fn      IndexFunc
	stored  []spool.Stored // stored or acknowledged since the last update
	history bool           // an upload was sent since the last update
	running bool           // an update is running: the next waits for it
}

// indexedMsg is a finished update of the tracking index.
type indexedMsg struct {
	msgBase
	err error
}

// noteStored remembers a delivery stored or acknowledged for the index.
func (m Model) noteStored(st *spool.Stored) Model {
	if m.index.fn == nil || st == nil {
		return m
	}
	for i, s := range m.index.stored {
		if s.Meta.DeliveryAttemptID == st.Meta.DeliveryAttemptID {
			m.index.stored = append(m.index.stored[:i:i], m.index.stored[i+1:]...) // the acknowledge rewrote its sidecar
			break
		}
	}
	m.index.stored = append(m.index.stored[:len(m.index.stored):len(m.index.stored)], *st)
	return m
}

// noteUpload remembers that an upload was sent (upload.SentMsg).
func (m Model) noteUpload() Model {
	if m.index.fn != nil {
		m.index.history = true
	}
	return m
}

// flushIndex starts the update once the tab is idle (no claim, download
// or acknowledge running, not in P or W) and no update is running.
func (m Model) flushIndex() (Model, tea.Cmd) {
	ix := m.index
	if ix.fn == nil || ix.running || (len(ix.stored) == 0 && !ix.history) || m.work != nil || m.ordering() {
		return m, nil
	}
	stored, history, fn, tab := ix.stored, ix.history, ix.fn, m.id
	m.index.stored, m.index.history, m.index.running = nil, false, true
	return m, func() tea.Msg {
		var err error
		if len(stored) > 0 {
			err = fn(context.Background(), stored)
		}
		if history && err == nil {
			err = fn(context.Background(), nil)
		}
		return indexedMsg{msgBase: msgBase{tab: tab}, err: err}
	}
}

// onIndexed: an update failed only says so (the index is derived; it was
// marked stale and find rebuilds it).
func (m Model) onIndexed(msg indexedMsg) (Model, tea.Cmd) {
	m.index.running = false
	if msg.err != nil {
		return m, infoCmd("the tracking index was not updated (" + capText(termsafe.String(msg.err.Error())) + "); F brings it up to date")
	}
	return m, nil
}

// indexMsg handles the messages of indexing; ok false for any other.
func (m Model) indexMsg(msg tea.Msg) (Model, tea.Cmd, bool) {
	switch msg := msg.(type) {
	case indexedMsg:
		m, cmd := m.onIndexed(msg)
		return m, cmd, true
	case upload.SentMsg:
		return m.noteUpload(), nil, true
	}
	return m, nil, false
}

var _ common.Owned = indexedMsg{}
