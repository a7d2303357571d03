package conntab

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/export"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// mailboxTable is the table on screen: the page or the backlog, the
// rows the filter shows (the marked ones only, when rows are marked).
func (m Model) mailboxTable() export.Table {
	name := "mailbox page"
	if m.view == viewBacklog {
		name = "backlog"
	}
	rows := m.table.Visible()
	entries := make([]apiclient.Entry, 0, len(rows))
	marked := m.markedSet()
	for _, r := range rows {
		if len(marked) == 0 || marked[r.ID()] {
			entries = append(entries, r.Entry)
		}
	}
	return export.MailboxTable(name, entries)
}

// writeTable is the command that writes t to path and says so.
func writeTable(t export.Table) func(string, bool) (string, error) {
	return func(path string, force bool) (string, error) {
		if err := export.WriteTable(path, t, force); err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: %d row%s", t.Name, len(t.Rows), plural(len(t.Rows), "", "s")), nil
	}
}

// onExport is :export PATH in the tab: the top screen's table when it
// has one (common.Exporter), else the mailbox table. A file that exists
// is kept unless :export!.
func (m Model) onExport(msg common.ExportMsg) (Model, tea.Cmd) {
	path := common.ExpandHome(msg.Path)
	if path == "" {
		return m, infoErrCmd(":export needs a file: :export PATH.csv or PATH.json (:export! PATH replaces a file that exists)")
	}
	var write func(string, bool) (string, error)
	if top := m.stack.Top(); top != nil {
		if write = common.ExporterOf(top); write == nil {
			return m, infoErrCmd("the " + top.Title() + " has no table to export; esc back to the mailbox, then :export PATH")
		}
	} else {
		write = writeTable(m.mailboxTable())
	}
	force := msg.Force
	return m, func() tea.Msg {
		what, err := write(path, force)
		if err != nil {
			return common.Info{Text: ":export: " + termsafe.String(err.Error()), Err: true}
		}
		return common.Info{Text: "exported " + what + " to " + termsafe.String(path)}
	}
}

// Exporter of the uploads screen: the upload history as listed, with
// how each was answered.
func (a answersScreen) Exporter() func(string, bool) (string, error) {
	l := a.linked
	if l == nil {
		return func(string, bool) (string, error) {
			return "", fmt.Errorf("the uploads are still being read; nothing was written")
		}
	}
	t := export.UploadsTable(l.Uploads, func(i int) string { return l.UploadText(i) })
	return writeTable(t)
}
