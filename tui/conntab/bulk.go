package conntab

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/tui/common"
)

// previewScreen shows what a bulk action would do (worker.ProcessPlan.Preview) and
// runs it only on y: yes is the request it then sends to the tab.
type previewScreen struct {
	common.Base
	c      *common.Common
	title  string
	lines  []string // terminal-safe
	yes    tea.Msg
	done   bool
	reload bool // closing it reads the uploads and answers again (something was sent)
	w, h   int
}

var (
	bulkYesKey = key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "run it"))
	bulkNoKey  = key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("N/esc", "run nothing"))
)

func (p previewScreen) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && key.Matches(k, bulkYesKey) && p.yes != nil {
		p.done = true
		return p, send(p.yes)
	}
	if k, ok := msg.(tea.KeyMsg); ok && key.Matches(k, bulkNoKey) {
		p.done = true
		return p, infoCmd("nothing was run")
	}
	return p, nil
}

func (p previewScreen) View() string {
	s := p.c.Styles
	out := []string{s.Title.Render(p.title)}
	for _, l := range p.lines {
		out = append(out, common.Wrap("  "+l, max(p.w, 20))...)
	}
	help := s.Key.Render("y") + " run it · " + s.Key.Render("N/esc") + " run nothing"
	if p.yes == nil {
		help = s.Muted.Render("nothing to run") + " · " + s.Key.Render("esc") + " back"
	}
	out = append(out, "", help)
	return strings.Join(common.Fill(out, max(p.h, 1)), "\n")
}

func (p previewScreen) SetSize(w, h int) common.Screen { p.w, p.h = w, h; return p }
func (p previewScreen) ShortHelp() []key.Binding       { return []key.Binding{bulkYesKey, bulkNoKey} }
func (p previewScreen) FullHelp() [][]key.Binding      { return [][]key.Binding{p.ShortHelp()} }
func (p previewScreen) Closes(k tea.KeyMsg) bool       { return k.String() == "q" }
func (p previewScreen) Title() string                  { return "preview" }
func (p previewScreen) Done() bool                     { return p.done }

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
	p := previewScreen{c: m.c, title: "Process the marked entries", lines: plan.Preview()}
	if runs := plan.Runs(); len(runs) > 0 {
		entries := make([]apiclient.Entry, len(runs))
		for i, st := range runs {
			entries[i] = st.Entry
		}
		p.yes = bulkRunReq{msgBase: msgBase{tab: m.id}, entries: entries}
	}
	return m, m.stack.Push(p)
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
