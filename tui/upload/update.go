package upload

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// planMsg is the pre-flight and key plan of a file.
type planMsg struct {
	owner common.TabID
	req   uint64
	path  string
	dir   bool // the path is a directory: the picker opens it
	plan  *up.Plan
	err   error
}

// sentMsg is the answer of an upload.
type sentMsg struct {
	owner common.TabID
	req   uint64
	out   *up.Outcome
	err   error // refused before sending (nothing was sent)
}

// historyMsg is the connection's upload history, newest first.
type historyMsg struct {
	owner common.TabID
	req   uint64
	recs  []spool.UploadRecord
	err   error
}

// Update handles keys and the screen's results; every other message goes
// to the file picker (its directory reads carry the picker's own id).
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case planMsg:
		if msg.owner != m.owner || msg.req != m.waiting || m.stage != stagePlanning {
			return m, nil // stale: the operator went back meanwhile
		}
		return m.planned(msg)
	case sentMsg:
		if msg.owner != m.owner || msg.req != m.waiting || m.stage != stageSending {
			return m, nil
		}
		return m.sent(msg)
	case historyMsg:
		if msg.owner != m.owner || msg.req != m.histReq {
			return m, nil
		}
		m.history, m.historyErr = msg.recs, msg.err
		return m, nil
	case tea.KeyMsg:
		return m.key(msg)
	}
	var cmd tea.Cmd
	m.picker, cmd = m.picker.Update(msg)
	return m, cmd
}

func (m Model) key(k tea.KeyMsg) (Model, tea.Cmd) {
	if m.editing {
		return m.editKey(k)
	}
	if key.Matches(k, m.keys.History) {
		m.showHistory = !m.showHistory
		if m.showHistory {
			return m.loadHistory()
		}
		return m, nil
	}
	if m.showHistory && key.Matches(k, m.keys.Back) {
		m.showHistory = false
		return m, nil
	}
	switch m.stage {
	case stagePick:
		return m.pickKey(k)
	case stagePlanning:
		if key.Matches(k, m.keys.Back) {
			m.waiting = 0 // the plan's answer is dropped when it comes
			return m.toPicker("")
		}
	case stageReport:
		return m.reportKey(k)
	case stageSending:
		if key.Matches(k, m.keys.Back) && m.cancel != nil {
			m.cancel() // the answer comes back as cancelled: the key is kept
		}
	case stageResult:
		return m.resultKey(k)
	}
	return m, nil
}

func (m Model) pickKey(k tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(k, m.keys.Back):
		m.done = true
		return m, nil
	case key.Matches(k, m.keys.AllFiles):
		m.allFiles = !m.allFiles
		m.picker.AllowedTypes = Extensions
		m.note = "showing .edi, .edifact and .txt files (a: all files)"
		if m.allFiles {
			m.picker.AllowedTypes = nil
			m.note = "showing all files (a: only .edi, .edifact, .txt)"
		}
		return m, nil
	}
	var cmd tea.Cmd
	m.picker, cmd = m.picker.Update(k)
	if ok, path := m.picker.DidSelectFile(k); ok {
		return m.startPlan(path)
	}
	if ok, path := m.picker.DidSelectDisabledFile(k); ok {
		m.note = termsafe.String(filepath.Base(path)) + " is not an .edi, .edifact or .txt file: press a to show all files"
	}
	return m, cmd
}

// startPlan reads and checks path in the background.
func (m Model) startPlan(path string) (Model, tea.Cmd) {
	m.path, m.plan, m.planErr, m.confirmed = path, nil, nil, false
	m.out, m.sendErr, m.note = nil, nil, ""
	m.stage = stagePlanning
	req := m.nextReq()
	m.waiting = req
	be, ctx, owner := m.be, m.ctx, m.owner
	return m, func() tea.Msg {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return planMsg{owner: owner, req: req, path: path, dir: true}
		}
		p, err := be.Prepare(ctx, path)
		return planMsg{owner: owner, req: req, path: path, plan: p, err: err}
	}
}

func (m Model) planned(msg planMsg) (Model, tea.Cmd) {
	m.waiting = 0
	if msg.dir {
		if abs, err := filepath.Abs(msg.path); err == nil {
			m.picker.CurrentDirectory = abs
		}
		return m.toPicker("")
	}
	m.stage = stageReport
	m.plan, m.planErr = msg.plan, msg.err
	return m, nil
}

// toPicker goes back to the file list (re-read, so new files show).
func (m Model) toPicker(note string) (Model, tea.Cmd) {
	m.stage = stagePick
	m.plan, m.planErr, m.out, m.sendErr = nil, nil, nil, nil
	m.note = note
	return m, m.picker.Init()
}

func (m Model) reportKey(k tea.KeyMsg) (Model, tea.Cmd) {
	p := m.plan
	if key.Matches(k, m.keys.Back) {
		return m.toPicker("nothing was sent")
	}
	switch {
	case p == nil || p.Preflight.Blocked():
		return m, nil // only esc: the reason is on screen
	case p.NeedsChoice():
		switch {
		case key.Matches(k, m.keys.Replay):
			_ = p.Choose(up.ChoiceReplay)
		case key.Matches(k, m.keys.New):
			_ = p.Choose(up.ChoiceNew)
		case k.String() == "N":
			return m.toPicker("aborted; nothing was sent")
		}
		return m, nil
	case m.needsConfirm():
		switch k.String() {
		case "y", "Y":
			m.confirmed = true
		case "n", "N":
			return m.toPicker("nothing was sent")
		}
		return m, nil
	case key.Matches(k, m.keys.Edit):
		m.editing, m.keyErr = true, ""
		m.keyIn.SetValue(p.Key)
		m.keyIn.CursorEnd()
		return m, m.keyIn.Focus()
	case key.Matches(k, m.keys.Yes):
		return m.startSend()
	}
	return m, nil
}

// needsConfirm reports whether the plan has warnings not yet accepted.
func (m Model) needsConfirm() bool {
	return m.plan != nil && !m.confirmed && len(m.plan.Preflight.Warnings()) > 0
}

// editKey handles the key input: validated on every key, enter takes a
// valid key (empty restores the generated one), esc keeps the old one.
func (m Model) editKey(k tea.KeyMsg) (Model, tea.Cmd) {
	switch k.String() {
	case "esc":
		m.editing, m.keyErr = false, ""
		m.keyIn.Blur()
		return m, nil
	case "enter":
		v := strings.TrimSpace(m.keyIn.Value())
		if err := m.plan.SetKey(v); err != nil {
			m.keyErr = keyProblem(v, err)
			return m, nil
		}
		m.editing, m.keyErr = false, ""
		m.keyIn.Blur()
		return m, nil
	}
	var cmd tea.Cmd
	m.keyIn, cmd = m.keyIn.Update(k)
	m.keyErr = keyProblem(strings.TrimSpace(m.keyIn.Value()), nil)
	return m, cmd
}

// keyProblem is the live verdict on a typed key ("" when it is fine).
func keyProblem(v string, err error) string {
	if v == "" {
		return "empty: enter restores the generated key"
	}
	if err == nil {
		err = up.ValidateKey(v)
	}
	if err == nil {
		return ""
	}
	return termsafe.String(err.Error())
}

// startSend uploads the plan under its key in the background.
func (m Model) startSend() (Model, tea.Cmd) {
	m.stage = stageSending
	m.out, m.sendErr = nil, nil
	req := m.nextReq()
	m.waiting = req
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancel = cancel
	be, owner, p := m.be, m.owner, m.plan
	return m, func() tea.Msg {
		defer cancel()
		out, err := be.Send(ctx, p)
		return sentMsg{owner: owner, req: req, out: out, err: err}
	}
}

func (m Model) sent(msg sentMsg) (Model, tea.Cmd) {
	m.waiting, m.cancel = 0, nil
	m.stage = stageResult
	m.out, m.sendErr = msg.out, msg.err
	m, hist := m.loadHistory()
	if msg.out == nil {
		return m, hist // nothing was recorded
	}
	owner := m.owner
	return m, tea.Batch(hist, func() tea.Msg { return SentMsg{Tab: owner} })
}

// SentMsg tells the tab an upload's outcome was recorded in its history
// (the tab then updates the tracking index in the background).
type SentMsg struct{ Tab common.TabID }

// Owner implements common.Owned: the stack lets it pass to the tab.
func (m SentMsg) Owner() common.TabID { return m.Tab }

func (m Model) resultKey(k tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(k, m.keys.Retry) && m.out != nil && m.out.Retry:
		return m.startSend() // the same plan: the same bytes under the same key
	case key.Matches(k, m.keys.Back), k.String() == "enter":
		return m.toPicker("")
	}
	return m, nil
}

// loadHistory reads the connection's upload history in the background.
func (m Model) loadHistory() (Model, tea.Cmd) {
	req := m.nextReq()
	m.histReq = req
	be, owner := m.be, m.owner
	return m, func() tea.Msg {
		recs, err := be.History()
		return historyMsg{owner: owner, req: req, recs: recs, err: err}
	}
}
