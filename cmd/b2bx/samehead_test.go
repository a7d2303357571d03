package main

import (
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/conntab"
)

// seedRefusedFirst fills the mailbox with 100 entries the client refuses
// (a listed hash that is not hex), so the first page of either face holds
// nothing it may process, then the head and one more.
func seedRefusedFirst(t *testing.T, s *simEnv) {
	t.Helper()
	for i := range 100 {
		_, err := s.sim.AddEntry(cliConn, partnersim.Delivery{ID: fmt.Sprintf("da-refused-%03d", i), MessageType: "ORDRSP",
			Payload: []byte("x"), Fault: partnersim.PayloadFault{MalformedListingHash: true}})
		require.NoError(t, err)
		s.clock.Advance(time.Second)
	}
	for _, id := range []string{"da-head", "da-next"} {
		_, err := s.sim.AddEntry(cliConn, partnersim.Delivery{ID: id, MessageType: "ORDRSP", Payload: ediPayload(2048)})
		require.NoError(t, err)
		s.clock.Advance(time.Second)
	}
}

// tabHarness runs a connection tab as the app does and reports the
// first delivery it acknowledged (or otherwise finished with).
type tabHarness struct {
	tab  conntab.Model
	done chan<- conntab.Status
	sent bool
}

func (h *tabHarness) Init() tea.Cmd { return h.tab.Init() }

func (h *tabHarness) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && k.String() == "ctrl+c" {
		return h, tea.Quit
	}
	var cmd tea.Cmd
	h.tab, cmd = h.tab.Update(msg)
	switch st := h.tab.Status(); {
	case h.sent:
	case st.Transfer == "acknowledged", st.Transfer == "claim failed", st.Transfer == "download failed":
		h.sent = true
		h.done <- st
	}
	if info, ok := msg.(common.Info); ok && !h.sent && info.Text == "no due entries" {
		h.sent = true
		h.done <- conntab.Status{Transfer: info.Text}
	}
	return h, cmd
}

func (h *tabHarness) View() string { return h.tab.View() }

// TestBothFacesPickTheSameHead: the app's P and `b2bx fetch --next` take
// the same head of the same mailbox — here one whose first page (and the
// next nine of the app's) holds only entries the client refuses. Each
// face gets its own simulator with the same mailbox.
func TestBothFacesPickTheSameHead(t *testing.T) {
	unlimited(t)
	cli := newSimEnv(t)
	seedRefusedFirst(t, cli)
	code, out, errOut := cli.run(t, "", "fetch", "--next", "--ack", "--json")
	require.Equal(t, exitOK, code, errOut)
	cliHead := decodeJSON[fetchJSON](t, out).DeliveryAttemptID

	app := newSimEnv(t)
	seedRefusedFirst(t, app)
	conn, err := session.Open(session.Target{Name: "same-head", BaseURL: app.srv.URL, ConnectionID: cliConn, StoreDir: t.TempDir(),
		Mailbox: secret.Credential{KeyID: "key-cli", Secret: secret.New(cliCanarySecret)}},
		session.Options{HTTPClient: app.srv.Client(), Limiter: rate.NewLimiter(rate.Inf, 0), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	c := common.New()
	c.Styles = common.NewStyles(true)
	done := make(chan conntab.Status, 1)
	h := &tabHarness{tab: conntab.New(c, 1, conn, conntab.Options{PageSize: 10}), done: done}
	p := tea.NewProgram(h, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignalHandler())
	go func() { _, _ = p.Run() }()
	t.Cleanup(p.Kill)
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
	p.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("P")})
	var st conntab.Status
	select {
	case st = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the app's P did not finish within 30 s")
	}
	require.Equal(t, "acknowledged", st.Transfer, "the app found a head past the refused pages")
	require.Equal(t, "da-head", cliHead)
	require.Equal(t, cliHead, st.Claim, "both faces took the same head")
	require.Equal(t, 11, st.Page, "the app shows the page the head is on")
}
