package tui

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/find"
)

// findStore writes what b2bx keeps after an ORDERS upload and its two
// answers: the history with the file sent, the stored CONTRL and ORDRSP.
func findStore(t *testing.T) session.Env {
	t.Helper()
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	const conn = "c-de"
	data, err := os.ReadFile(fixturePath("orders_d96a.edi"))
	require.NoError(t, err)
	_, err = s.KeepSent(conn, data)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	at := time.Date(2025, 3, 12, 10, 30, 0, 0, time.UTC)
	rec := spool.UploadRecord{Time: at, ConnectionID: conn, File: "/tmp/po.edi", Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]),
		Key: "4012345000009:PO-4711:orders:1", SenderID: "4012345000009", BusinessID: "PO-4711", RecipientID: "4098765000003",
		ControlRef: "ICR0001", DocNumbers: []string{"PO-4711"}, N: 1, Outcome: spool.OutcomeAccepted, HTTPStatus: 202,
		UploadID: "up-1", InterchangeID: "ic-up-1", Status: "accepted"}
	require.NoError(t, s.AppendUpload(rec))
	for i, f := range []struct{ id, typ, file string }{{"d-contrl", "CONTRL", "contrl_22.edi"}, {"d-ordrsp", "ORDRSP", "ordrsp_d96a.edi"}} {
		b, err := os.ReadFile(fixturePath(f.file))
		require.NoError(t, err)
		w, err := s.Begin(conn, f.id)
		require.NoError(t, err)
		_, err = w.Write(b)
		require.NoError(t, err)
		sum := sha256.Sum256(b)
		_, err = w.Commit(spool.Meta{ConnectionID: conn, DeliveryAttemptID: f.id, InterchangeID: "ic-" + f.id, MessageType: f.typ,
			CreatedAt: at.Add(time.Duration(i+1) * time.Minute), Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])})
		require.NoError(t, err)
	}
	vars := map[string]string{spool.EnvDataDir: dir, credentials.EnvConfig: filepath.Join(t.TempDir(), "none.toml")}
	return session.Env{Getenv: func(k string) string { return vars[k] }}
}

// TestFlowFindAndTimeline runs the app as a program over a real store
// and its tracking index (built on the first find, in the background):
// F, the order number, enter shows the conversation; enter its timeline
// with the upload, its CONTRL and its ORDRSP in order; q pops both.
func TestFlowFindAndTimeline(t *testing.T) {
	m, _ := newTestModel(t)
	m.finder = machineSource{env: findStore(t)}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 30))
	waitOutput(t, tm, "connections: 1 profile(s)")
	tm.Type("F")
	waitOutput(t, tm, ":find ")
	tm.Type("PO-4711")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "1 conversation, newest first", "order PO-4711", "ANSWERED")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "steps in time order", "ORDERS uploaded: accepted", "CONTRL: accepted", "ORDRSP")
	tm.Type("q")
	waitOutput(t, tm, "1 conversation, newest first")
	tm.Type("q")
	waitOutput(t, tm, "connections: 1 profile(s)")
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitLong))
	final := tm.FinalModel(t).(Model)
	require.Nil(t, final.screens.Top())
}

// TestTimelineOrderFromTheIndex: the real source tells the upload, its
// CONTRL and its ORDRSP in that order.
func TestTimelineOrderFromTheIndex(t *testing.T) {
	m, _ := newTestModel(t)
	m.finder = machineSource{env: findStore(t)}
	m = command(t, m, "find po:PO-4711")
	m, cmd := updateCmd(t, m, keyMsg("enter"))
	m = run(t, m, cmd)
	tl := topIs[*find.Timeline](t, m)
	want := []string{"ORDERS uploaded: accepted", "CONTRL: accepted", "ORDRSP: 1 of 2 lines changed"}
	steps := tl.Steps()
	require.GreaterOrEqual(t, len(steps), len(want))
	for i, w := range want {
		require.True(t, strings.HasPrefix(steps[i].Title, w), "step %d is %q, not %q", i, steps[i].Title, w)
	}
}

// TestFindAnswersWhenTrackDBIsADirectory: the app's find, like `b2bx
// find`, answers from the stored files when the index file cannot be
// used, and its head says so.
func TestFindAnswersWhenTrackDBIsADirectory(t *testing.T) {
	env := findStore(t)
	mach, err := track.LoadMachine(env)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(track.DBPath(mach.Dir), 0o700))
	q, err := track.ParseQuery("po:PO-4711")
	require.NoError(t, err)
	r, st, err := machineSource{env: env}.Find(t.Context(), q)
	require.NoError(t, err)
	require.Len(t, r.Conversations, 1)
	require.Len(t, r.Conversations[0].Items, 3, "upload, CONTRL, ORDRSP from the files")
	require.Contains(t, st.Reason, "answering from the stored files")
	steps := machineSource{env: env}.Timeline(t.Context(), r.Conversations[0])
	require.NotEqual(t, "note", steps[0].Kind, "the timeline answers too: %+v", steps[0])
}
