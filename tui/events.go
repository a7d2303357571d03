package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/tui/eventview"
)

// The event inspector (`e`, `:events [PATH]`) is a screen over the page:
// it belongs to no tab, so it is held by the root model. While it is open
// it gets every key but ctrl+c; when it is not typing, q, : and ? stay
// the shell's. Its results are plain messages (no owner), which reach it
// through broadcast; it drops those of other runs by request id.

// openEvents opens the event inspector (a fresh one) on path, or on the
// file picker when path is "". With a connection tab active, K in it
// reads that profile's webhook secret from the session's store.
func (m Model) openEvents(path string) (Model, tea.Cmd) {
	return m.openEventsWith(eventview.Options{Path: path})
}

// openEventsLive opens the inspector in live mode (`:events listen
// [ADDR]`): it runs the webhook receiver until the screen closes.
func (m Model) openEventsLive(addr string) (Model, tea.Cmd) {
	if addr == "" {
		addr = m.evListenAddr
	}
	return m.openEventsWith(eventview.Options{Listen: true, ListenAddr: addr, LiveDir: m.evDir})
}

func (m Model) openEventsWith(opts eventview.Options) (Model, tea.Cmd) {
	if m.evOpen {
		m.events.Close()
	}
	if t := m.activeTab(); t != nil {
		opts.Profile, opts.Store = t.name, m.secretStore()
	}
	m.events = eventview.New(m.c, opts).SetSize(m.c.Width, m.bodyH)
	m.evOpen = true
	return m, m.events.Init()
}

// eventsKey handles a key while the inspector is open (normal mode).
func (m Model) eventsKey(k tea.KeyMsg) (Model, tea.Cmd) {
	if !m.events.Capturing() {
		switch {
		case key.Matches(k, m.keys.Quit):
			return m.quit(false)
		case key.Matches(k, m.keys.Command), key.Matches(k, m.keys.Help):
			return m.globalKey(k)
		}
	}
	var cmd tea.Cmd
	m.events, cmd = m.events.Update(k)
	if m.events.Done() {
		m.events.Close()
		m.events, m.evOpen = eventview.Model{}, false
	}
	return m, cmd
}

// secretStore is the session's secret store when the backend has one.
func (m Model) secretStore() credentials.SecretStore {
	if s, ok := m.be.(interface {
		SecretStore() credentials.SecretStore
	}); ok {
		return s.SecretStore()
	}
	return nil
}
