package conntab

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/worker"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/tui/fix"
	"github.com/nutrab2b/b2bx/tui/upload"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

// fixEditor is the shipped EDITOR script that corrects the buyer GLN.
var fixEditor, _ = filepath.Abs(filepath.Join("..", "..", "testdata", "fix-rejectable.sh"))

// TestFixAndResendARejectedUpload: the partner rejects the rejectable
// ORDERS; in H the upload says so, v opens it with the CONTRL's error
// pinned on the NAD, E runs the editor on a work copy (the script fixes
// the GLN), the review shows the changed segment and a new key, and y
// sends it: 202, recorded as a resend of the rejected upload.
func TestFixAndResendARejectedUpload(t *testing.T) {
	e := newAnswerEnv(t)
	key := e.upload(t, "orders_rejectable.edi", 1)
	m := e.tab(t)
	m.getenv = func(k string) string {
		if k == "EDITOR" {
			return fixEditor
		}
		return ""
	}
	m, n := pressAll(t, m, "P")
	require.Empty(t, n)
	require.Equal(t, worker.PhaseAcked, m.run.Phase())

	// E on a row that is not an upload says what E is for.
	m, n = pressAll(t, m, "H")
	require.Empty(t, n)
	v := flat(m.View())
	require.Contains(t, v, "key "+key+" rejected · v pinned errors · E fix and resend")

	// v: the ORDERS as sent, the NAD error pinned and explained.
	m, n = pressAll(t, m, "v")
	require.Empty(t, n)
	vm, ok := viewer.FromScreen(m.stack.Top())
	require.True(t, ok, "the viewer is on top")
	require.Len(t, vm.Pins(), 1)
	v = flat(m.View())
	require.Contains(t, v, "1 error of the partner's answer pinned")
	require.Contains(t, v, viewer.PinMark+" CONTRL element 2.1 [12]")
	require.Contains(t, v, "4012345000085")
	m, _ = pressAll(t, m, "q")

	// E: the work copy, the editor, the review.
	m, n = pressAll(t, m, "E")
	require.Empty(t, n)
	fm, ok := m.stack.Top().(fix.Model)
	require.True(t, ok, "the fix flow is on top: %T", m.stack.Top())
	require.FileExists(t, fm.WorkPath())
	v = flat(m.View())
	require.Contains(t, v, "Against the rejected bytes")
	require.Contains(t, v, "4012345000009", "the changed NAD")
	require.Contains(t, v, "edited:", "the pinned segment was touched")
	require.Regexp(t, `Idempotency-Key \S+:orders:2`, v, "a new key")
	require.Contains(t, v, "y send the fix")

	// y: sent with the new key, linked to the rejected upload.
	m, n = pressAll(t, m, "y")
	require.Empty(t, n)
	fm = m.stack.Top().(fix.Model)
	o := fm.Outcome()
	require.NotNil(t, o)
	require.True(t, o.Accepted(), "%+v", o)
	require.Equal(t, 202, o.Record.HTTPStatus)
	require.NotEqual(t, key, o.Record.Key)
	require.NotEmpty(t, o.Record.Fixes)
	require.Contains(t, flat(m.View()), "resend of")
	m, _ = pressAll(t, m, "esc")
	_, onAnswers := m.stack.Top().(answersScreen)
	require.True(t, onAnswers, "esc leaves the flow back to H")
	require.NotContains(t, m.View(), canaryToken)
}

// TestFixRefusesUnchangedBytes: an editor that changes nothing gets the
// resend guard's refusal with the reason, and y sends nothing.
func TestFixRefusesUnchangedBytes(t *testing.T) {
	e := newAnswerEnv(t)
	e.upload(t, "orders_rejectable.edi", 1)
	m := e.tab(t)
	m.getenv = func(k string) string {
		if k == "VISUAL" {
			return "true"
		}
		return ""
	}
	m, _ = pressAll(t, m, "P", "H", "E")
	v := flat(m.View())
	require.Contains(t, v, "unchanged")
	require.Contains(t, v, "cannot send: these bytes are identical to an upload the partner rejected")
	m, _ = pressAll(t, m, "y")
	require.Nil(t, m.stack.Top().(fix.Model).Outcome(), "nothing was sent")
	require.Contains(t, flat(m.View()), "not sent:")
	hist, err := up.History(e.conn.Spool, answerConn)
	require.NoError(t, err)
	require.Len(t, hist, 1, "only the rejected upload is in the history")
}

// TestUploadScreenRefusesRejectedBytes: u / :upload on bytes identical
// to a rejected upload says why and sends nothing; the app has no way
// around it.
func TestUploadScreenRefusesRejectedBytes(t *testing.T) {
	e := newAnswerEnv(t)
	e.upload(t, "orders_rejectable.edi", 1)
	m := e.tab(t)
	m, _ = pressAll(t, m, "P")
	path := filepath.Join(e.dir, "orders_rejectable.edi") // the file e.upload sent
	m, _ = settle(t, m, send(upload.OpenMsg{Tab: testTab, Path: path}))
	v := flat(m.View())
	require.Contains(t, v, "identical to an upload the partner rejected")
	require.Contains(t, v, "E on the rejected upload")
	_, _ = pressAll(t, m, "y")
	require.Len(t, e.sim.Uploads(answerConn), 1, "nothing more was sent")
}
