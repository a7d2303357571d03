package tui

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/tui/logview"
)

// TestFlowUploadThroughTheShell: `:upload PATH` opens the upload screen
// of the active connection on that file, y sends it (202), esc goes back
// to the file list and esc again to the mailbox; u opens the screen too.
// Without a connection tab :upload says what to do.
func TestFlowUploadThroughTheShell(t *testing.T) {
	const canary = "sk_uploadcanary_77c1"
	env, dc, sim, dir := demoProfileEnv(t, 3, canary)

	po := filepath.Join(dir, "po 1.edi") // a space: the command line keeps the whole path
	require.NoError(t, os.WriteFile(po, []byte("UNA:+.? 'UNB+UNOC:3+4012345000009:14+4098765000003:14+250602:0800+REF1'"+
		"UNH+1+ORDERS:D:96A:UN'BGM+220+PO-SHELL+9'DTM+137:20250602:102'NAD+BY+4012345000009::9'LIN+1++4000862141404:SRS'QTY+21:3'UNS+S'UNT+8+1'UNZ+1+REF1'"), 0o600))

	m, err := NewApp(context.Background(), Options{Env: env, Log: logview.New(0, nil)})
	require.NoError(t, err)
	seen.Reset()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 36))
	waitOutput(t, tm, "connections: 1 profile(s)")
	tm.Type(":upload " + po)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, ":upload works in a connection's tab")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})

	tm.Send(tea.KeyMsg{Type: tea.KeyEnter}) // open the connection
	waitOutput(t, tm, "[1 "+dc.Name+"]", "head of the mailbox")
	tm.Type(":upload " + po)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "Upload ORDERS", "po 1.edi", "Idempotency-Key", "4012345000009:PO-SHELL:orders:1")
	tm.Type("y")
	waitOutput(t, tm, "202 accepted")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitOutput(t, tm, "choose a file")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitOutput(t, tm, "head of the mailbox")
	tm.Type("u")
	waitOutput(t, tm, "choose a file", "upload history")
	tm.Type("q") // closes the upload screen, as q closes every screen
	waitOutput(t, tm, "head of the mailbox")
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitLong))
	final := tm.FinalModel(t).(Model)
	require.Empty(t, final.tabs)

	ups := sim.Uploads(dc.ConnectionID)
	require.Len(t, ups, 1)
	require.Equal(t, "4012345000009:PO-SHELL:orders:1", ups[0].IdempotencyKey)
	_, err = seen.ReadFrom(tm.FinalOutput(t))
	require.NoError(t, err)
	require.NotContains(t, seen.String(), canary)
}
