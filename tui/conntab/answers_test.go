package conntab

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/tui/common"
)

const (
	answerConn   = "3c0394dd-136a-40b5-b0c2-1f3003083d8a"
	answerTenant = "tenant-answers"
	answerSecret = "CANARY-SECRET-answers"
)

// answerEnv is a simulator whose partner answers every upload at once
// (a CONTRL, and an ORDRSP that amends the order), a connection to it,
// and a tab over that connection.
type answerEnv struct {
	sim  *partnersim.Sim
	conn *session.Conn
	dir  string // where test files are written
}

func newAnswerEnv(t *testing.T) *answerEnv {
	t.Helper()
	sim := partnersim.New(partnersim.WithResponseDelay(0), partnersim.WithTokens(partnersim.SequentialTokens(canaryToken)))
	require.NoError(t, sim.AddConnection(partnersim.Connection{ID: answerConn, Tenant: answerTenant}))
	require.NoError(t, sim.AddKey(partnersim.Key{ID: "key-all", Secret: answerSecret, Tenant: answerTenant, Scopes: partnersim.AllScopes}))
	srv, err := partnersim.Serve(sim, partnersim.HTTP1)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	cred := secret.Credential{KeyID: "key-all", Secret: secret.New(answerSecret)}
	conn, err := session.Open(session.Target{Name: "acme", BaseURL: srv.URL, ConnectionID: answerConn, StoreDir: t.TempDir(),
		Inbox: cred, Mailbox: cred}, session.Options{HTTPClient: srv.Client(), Limiter: rate.NewLimiter(rate.Inf, 0),
		Retry: apiclient.RetryPolicy{Schedule: []time.Duration{0}}})
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	return &answerEnv{sim: sim, conn: conn, dir: t.TempDir()}
}

// upload sends the fixture like the upload screen does and waits until
// the partner's answers are in the mailbox.
func (e *answerEnv) upload(t *testing.T, fixture string, answers int) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", fixture))
	require.NoError(t, err)
	path := filepath.Join(e.dir, fixture)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	p, err := up.Prepare(t.Context(), e.conn.Spool, answerConn, path)
	require.NoError(t, err)
	require.NoError(t, p.Reserve())
	o, err := up.Send(t.Context(), e.conn.Client, p)
	require.NoError(t, err)
	require.True(t, o.Accepted(), "%+v", o)
	require.Eventually(t, func() bool {
		pg, err := e.conn.Client.ListMailbox(t.Context(), 10, "")
		return err == nil && len(pg.Entries) == answers
	}, 10*time.Second, 10*time.Millisecond, "the partner's answers")
	return p.Key
}

// tab opens the connection's tab with its first page and links loaded.
func (e *answerEnv) tab(t *testing.T) Model {
	t.Helper()
	c := &common.Common{Width: 120, Height: 40, Styles: common.NewStyles(true), Now: time.Now}
	m := New(c, testTab, e.conn, Options{})
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m, notes := settle(t, m, m.Init())
	require.Empty(t, infoText(notes))
	require.True(t, m.pager.loaded)
	return m
}

// pressAll sends keys one by one, settling after each, and returns the
// notes.
func pressAll(t *testing.T, m Model, keys ...string) (Model, string) {
	t.Helper()
	var all []string
	for _, k := range keys {
		var notes []tea.Msg
		m, notes = press(t, m, k)
		if s := infoText(notes); s != "" {
			all = append(all, s)
		}
	}
	return m, strings.Join(all, "\n")
}

// flat is a view with its whitespace runs folded, so wrapped lines match.
func flat(v string) string { return strings.Join(strings.Fields(v), " ") }

// TestAnswersLinkedBothWays: an upload and the partner's CONTRL and
// ORDRSP, processed in the tab, are linked on screen in both directions:
// the entry's panel says which upload it answers, H lists the upload with
// how it was answered and its answers under it; v views them and D shows
// the partner's changes against the ORDERS that was sent.
func TestAnswersLinkedBothWays(t *testing.T) {
	e := newAnswerEnv(t)
	key := e.upload(t, "orders_d96a.edi", 2)
	m := e.tab(t)

	// Before anything is downloaded the entry says how to link it.
	require.Contains(t, flat(m.View()), "not downloaded yet: linked to its upload once downloaded (d)")
	m, notes := pressAll(t, m, "H")
	require.Empty(t, notes)
	require.True(t, overlaid(m))
	v := flat(m.View())
	require.Contains(t, v, "Uploads (1 accepted)")
	require.Contains(t, v, "key "+key+" no answer yet")
	require.Contains(t, v, "Stored answers linked to no upload (0)")
	m, _ = pressAll(t, m, "esc")
	require.False(t, overlaid(m))

	// Process both answers: the panel of the last one names the upload.
	types := map[string]bool{}
	for range 2 {
		var n string
		m, n = pressAll(t, m, "P")
		require.Empty(t, n)
		require.Equal(t, worker.PhaseAcked, m.run.Phase())
		types[m.claim.entry.MessageType] = true
		v = flat(m.View())
		require.Contains(t, v, "answers upload of PO-4711 (key "+key+")", "the claim panel links the answer")
	}
	require.Equal(t, map[string]bool{"CONTRL": true, "ORDRSP": true}, types)

	m, _ = pressAll(t, m, "H")
	v = flat(m.View())
	require.Regexp(t, `PO-4711 key `+key+` answered by CONTRL: accepted; ORDRSP`, v, "the upload's row")
	require.Regexp(t, `upload key `+key+` \(n 1\) · sent .* HTTP 202 answered by CONTRL: accepted; ORDRSP: 1 of \d+ lines? changed`, v, "its details")
	require.Contains(t, v, "↳ CONTRL: accepted")
	require.Regexp(t, `↳ ORDRSP: 1 of \d+ lines? changed`, v)

	// D on the upload: the latest ORDRSP against the ORDERS sent.
	m, n := pressAll(t, m, "D")
	require.Empty(t, n)
	require.NotNil(t, topOf[diffScreen](m))
	v = flat(m.View())
	require.Contains(t, v, "against the ORDERS sent with key "+key)
	require.Regexp(t, `for order PO-4711 .*changed`, v)
	require.Regexp(t, `line \d+ .*changed`, v, "a changed line")
	m, _ = pressAll(t, m, "q")
	require.Nil(t, topOf[diffScreen](m))
	require.NotNil(t, topOf[answersScreen](m), "q closes only the diff")

	// v on the upload: the ORDERS that was sent, in the viewer.
	m, n = pressAll(t, m, "v")
	require.Empty(t, n)
	require.NotNil(t, topViewer(m))
	v = flat(m.View())
	require.Contains(t, v, "ORDERS sent with key "+key)
	require.Contains(t, v, "BGM")
	m, _ = pressAll(t, m, "G")
	require.Contains(t, flat(m.View()), "> 17 UNZ", "G reaches the last segment")
	m, _ = pressAll(t, m, "esc")
	require.Nil(t, topViewer(m), "esc at rest closes the viewer")

	// v on an answer: its stored payload.
	m, _ = pressAll(t, m, "j", "v")
	require.NotNil(t, topViewer(m))
	require.Regexp(t, `delivery \S+ (CONTRL|ORDRSP)`, flat(m.View()))
	m, _ = pressAll(t, m, "q", "q")
	require.False(t, overlaid(m), "q closes the viewer, then the answers screen")
	require.NotContains(t, m.View(), canaryToken)
}

// TestViewAndDiffFromTheMailbox: v and D act on the selected entry once
// it is stored, and say what to do while it is not.
func TestViewAndDiffFromTheMailbox(t *testing.T) {
	e := newAnswerEnv(t)
	e.upload(t, "orders_d96a.edi", 2)
	m := e.tab(t)
	_, n := pressAll(t, m, "v")
	require.Contains(t, n, "is not downloaded: v shows stored payloads only")
	_, n = pressAll(t, m, "D")
	require.Contains(t, n, "is not downloaded")

	// Download without acknowledging: the entry stays in the table, its
	// details link it, v views the stored copy.
	m, n = pressAll(t, m, "c", "d")
	require.Empty(t, n)
	require.Equal(t, worker.PhaseFetched, m.run.Phase())
	typ := m.claim.entry.MessageType
	require.Contains(t, flat(m.View()), "answers upload of PO-4711")
	m, n = pressAll(t, m, "v")
	require.Empty(t, n)
	require.NotNil(t, topViewer(m))
	require.Contains(t, flat(m.View()), "delivery "+m.claim.entry.DeliveryAttemptID+" "+typ)
	m, _ = pressAll(t, m, "q")

	_, n = pressAll(t, m, "D")
	if typ == "ORDRSP" {
		require.Empty(t, n)
	} else {
		require.Contains(t, n, "D compares an ORDRSP with the ORDERS it answers; this is a CONTRL")
	}
}

// TestViewPath: :view PATH (ViewMsg) opens any file in the tab's viewer;
// a file that cannot be opened says why; a stale open is dropped and its
// file closed.
func TestViewPath(t *testing.T) {
	m, _, _ := newTest(t, 3, 10)
	path := filepath.Join("..", "..", "testdata", "edifact", "contrl_22_rejected.edi")
	m, notes := settle(t, m, func() tea.Msg { return ViewMsg{Tab: testTab, Path: path} })
	require.Empty(t, infoText(notes))
	require.NotNil(t, topViewer(m))
	v := flat(m.View())
	require.Contains(t, v, "CONTRL for interchange ICR0009: REJECTED, 2 errors")
	require.True(t, overlaid(m))

	// the viewer's search runs in steps that come back to this tab
	m, _ = pressAll(t, m, "/", "U", "C", "S")
	require.True(t, m.Capturing(), "the search input has the keys (q is a letter there)")
	m, _ = pressAll(t, m, "enter")
	require.Equal(t, 4, topViewer(m).Cursor(), "the search found the first UCS")
	m, _ = pressAll(t, m, "i", "esc")
	require.NotNil(t, topViewer(m), "esc first closes the viewer's issues pane")
	mClosed, _ := pressAll(t, m, "esc")
	require.Nil(t, topViewer(mClosed), "then esc closes the viewer")

	_, notes = settle(t, m, func() tea.Msg { return ViewMsg{Tab: testTab, Path: filepath.Join(t.TempDir(), "missing.edi")} })
	require.Contains(t, infoText(notes), "the viewer cannot open it:")
	_, notes = settle(t, m, func() tea.Msg { return ViewMsg{Tab: testTab, Path: " "} })
	require.Contains(t, infoText(notes), ":view needs a file")

	// An open that is no longer waited for is closed, not shown.
	m2, cmd := m.openPath(path)
	stale := cmd().(common.Opened)
	m2, cmd = m2.openPath(path)
	m2, _ = settle(t, m2, cmd)
	m2, _ = m2.Update(stale)
	require.Error(t, openedViewer(stale).Err(), "the stale source was closed")
	require.NoError(t, topViewer(m2).Err())
	m2.Close()
	require.Error(t, topViewer(m2).Err(), "closing the tab closes the viewer's file")

	// esc while a file is being opened stops it.
	m.stack.Pop()
	m3, cmd := m.openPath(path)
	require.Equal(t, "opening the viewer", m3.Preparing())
	m3, notes = press(t, m3, "esc")
	require.Contains(t, infoText(notes), "stopped opening the viewer")
	require.Empty(t, m3.Preparing())
	late := cmd().(common.Opened)
	require.ErrorIs(t, late.Err, context.Canceled)
	m3, _ = m3.Update(late)
	require.Nil(t, topViewer(m3), "nothing opens after esc")
}

// TestAnswersWithoutStore: a tab without a local store (tests, a fake
// backend) says so instead of showing an empty screen.
func TestAnswersWithoutStore(t *testing.T) {
	m, _, _ := newTest(t, 3, 10)
	m, n := pressAll(t, m, "H")
	require.Contains(t, n, "no local store")
	require.False(t, overlaid(m))
}

// TestWorkerModeLinksWhenItStops: W stores the answers one after the
// other and links them once it stops (parsing a payload never competes
// with the next download); then both show as answers of the upload.
func TestWorkerModeLinksWhenItStops(t *testing.T) {
	e := newAnswerEnv(t)
	key := e.upload(t, "orders_d96a.edi", 2)
	m := e.tab(t)
	m, n := pressAll(t, m, "W")
	require.Contains(t, n, "no due entries: worker mode stopped")
	require.False(t, m.ordering(), "worker mode is off: the runner holds no order")
	require.Empty(t, m.links.pending, "linked once worker mode stopped")
	require.Zero(t, m.links.req)
	require.NotNil(t, m.links.cur)
	require.Len(t, m.links.cur.Uploads, 1)
	require.Equal(t, key, m.links.cur.Uploads[0].Key)
	require.Regexp(t, `^answered by CONTRL: accepted; ORDRSP: 1 of \d+ lines? changed$`, m.links.cur.UploadText(0),
		"both answers linked without opening H")
}

// TestAnswersScreenNamesUnreadableDeliveries: a stored answer that
// changed since its download is not linked, and H says which one and
// why instead of counting it silently.
func TestAnswersScreenNamesUnreadableDeliveries(t *testing.T) {
	e := newAnswerEnv(t)
	e.upload(t, "orders_d96a.edi", 2)
	m := e.tab(t)
	m, _ = pressAll(t, m, "P", "P")
	id := m.claim.entry.DeliveryAttemptID
	d, ok := m.links.cur.Delivery(id)
	require.True(t, ok)
	require.NoError(t, os.WriteFile(d.Stored.Path, []byte("UNA:+.? '"), 0o600))
	m, _ = pressAll(t, e.tab(t), "H") // a new session reads the store afresh
	v := flat(m.View())
	require.Contains(t, v, "! delivery "+id+" is not linked: the stored payload")
	m, _ = pressAll(t, m, "G") // the unreadable one is last; its details say why in full
	v = flat(m.View())
	require.Contains(t, v, "in delivery "+id+" · not linked")
	require.Contains(t, v, "it changed since the download")
	_, n := pressAll(t, m, "D")
	require.Contains(t, n, "this delivery could not be read")
	m, n = pressAll(t, m, "v")
	require.Empty(t, n)
	require.NotNil(t, topViewer(m), "v shows what is stored now")
}

// TestStoredDuringARunSaysWhenItIsLinked: while P or W runs, a stored
// answer waits to be linked; its lines say so rather than "not
// downloaded".
func TestStoredDuringARunSaysWhenItIsLinked(t *testing.T) {
	e := newAnswerEnv(t)
	e.upload(t, "orders_d96a.edi", 2)
	m := e.tab(t)
	st := spool.Stored{Meta: spool.Meta{DeliveryAttemptID: "da-run", MessageType: "ORDRSP"}}
	m.links.pending = append(m.links.pending, st)
	require.Equal(t, []string{"  answer       stored: linked to its upload once this run (P, W) is over"},
		m.linkLines("da-run", "ORDRSP", true))
	require.Equal(t, []string{"  answer       not downloaded yet: linked to its upload once downloaded (d)"},
		m.linkLines("da-other", "ORDRSP", true))
}
