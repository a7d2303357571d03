package tui

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/conntab"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

// `:view PATH` opens the segment viewer. In a connection tab the tab
// holds it (conntab.ViewMsg), next to v and D on its stored payloads. On
// the connection list the root model holds it, over the page, the way it
// holds the event inspector: it gets the keys (q, esc at rest close it;
// : and ? stay the shell's while no search is typed), and owns the file
// until it closes.
type shellView struct {
	v       *viewer.Model      // nil when closed
	gen     uint64             // the open viewer's request: its messages carry it
	waiting uint64             // a file being opened; 0 when none
	last    uint64             // the last request handed out
	cancel  context.CancelFunc // stops the open that is waited for
}

type (
	// shellViewOpened: the file for :view, opened and parsed. Whoever
	// drops it closes the source.
	shellViewOpened struct {
		req uint64
		src *viewer.Source
		err error
	}
	// shellViewerMsg carries the shell viewer's own messages.
	shellViewerMsg struct {
		gen   uint64
		inner tea.Msg
	}
)

var closeViewKey = key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc/q", "close the viewer"))

// openView is :view PATH.
func (m Model) openView(path string) (Model, tea.Cmd) {
	path = strings.TrimSpace(path)
	if t := m.activeTab(); t != nil {
		id := t.id
		return m, func() tea.Msg { return conntab.ViewMsg{Tab: id, Path: path} }
	}
	if path == "" {
		return m.showError(common.ErrorMsg{Text: ":view needs a file: :view PATH (in a connection's tab, v views a downloaded entry)"}), nil
	}
	path = common.ExpandHome(path)
	if m.sv.cancel != nil {
		m.sv.cancel() // a newer :view replaces an open still running
	}
	m.sv.last++
	req := m.sv.last
	ctx, cancel := context.WithCancel(m.ctx)
	m.sv.waiting, m.sv.cancel = req, cancel
	return m, func() tea.Msg {
		src, err := viewer.OpenContext(ctx, path)
		return shellViewOpened{req, src, err}
	}
}

func (m Model) onShellViewOpened(msg shellViewOpened) (Model, tea.Cmd) {
	if msg.req != m.sv.waiting {
		if msg.src != nil {
			_ = msg.src.Close()
		}
		return m, nil
	}
	m.sv.waiting = 0
	if m.sv.cancel != nil {
		m.sv.cancel()
		m.sv.cancel = nil
	}
	if msg.err != nil {
		return m.showError(common.ErrorMsg{Text: "the viewer cannot open it: " + termsafe.String(msg.err.Error())}), nil
	}
	m = m.closeShellView()
	v := viewer.New(m.c, msg.src, viewer.Options{}).SetSize(m.c.Width, m.bodyH)
	m.sv.v, m.sv.gen = &v, msg.req
	return m, nil
}

// closeShellView closes the viewer and its file.
func (m Model) closeShellView() Model {
	if m.sv.v != nil {
		_ = m.sv.v.Close()
	}
	m.sv.v, m.sv.gen = nil, 0
	return m
}

// shellViewKey handles a key while the viewer is open (normal mode).
func (m Model) shellViewKey(k tea.KeyMsg) (Model, tea.Cmd) {
	v := *m.sv.v
	switch {
	case v.Closes(k):
		return m.closeShellView(), nil
	case !v.Capturing() && (key.Matches(k, m.keys.Command) || key.Matches(k, m.keys.Help)):
		return m.globalKey(k)
	}
	var cmd tea.Cmd
	v, cmd = v.Update(k)
	m.sv.v = &v
	return m, m.wrapShellView(cmd)
}

func (m Model) onShellViewerMsg(msg shellViewerMsg) (Model, tea.Cmd) {
	if m.sv.v == nil || msg.gen != m.sv.gen {
		return m, nil // a closed viewer's step
	}
	v, cmd := m.sv.v.Update(msg.inner)
	m.sv.v = &v
	return m, m.wrapShellView(cmd)
}

func (m Model) wrapShellView(cmd tea.Cmd) tea.Cmd {
	gen := m.sv.gen
	return viewer.MapCmd(cmd, func(msg tea.Msg) tea.Msg { return shellViewerMsg{gen, msg} })
}
