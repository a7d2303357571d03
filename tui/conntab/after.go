package conntab

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/fix"
	"github.com/nutrab2b/b2bx/tui/upload"
)

// afterScreen acts on what the tab's stack handed back after it gave a
// screen a message (common.Resulter, common.Reporter): the filter as it
// is typed, a prompt's answer, and — when the upload screen, the fix
// flow or the list of marked uploads sent leaves — the answers linked
// again, since something may have been sent. The tab reads messages
// here, never the screen.
func (m Model) afterScreen(res tea.Msg, cmd tea.Cmd) (Model, tea.Cmd) {
	var then tea.Cmd
	switch r := res.(type) {
	case filterMsg:
		m.table.SetFilter(r.value)
	case promptYes:
		m, then = m.answer(r.p)
	case bulkRunReq:
		m, then = m.runBulk(r)
	case bulkUploadReq:
		m, then = m.runBulkUploads(r)
	case upload.Left, fix.Left, reloadReq:
		m, then = m.loadLinks()
	case common.Info:
		then = func() tea.Msg { return r }
	}
	return m, tea.Batch(cmd, then)
}

// nothingRun is what a preview left without y hands back.
var nothingRun = common.Info{Text: "nothing was run"}
