package viewer

import (
	"errors"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// sanitize is the one way text from the data reaches the screen.
func sanitize(s string) string { return termsafe.String(s) }

// View draws the viewer: exactly height lines of at most width cells.
func (m Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	if err := m.src.Err(); err != nil {
		return m.errorView(err)
	}
	var out []string
	err := m.src.read(func() { out = m.frame() })
	if err != nil {
		return m.errorView(err)
	}
	return m.finish(out)
}

// frame renders every part; it reads the file's bytes (under read).
func (m Model) frame() []string {
	l := m.layout()
	out := make([]string, 0, m.height)
	out = append(out, m.header(l.header)...)
	out = append(out, m.rowsView(l.list)...)
	if l.pane > 0 {
		switch m.pane {
		case paneIssues:
			out = append(out, m.issuesView(l.pane)...)
		case paneRaw:
			out = append(out, m.rawView(l.pane)...)
		default:
			out = append(out, m.detailView(l.pane)...)
		}
	}
	return append(out, m.statusLine())
}

// finish fits lines to the area: cut to width, padded to height.
func (m Model) finish(lines []string) string {
	if len(lines) > m.height {
		lines = lines[:m.height]
	}
	for k, s := range lines {
		lines[k] = ansi.Truncate(s, m.width, "…")
	}
	for len(lines) < m.height {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// errorView replaces everything once the file cannot be shown.
func (m Model) errorView(err error) string {
	st := m.c.Styles
	lines := []string{st.Title.Render(m.title)}
	if errors.Is(err, ErrClosed) {
		lines = append(lines, "This view is closed; nothing of the file is shown any more.")
	} else {
		lines = append(lines, st.Error.Render(st.Marks.Fail+" "+sanitize(err.Error())),
			"Close this view and open the file again once it is complete.")
	}
	return m.finish(lines)
}

// fileErrorCmd tells the caller's footer that the file became unreadable.
func fileErrorCmd(src *Source) tea.Cmd {
	err := src.Err()
	if err == nil {
		return nil
	}
	text := src.Name() + ": " + sanitize(err.Error())
	return func() tea.Msg { return common.ErrorMsg{Text: text, Action: "open the file again once it is complete"} }
}

// statusLine is the search input while typing, else the search status
// and the position.
func (m Model) statusLine() string {
	st := m.c.Styles
	if m.input.Focused() {
		return common.InputView(m.input) + "  " + st.Muted.Render(m.status)
	}
	pos := "no segments"
	if n := m.doc().Len(); n > 0 {
		pos = "segment " + human.Int(m.cursor) + " of " + human.Int(n) + " (0-based)"
	}
	left := st.Muted.Render(m.status)
	gap := m.width - ansi.StringWidth(left) - ansi.StringWidth(pos)
	if gap < 2 {
		return left + "  " + pos
	}
	return left + strings.Repeat(" ", gap) + pos
}

// severityMark is the textual mark for an issue severity (NO_COLOR safe).
func (m Model) severityMark(s edi.Severity) string {
	st := m.c.Styles
	switch s {
	case edi.SeverityError:
		return st.Error.Render(st.Marks.Fail)
	case edi.SeverityWarning:
		return st.Warn.Render(st.Marks.Warn)
	}
	return " "
}

// padRight pads s with spaces to width cells (it must not be wider).
func padRight(s string, width int) string {
	if w := ansi.StringWidth(s); w < width {
		return s + strings.Repeat(" ", width-w)
	}
	return s
}

// cell fits s into exactly width cells.
func cell(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return padRight(ansi.Truncate(s, width, "…"), width)
}
