package tui

import (
	"context"
	"github.com/nutrab2b/b2bx/tui/eventview"
	"net"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// storeBackend is the fake backend with a secret store, like the
// session's.
type storeBackend struct {
	*fakeBackend
	store credentials.SecretStore
}

func (b storeBackend) SecretStore() credentials.SecretStore { return b.store }

// settle runs cmd and feeds every message it yields back into the model
// until nothing is left (the inspector's reads return at once).
func settle(t *testing.T, m Model, cmd tea.Cmd) Model {
	t.Helper()
	queue := collect(cmd)
	for len(queue) > 0 {
		msg := queue[0]
		queue = queue[1:]
		if _, ok := msg.(tea.QuitMsg); ok {
			continue
		}
		var next tea.Cmd
		m, next = updateCmd(t, m, msg)
		queue = append(queue, collect(next)...)
	}
	return m
}

func pressSettle(t *testing.T, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		var cmd tea.Cmd
		m, cmd = updateCmd(t, m, keyMsg(k))
		m = settle(t, m, cmd)
	}
	return m
}

var batchIssues = filepath.Join("..", "apiclient", "events", "testdata", "batch_issues.json")

// TestEventsKeyOpensAndEscCloses: e opens the event inspector over the
// page (its file picker), esc closes it and the page is back.
func TestEventsKeyOpensAndEscCloses(t *testing.T) {
	m, _ := newTestModel(t)
	m = pressSettle(t, m, "e")
	require.True(t, eventsOpen(m))
	v := m.View()
	require.Contains(t, v, "Events  secret: none (s: type it)")
	require.Contains(t, v, "d: inspect this whole directory")
	require.Contains(t, m.statusBar(), "event inspector")
	require.Len(t, lines(v), 30)

	m = pressSettle(t, m, "esc")
	require.False(t, eventsOpen(m))
	require.NotContains(t, m.View(), "Events  secret")
	require.NotContains(t, m.statusBar(), "event inspector")
}

// TestEventsCommandRunsTheChecks: :events PATH inspects at once; the
// inspector takes its keys (j moves its cursor, not the tab's), q typed
// into its filter is text, q outside closes it; ? shows its keys.
func TestEventsCommandRunsTheChecks(t *testing.T) {
	const canary = "CANARY-webhook-e51"
	m, be := newTestModel(t)
	store := credentials.NewMemoryStore()
	require.NoError(t, store.Set(context.Background(), "acme-de", credentials.WebhookKeyID, secret.New(canary)))
	m.be = storeBackend{fakeBackend: be, store: store}
	m = open(t, m, "acme-de")
	st := be.state("acme-de")
	// From the events package, so the header's path is as short as it
	// was before the package moved below apiclient/ and the profile hint
	// stays inside the 100 columns.
	t.Chdir(filepath.Dir(filepath.Dir(batchIssues)))
	m = pressSettle(t, m, ":")
	m = typeText(t, m, "events "+filepath.Join("testdata", "batch_issues.json"))
	m = pressSettle(t, m, "enter")
	require.True(t, eventsOpen(m))
	v := m.View()
	require.Contains(t, v, "DUPLICATE_CONFLICT NB-E005")
	require.Contains(t, v, "the sender must replay 4-5")
	require.Contains(t, v, "K: profile acme-de", "the active tab's profile is offered for the webhook secret")
	m = pressSettle(t, m, "K")
	v = m.View()
	require.Contains(t, v, "secret: profile acme-de (keyring)")
	require.NotContains(t, v, canary)

	m = pressSettle(t, m, "j", "/", "q")
	require.Empty(t, st.received(), "keys went to the tab under the inspector")
	require.True(t, eventsOpen(m))
	m = pressSettle(t, m, "esc")
	require.True(t, eventsOpen(m), "esc in the filter only leaves the filter")

	m = pressSettle(t, m, "?")
	require.Equal(t, modeHelp, mode(m))
	require.Contains(t, m.View(), "Keys: event inspector")
	require.Contains(t, m.View(), "filter findings")
	m = pressSettle(t, m, "esc")
	require.Equal(t, modeNormal, mode(m))
	require.True(t, eventsOpen(m))

	// q closes the inspector, as it closes every screen (it used to quit
	// the app from here alone).
	mq, cmd := updateCmd(t, m, keyMsg("q"))
	require.False(t, isQuit(cmd))
	require.False(t, eventsOpen(mq))
	require.Contains(t, mq.View(), "fake tab acme-de body", "the tab under it is back")

	m = pressSettle(t, m, "esc")
	require.False(t, eventsOpen(m))
	m = pressSettle(t, m, "x")
	require.Equal(t, []string{"key:x"}, st.received(), "after esc the tab has the keys again")
}

// TestEventsKeyLeftToACapturingTab: while a tab types, e is its text.
func TestEventsKeyLeftToACapturingTab(t *testing.T) {
	m, be := newTestModel(t)
	m = open(t, m, "acme-de")
	st := be.state("acme-de")
	st.capturing = true
	m = pressSettle(t, m, "e")
	require.False(t, eventsOpen(m))
	require.Equal(t, []string{"key:e"}, st.received())
}

// TestEventsListenCommand: :events listen ADDR opens the inspector in
// live mode with the active profile's webhook secret, and quitting the
// app stops the listener.
func TestEventsListenCommand(t *testing.T) {
	const canary = "CANARY-webhook-live-7a"
	m, be := newTestModel(t)
	store := credentials.NewMemoryStore()
	require.NoError(t, store.Set(context.Background(), "acme-de", credentials.WebhookKeyID, secret.New(canary)))
	m.be = storeBackend{fakeBackend: be, store: store}
	m.evDir = t.TempDir()
	m = open(t, m, "acme-de")
	m = pressSettle(t, m, ":")
	m = typeText(t, m, "events listen 127.0.0.1:0")
	m, cmd := updateCmd(t, m, keyMsg("enter"))
	require.True(t, eventsOpen(m))
	live := func(m Model) eventview.Model { ev, _ := eventview.FromScreen(m.screens.Top()); return ev }
	// Settle until live, but not the Cmd that then waits for a delivery.
	queue := collect(cmd)
	for len(queue) > 0 && !live(m).Live() {
		msg := queue[0]
		queue = queue[1:]
		var next tea.Cmd
		m, next = updateCmd(t, m, msg)
		if !live(m).Live() {
			queue = append(queue, collect(next)...)
		}
	}
	require.True(t, live(m).Live(), m.View())
	addr := live(m).LiveAddr()
	v := m.View()
	require.Contains(t, v, "LIVE on http://"+addr)
	require.NotContains(t, v, canary)
	m, _ = m.quit(true)
	_, err := net.Dial("tcp", addr)
	require.Error(t, err, "the listener still runs after quit")
}
