package conntab

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/bulk"
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
	plan := bulk.PlanProcess(listing, marked, bulk.ProcessOptions{Done: m.run.Acknowledged, PassesOver: m.run.PassesOver})
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

// runBulk processes the marked entries one by one (claim, download,
// verify, store, acknowledge); the first failure stops it (stopWork).
func (m Model) runBulk(req bulkRunReq) (Model, tea.Cmd) {
	switch {
	case m.work != nil:
		return m, infoErrCmd("wait: a " + m.work.what + " is running")
	case m.hasActiveClaim():
		return m, infoErrCmd("finish the current claim first: a acknowledges it, x drops it")
	case len(req.entries) == 0:
		return m, nil
	}
	m = m.release()
	m.run.Clear()
	m.claim = nil
	m.auto, m.bulk = true, req.entries[1:]
	m = m.withMarks(nil)
	return m.launchClaim(req.entries[0])
}

// bulkNext takes the next marked entry after an acknowledged one; ok is
// false when none is left (the bulk run ends).
func (m Model) bulkNext() (Model, tea.Cmd, bool) {
	if len(m.bulk) == 0 || !m.auto {
		m.bulk = nil
		return m, nil, false
	}
	next := m.bulk[0]
	m.bulk = m.bulk[1:]
	if cmd := m.refuseClaim(next); cmd != nil {
		m.bulk = nil
		m, stop := m.stopWork(cmd)
		return m, stop, true
	}
	m.run.Clear()
	m.claim = nil
	m, cmd := m.launchClaim(next)
	return m, cmd, true
}
