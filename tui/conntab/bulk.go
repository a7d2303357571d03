package conntab

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/tui/common"
)

// bulkRunReq is y on the process preview: the entries to process in
// order.
type bulkRunReq struct {
	msgBase
	entries []apiclient.Entry
}

// previewProcess is P with marked rows: the worker order over them,
// entry by entry, stopping at the first failure, previewed first.
func (m Model) previewProcess() (Model, tea.Cmd) {
	var listing []apiclient.Entry
	var marked []string
	for _, r := range m.table.Rows() {
		listing = append(listing, r.Entry)
		if m.marks[r.ID()] {
			marked = append(marked, r.ID())
		}
	}
	plan := m.run.PlanMarked(listing, marked)
	var yes tea.Msg // the preview's y (common.Prompt): nil when nothing would run
	if runs := plan.Runs(); len(runs) > 0 {
		entries := make([]apiclient.Entry, len(runs))
		for i, st := range runs {
			entries[i] = st.Entry
		}
		yes = bulkRunReq{msgBase: msgBase{tab: m.id}, entries: entries}
	}
	return m, m.stack.Push(common.NewPreview(m.c.Styles, "Process the marked entries", plan.Preview(), yes, nothingRun))
}

// runBulk is y on the process preview: the runner's OrderMarked over
// the marked entries, one by one (claim, download, verify, store,
// acknowledge, one claim at a time, never an ID twice); the first
// failure stops it (stopWork).
func (m Model) runBulk(req bulkRunReq) (Model, tea.Cmd) {
	switch {
	case m.work != nil:
		return m, infoErrCmd("wait: a " + m.work.what + " is running")
	case m.hasActiveClaim():
		return m, infoErrCmd("finish the current claim first: a acknowledges it, x drops it")
	case m.ordering():
		return m, infoCmd("already processing")
	case len(req.entries) == 0:
		return m, nil
	}
	m = m.withMarks(nil)
	return m.startOrder(worker.Order{Kind: worker.OrderMarked, Entries: req.entries})
}
