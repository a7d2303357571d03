package fix

import (
	"context"
	"github.com/nutrab2b/b2bx/edi/pin"
	"os/exec"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/tui/common"
)

// fakeBackend records what the flow asks.
type fakeBackend struct {
	review *up.Review
	sent   []*up.Plan
}

func (f *fakeBackend) Prepare(context.Context, spool.UploadRecord) (*Source, string, error) {
	return &Source{Pins: []pin.Pin{{Source: "CONTRL", Segment: 6, Text: "NAD wrong"}}}, "/work/PO-1-fix.edi", nil
}

func (f *fakeBackend) Review(context.Context, *Source, spool.UploadRecord, string) (*up.Review, error) {
	return f.review, nil
}

func (f *fakeBackend) Send(_ context.Context, p *up.Plan) (*up.Outcome, error) {
	f.sent = append(f.sent, p)
	return &up.Outcome{Record: spool.UploadRecord{Key: p.Key, HTTPStatus: 202, UploadID: "u-2", Fixes: p.Fixes}}, nil
}

func testCommon() *common.Common {
	return &common.Common{Styles: common.NewStyles(true), Width: 120, Height: 40}
}

// step runs a command and gives its message back, as a stack would.
func step(t *testing.T, m common.Screen, cmd tea.Cmd) (common.Screen, tea.Msg) {
	t.Helper()
	require.NotNil(t, cmd)
	msg := cmd()
	if e, ok := msg.(common.Exec); ok {
		return m, e
	}
	m, next := m.Update(msg)
	if next != nil {
		return step(t, m, next)
	}
	return m, nil
}

func TestFlowEditsReviewsAndSendsOnY(t *testing.T) {
	be := &fakeBackend{review: &up.Review{Preflight: &up.Preflight{SHA256: "ab"}, Plan: &up.Plan{Key: "S:PO-1:orders:2", Fixes: "u-1"}}}
	var m common.Screen = New(testCommon(), 3, be, spool.UploadRecord{Key: "S:PO-1:orders:1", UploadID: "u-1"}, func(k string) string {
		return map[string]string{"EDITOR": "my-editor --wait"}[k]
	})
	m, msg := step(t, m, m.(Model).Init())
	e, ok := msg.(common.Exec)
	require.True(t, ok, "the editor is asked for: %T", msg)
	require.Equal(t, []string{"sh", "-c", `my-editor --wait "$@"`, "my-editor --wait", "/work/PO-1-fix.edi"}, e.Cmd.Args)
	require.False(t, m.Closes(tea.KeyMsg{Type: tea.KeyEsc}), "not closed while the editor runs")

	m, _ = step(t, m, func() tea.Msg { return e.Done(nil) })
	v := m.View()
	require.Contains(t, v, "Idempotency-Key S:PO-1:orders:2")
	require.Contains(t, v, "recorded as a resend of u-1")
	require.Empty(t, be.sent, "nothing is sent before y")

	m, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	m, _ = step(t, m, cmd)
	require.Len(t, be.sent, 1)
	require.Contains(t, m.View(), "resend of   u-1")
	require.True(t, m.Closes(tea.KeyMsg{Type: tea.KeyEsc}))
}

func TestFlowRefusedAndEditorFailure(t *testing.T) {
	be := &fakeBackend{review: &up.Review{Preflight: &up.Preflight{SHA256: "ab"}, Unchanged: true,
		Plan: &up.Plan{Key: "S:PO-1:orders:2"}, Refused: &up.SameAsRejectedError{}}}
	var m common.Screen = New(testCommon(), 3, be, spool.UploadRecord{Key: "k1"}, func(string) string { return "" })
	m, msg := step(t, m, m.(Model).Init())
	e := msg.(common.Exec)
	require.Equal(t, "vi", e.Cmd.Args[3], "vi when neither VISUAL nor EDITOR is set")

	// The editor fails: say so, E opens it again.
	m, _ = step(t, m, func() tea.Msg { return e.Done(&exec.ExitError{}) })
	require.Contains(t, m.View(), "the editor failed")
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("E")})
	require.NotNil(t, cmd)
	_, isExec := cmd().(common.Exec)
	require.True(t, isExec)

	m, _ = step(t, m, func() tea.Msg { return e.Done(nil) })
	require.Contains(t, m.View(), "unchanged")
	require.Contains(t, m.View(), "cannot send:")
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	require.Empty(t, be.sent, "a refused fix is never sent")
	require.True(t, strings.Contains(m.View(), "not sent:"))
}

// helpKeys are the keys the footer offers.
func helpKeys(m common.Screen) string {
	var ks []string
	for _, b := range m.ShortHelp() {
		ks = append(ks, b.Help().Key)
	}
	for _, g := range m.FullHelp() {
		for _, b := range g {
			ks = append(ks, "full:"+b.Help().Key)
		}
	}
	return strings.Join(ks, " ")
}

// When the review says "cannot send", the footer does not offer y; a
// review that may be sent does; a failed editor run (no review of the
// file as it is now) offers only E, even after an earlier good review.
func TestFooterOffersYOnlyWhenSendable(t *testing.T) {
	good := &up.Review{Preflight: &up.Preflight{SHA256: "ab"}, Plan: &up.Plan{Key: "S:PO-1:orders:2", Fixes: "u-1"}}
	refused := &up.Review{Preflight: &up.Preflight{SHA256: "ab"}, Unchanged: true, Plan: &up.Plan{Key: "S:PO-1:orders:2"}, Refused: &up.SameAsRejectedError{}}
	be := &fakeBackend{review: refused}
	var m common.Screen = New(testCommon(), 3, be, spool.UploadRecord{Key: "k1"}, func(string) string { return "" })
	m, msg := step(t, m, m.(Model).Init())
	e := msg.(common.Exec)
	m, _ = step(t, m, func() tea.Msg { return e.Done(nil) })
	require.Contains(t, m.View(), "cannot send:")
	require.Equal(t, "E full:E", helpKeys(m))

	be.review = good
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("E")})
	m, msg = step(t, m, cmd)
	m, _ = step(t, m, func() tea.Msg { return msg.(common.Exec).Done(nil) })
	require.NotContains(t, m.View(), "cannot send:")
	require.Equal(t, "y E full:y full:E", helpKeys(m))

	// The editor fails on the next round: the earlier review is gone.
	m, cmd = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("E")})
	m, msg = step(t, m, cmd)
	m, _ = step(t, m, func() tea.Msg { return msg.(common.Exec).Done(&exec.ExitError{}) })
	require.Contains(t, m.View(), "cannot send:")
	require.Equal(t, "E full:E", helpKeys(m))
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	require.Empty(t, be.sent)
	require.Contains(t, m.View(), "not sent:")
}
