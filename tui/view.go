package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/nutrab2b/b2bx/tui/common"
)

// maxErrLines bounds the footer's error block.
const maxErrLines = 3

// View draws tabs bar, the page, status bar and footer, each line cut to
// the terminal's width, the body padded to its height.
func (m Model) View() string {
	w, h := m.c.Width, m.c.Height
	if w == 0 {
		return "b2bx: starting…" // no size known yet; the size arrives at once
	}
	if m.tooSmall() {
		return fit(fmt.Sprintf("b2bx needs a terminal of at least %d×%d; this one is %d×%d.\nMake the window larger, or press q to quit.",
			MinWidth, MinHeight, w, h), w, h)
	}
	var b strings.Builder
	b.WriteString(ansi.Truncate(m.tabsBar(), w, "…"))
	b.WriteByte('\n')
	b.WriteString(fit(m.body(), w, m.bodyH))
	b.WriteByte('\n')
	b.WriteString(m.statusBar())
	b.WriteByte('\n')
	b.WriteString(m.footerView())
	return b.String()
}

// body is the top screen of the root stack, else the active page.
func (m Model) body() string {
	if p := m.page(); p != nil {
		return p.View()
	}
	if t := m.activeTab(); t != nil {
		return t.tab.View()
	}
	return m.list.View()
}

// tabsBar names the pages: 0 is the connection list, 1-9 the tabs; the
// active one is in brackets (visible without colour), DEMO on the right.
func (m Model) tabsBar() string {
	st := m.c.Styles
	parts := []string{st.Title.Render("b2bx")}
	label := func(i int, title string) string {
		s := strconv.Itoa(i) + " " + title
		if i == m.active {
			return st.TabActive.Render("[" + s + "]")
		}
		return st.TabPassive.Render(" " + s + " ")
	}
	parts = append(parts, label(0, "connections"))
	for i, t := range m.tabs {
		parts = append(parts, label(i+1, t.tab.Title()))
	}
	if n := len(m.opening); n > 0 {
		parts = append(parts, st.Muted.Render(fmt.Sprintf("(opening %d…)", n)))
	}
	bar := strings.Join(parts, " ")
	if m.c.Demo {
		demo := st.Demo.Render(" DEMO ")
		gap := m.c.Width - ansi.StringWidth(bar) - ansi.StringWidth(demo)
		if gap < 1 {
			bar = ansi.Truncate(bar, max(m.c.Width-ansi.StringWidth(demo)-1, 0), "…")
			gap = 1
		}
		bar += strings.Repeat(" ", gap) + demo
	}
	return bar
}

// statusBar shows the active page's state: connection, page, claim and
// lease, transfer, worker mode; DEMO first in a demo.
func (m Model) statusBar() string {
	st := m.c.Styles
	var segs []string
	if m.c.Demo {
		segs = append(segs, "DEMO")
	}
	ss := m.screens.Screens()
	for i := len(ss) - 1; i >= 0; i-- {
		if !common.IsInline(ss[i]) {
			segs = append(segs, ss[i].Title())
		}
	}
	if p := m.screens.Preparing(); p != "" {
		segs = append(segs, p+"…")
	}
	if t := m.activeTab(); t != nil {
		s := t.tab.Status()
		claim := s.Claim
		if claim != "" && s.ClaimWarn {
			claim = st.Marks.Warn + " " + claim
		}
		for _, v := range []string{s.Connection, s.Page, claim, s.Transfer, s.Worker} {
			if v != "" {
				segs = append(segs, v)
			}
		}
	} else {
		segs = append(segs, fmt.Sprintf("connections: %d profile(s)", m.list.Count()))
	}
	if m.teamLine != "" {
		segs = append(segs, m.teamLine)
	}
	line := " " + strings.Join(segs, " │ ")
	line = ansi.Truncate(line, m.c.Width, "…")
	line += strings.Repeat(" ", max(m.c.Width-ansi.StringWidth(line), 0))
	return st.StatusBar.Render(line)
}

// errLines is the footer's error block, wrapped, at most maxErrLines.
func (m Model) errLines() []string {
	if m.foot.err == "" {
		return nil
	}
	st := m.c.Styles
	text := st.Marks.Fail + " " + m.foot.err
	lines := common.Wrap(text, max(m.c.Width, 20)) // an ID or a correlation ID moves whole
	if len(lines) > maxErrLines {
		lines = lines[:maxErrLines]
		lines[maxErrLines-1] = ansi.Truncate(lines[maxErrLines-1], m.c.Width-1, "") + "…"
	}
	for i, l := range lines {
		lines[i] = st.Error.Render(l)
	}
	return lines
}

func (m Model) footerHeight() int { return len(m.errLines()) + max(len(m.inlineLines()), 1) }

// inlineLines are the lines of the root's top screen when it draws in
// the footer (the : line, a y/N question), nil when it does not.
func (m Model) inlineLines() []string {
	top := m.screens.Top()
	if top == nil {
		return nil
	}
	return common.InlineLines(top, m.c.Styles, m.c.Width)
}

// footerView is the error block, then the screen drawn in the footer (the
// : line, a y/N question), or one line: a note, or the short help.
func (m Model) footerView() string {
	lines := m.errLines()
	last := m.inlineLines()
	switch {
	case last != nil:
	case m.foot.info != "":
		last = []string{m.foot.info}
	default:
		last = []string{m.help.ShortHelpView(m.shortHelp())}
	}
	for _, l := range last {
		lines = append(lines, ansi.Truncate(l, m.c.Width, "…"))
	}
	return strings.Join(lines, "\n")
}

// shortHelp is the top screen's or the active page's short help, then
// the shell's (over a screen: how to close it, and ?).
func (m Model) shortHelp() []key.Binding {
	var page []key.Binding
	if p := m.page(); p != nil {
		if page = p.ShortHelp(); p.Capturing() {
			return page
		}
		return common.AppendHelp(page, common.CloseKey, m.keys.Help)
	}
	if t := m.activeTab(); t != nil {
		page = t.tab.ShortHelp()
	} else {
		page = m.list.ShortHelp()
	}
	if m.capturing() {
		return page
	}
	if m.foot.err != "" {
		page = append([]key.Binding{m.keys.Dismiss}, page...)
	}
	return common.AppendHelp(page, m.keys.ShortHelp()...)
}

// helpScreen is the full help: the keys of what is on screen (the top
// screen, else the active page), then the shell's, generated from the key
// maps, and the close rule.
func (m Model) helpScreen() helpScreen {
	st := m.c.Styles
	var page [][]key.Binding
	name := "Connections"
	switch p, t := m.page(), m.activeTab(); {
	case p != nil:
		page, name = append(p.FullHelp(), []key.Binding{common.CloseKey}), p.Title()
	case t != nil:
		page, name = t.tab.FullHelp(), t.tab.Title()
	default:
		page = m.list.FullHelp()
	}
	var b strings.Builder
	b.WriteString(st.Header.Render("Keys: "+name) + "\n\n")
	b.WriteString(m.help.FullHelpView(page) + "\n\n")
	b.WriteString(st.Header.Render("Everywhere") + "\n\n")
	b.WriteString(m.help.FullHelpView(m.keys.FullHelp()) + "\n\n")
	b.WriteString(st.Header.Render("Commands") + "\n\n")
	b.WriteString(m.help.FullHelpView(commandColumns()) + "\n\n")
	b.WriteString("q and esc close the screen on top (viewer, diff, uploads, upload, event inspector,\n" +
		"log, this help), the same on every screen; esc first steps back inside it (a search,\n" +
		"a pane, a filter). With no screen open, q quits.\n")
	b.WriteString("q and ctrl+w ask y/N first when a tab would lose something (an active claim: its\n" +
		"lease expires and uses a delivery attempt); ctrl+c quits at once and still releases leases.\n")
	b.WriteString(st.Muted.Render("?, q or esc closes this help."))
	return helpScreen{text: b.String(), keys: []key.Binding{m.keys.Help, common.CloseKey}}
}

// fit cuts s to w columns and exactly h lines.
func fit(s string, w, h int) string {
	lines := strings.SplitN(s, "\n", h+1)
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "…")
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}
