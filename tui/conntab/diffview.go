package conntab

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/nutrab2b/b2bx/edi/orderdiff"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// diffScreen shows what an ORDRSP changed against the ORDERS that was
// sent: each diff's headline and its rows (orderdiff renders them, the
// same text `b2bx diff` prints), the changed lines only or all of them.
type diffScreen struct {
	common.Base
	c     *common.Common
	title string // sanitised
	diffs []*orderdiff.Diff
	all   bool
	rows  []string // rendered for all
	top   int
	w, h  int
}

func newDiffScreen(c *common.Common, title string, diffs []*orderdiff.Diff) diffScreen {
	d := diffScreen{c: c, title: termsafe.String(title), diffs: diffs}
	return d.render()
}

// render builds the rows (the render methods sanitise the data).
func (d diffScreen) render() diffScreen {
	s := d.c.Styles
	d.rows = d.rows[:0:0]
	if len(d.diffs) == 0 {
		d.rows = append(d.rows, s.Muted.Render("the ORDRSP holds no response to compare"))
	}
	for k, df := range d.diffs {
		if k > 0 {
			d.rows = append(d.rows, "")
		}
		mark := s.OK.Render(s.Marks.OK)
		if df.HasChanges() {
			mark = s.Warn.Render(s.Marks.Warn)
		}
		d.rows = append(d.rows, mark+" "+s.Header.Render(df.Headline()))
		rows := df.Rows(d.all)
		if len(rows) == 0 {
			d.rows = append(d.rows, s.Muted.Render("  every line as ordered (a lists them)"))
		}
		for _, r := range rows {
			d.rows = append(d.rows, "  "+r)
		}
	}
	d.top = min(d.top, max(len(d.rows)-d.page(), 0))
	return d
}

func (d diffScreen) setSize(w, h int) diffScreen {
	d.w, d.h = w, h
	d.top = min(d.top, max(len(d.rows)-d.page(), 0))
	return d
}

// page is the number of rows shown (the title, a rule and the help
// line take the rest).
func (d diffScreen) page() int { return max(d.h-3, 1) }

// Update scrolls and toggles all lines.
func (d diffScreen) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		return d.key(k), nil
	}
	return d, nil
}

func (d diffScreen) View() string                   { return d.view() }
func (d diffScreen) SetSize(w, h int) common.Screen { return d.setSize(w, h) }
func (d diffScreen) ShortHelp() []key.Binding       { return d.help() }
func (d diffScreen) FullHelp() [][]key.Binding      { return [][]key.Binding{d.help()} }
func (d diffScreen) Closes(k tea.KeyMsg) bool       { return key.Matches(k, common.CloseKey) }
func (d diffScreen) Title() string                  { return "diff" }

func (d diffScreen) key(k tea.KeyMsg) diffScreen {
	last := max(len(d.rows)-d.page(), 0)
	switch k.String() {
	case "j", "down":
		d.top++
	case "k", "up":
		d.top--
	case "pgdown", "f", " ", "ctrl+d":
		d.top += d.page()
	case "pgup", "b", "ctrl+u":
		d.top -= d.page()
	case "g", "home":
		d.top = 0
	case "G", "end":
		d.top = last
	case "a":
		d.all = !d.all
		return d.render()
	}
	d.top = max(min(d.top, last), 0)
	return d
}

func (d diffScreen) view() string {
	s := d.c.Styles
	w := max(d.w, 20)
	which := "changed lines"
	if d.all {
		which = "all lines"
	}
	lines := make([]string, 0, d.h)
	lines = append(lines, s.Title.Render("Diff")+"  "+d.title, s.Muted.Render(strings.Repeat("─", w)))
	end := min(d.top+d.page(), len(d.rows))
	lines = append(lines, d.rows[d.top:end]...)
	for len(lines) < d.h-1 {
		lines = append(lines, "")
	}
	pos := ""
	if len(d.rows) > d.page() {
		pos = fmt.Sprintf(" · rows %d–%d of %d", d.top+1, end, len(d.rows))
	}
	lines = append(lines, s.Muted.Render(which+pos+" · ")+s.Key.Render("a")+s.Muted.Render(" all/changed · ")+
		s.Key.Render("j/k")+s.Muted.Render(" scroll · ")+s.Key.Render("esc/q")+s.Muted.Render(" close"))
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines[:min(len(lines), max(d.h, 1))], "\n")
}

func (d diffScreen) help() []key.Binding { return []key.Binding{scrollKey, allLinesKey} }
