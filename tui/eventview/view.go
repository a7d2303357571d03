package eventview

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// View renders the screen: exactly the height, every line cut to the
// width.
func (m Model) View() string {
	var lines []string
	switch m.stage {
	case stagePick:
		lines = m.pickLines()
	case stageLoading:
		lines = []string{m.title(), "", "reading and checking " + m.pathName() + " …", "", m.muted("esc: stop waiting")}
	default:
		lines = m.reportLines()
	}
	return m.frame(lines)
}

// frame cuts lines to the screen and puts the bottom line (an input or
// a note) on the last row.
func (m Model) frame(lines []string) string {
	w, h := max(m.width, 20), max(m.height, 2)
	body := h - 1
	if len(lines) > body {
		lines = lines[:body]
	}
	for len(lines) < body {
		lines = append(lines, "")
	}
	lines = append(lines, m.bottomLine())
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines, "\n")
}

// bottomLine is the focused input (the secret input draws only its mask),
// else the note.
func (m Model) bottomLine() string {
	switch m.focus {
	case inPath:
		return common.InputView(m.pathIn)
	case inSecret:
		return common.InputView(m.secretIn)
	case inFilter:
		return common.InputView(m.filterIn)
	}
	if m.note != "" {
		return m.muted(m.note)
	}
	return ""
}

func (m Model) muted(s string) string { return m.c.Styles.Muted.Render(s) }

// pathName is the inspected path, sanitised.
func (m Model) pathName() string { return termsafe.String(m.path) }

// title is the screen's first line: what is inspected and where the
// webhook secret comes from (never the secret).
func (m Model) title() string {
	st := m.c.Styles
	t := "Events"
	if m.path != "" && m.stage != stagePick {
		t += " — " + m.pathName()
	}
	if m.live != nil {
		t += " — live"
	}
	sec := "secret: none (s: type it"
	if m.opts.Profile != "" && m.opts.Store != nil {
		sec += ", K: profile " + termsafe.String(m.opts.Profile)
	}
	sec += ")"
	if m.secrets != nil {
		sec = "secret: " + m.secretFrom + " (x: forget)"
	}
	return st.Title.Render(t) + "  " + m.muted(sec)
}

// pickLines: the directory and the picker's rows (sanitised line by
// line: it writes file names raw) with the cursor row highlighted.
func (m Model) pickLines() []string {
	st := m.c.Styles
	lines := []string{m.title(),
		m.muted("enter: inspect a capture or open a directory · d: inspect this whole directory · p: type a path · a: all files · esc: back"),
		"dir " + termsafe.String(m.picker.CurrentDirectory)}
	lines = append(lines, common.PickerLines(m.picker, st)...)
	return lines
}

// mark is a finding's severity as a symbol and a word (colour is only a
// bonus: NO_COLOR keeps both).
func (m Model) mark(sev events.Severity) string {
	st := m.c.Styles
	switch sev {
	case events.SevError:
		return st.Error.Render(st.Marks.Fail + " error  ")
	case events.SevWarning:
		return st.Warn.Render(st.Marks.Warn + " warning")
	}
	return st.Muted.Render(st.Marks.Wait + " info   ")
}

// reportLines: the head (summary, signatures, streams), the views bar,
// then the selected view.
func (m Model) reportLines() []string {
	lines := m.headLines()
	if m.rep == nil {
		return lines
	}
	lines = append(lines, m.sectionBar())
	area := m.areaHeight()
	if m.section == secFindings {
		return append(lines, m.findingLines(area)...)
	}
	body := m.text[m.section]
	from := min(m.scroll, max(len(body)-area, 0))
	return append(lines, body[from:min(from+area, len(body))]...)
}

// maxHeadStreams is how many streams with a problem the head shows.
const maxHeadStreams = 2

// headLines is the report's top: title, counts, signatures, streams; or
// the reason the path could not be read.
func (m Model) headLines() []string {
	st := m.c.Styles
	lines := []string{m.title()}
	if l := m.liveLine(); l != "" {
		lines = append(lines, st.OK.Render(st.Marks.OK)+" "+l)
	}
	if m.rep == nil {
		if m.loadErr != "" {
			lines = append(lines, "", st.Error.Render(st.Marks.Fail+" "+m.loadErr),
				"", "o: pick another file or directory · r: try again · esc: close")
		}
		return lines
	}
	r := m.rep.raw
	verdict := st.OK.Render(st.Marks.OK + " no errors")
	if r.Errors > 0 {
		verdict = st.Error.Render(fmt.Sprintf("%s %d error(s)", st.Marks.Fail, r.Errors))
	}
	lines = append(lines, fmt.Sprintf("%s, %s · %s · %d warning(s) · %s", countNoun(len(r.Deliveries), "delivery", "deliveries"),
		countNoun(len(r.Events), "event", "events"), verdict, r.Warnings, human.OrDash(m.rep.outcomes)))
	lines = append(lines, m.rep.sigSum)
	var shown, problems int
	for _, s := range m.rep.streams {
		if !s.problem {
			continue
		}
		problems++
		if shown < maxHeadStreams {
			lines = append(lines, st.Error.Render(st.Marks.Fail)+" "+s.short)
			shown++
		}
	}
	switch n := len(m.rep.streams); {
	case n > shown && problems > shown:
		lines = append(lines, m.muted(fmt.Sprintf("  … %d more streams, %d with a problem (tab: streams)", n-shown, problems-shown)))
	case n > 0 && problems == 0:
		lines = append(lines, st.OK.Render(st.Marks.OK)+" "+countNoun(n, "stream", "streams")+" (sender + subject): no gap, no regression")
	}
	return lines
}

// sectionBar names the views, the current one in brackets.
func (m Model) sectionBar() string {
	st := m.c.Styles
	n := len(m.visible)
	findings := fmt.Sprintf("Findings %d", n)
	if m.filter != "" {
		findings = fmt.Sprintf("Findings %d of %d /%s", n, len(m.rep.findings), termsafe.String(m.filter))
	}
	names := [numSections]string{findings, fmt.Sprintf("Streams %d", len(m.rep.streams)),
		fmt.Sprintf("Duplicates %d", len(m.rep.dups)), fmt.Sprintf("Signatures %d", len(m.rep.sigs))}
	parts := make([]string, len(names))
	for i, s := range names {
		if section(i) == m.section {
			parts[i] = st.TabActive.Render("[" + s + "]")
		} else {
			parts[i] = st.TabPassive.Render(" " + s + " ")
		}
	}
	return strings.Join(parts, " ") + m.muted("  tab: next view")
}

// areaHeight is the rows left for the selected view.
func (m Model) areaHeight() int {
	return max(m.height-1-len(m.headLines())-1, 1)
}

// minDetail is the least room the detail pane gets below the findings;
// below minArea rows there is no pane.
const minDetail, minArea = 7, 12

// findingRowsFor is how many finding rows the list takes: all of them
// when they fit above the detail pane, else what is left by the pane.
func (m Model) findingRowsFor() int {
	area := m.areaHeight()
	if area < minArea {
		return area
	}
	return max(min(len(m.visible), area-max(minDetail, area*2/5)), 1)
}

// detailHeight is the detail pane's rows: the area below the list and a
// blank line (0 when the screen is too low for a pane).
func (m Model) detailHeight() int {
	area := m.areaHeight()
	if area < minArea {
		return 0
	}
	return area - m.listRows - 1
}

// findingLines is the visible window of the findings list, then the
// selected finding's detail pane.
func (m Model) findingLines(area int) []string {
	st := m.c.Styles
	var lines []string
	if len(m.visible) == 0 {
		if len(m.rep.findings) == 0 {
			lines = append(lines, st.OK.Render(st.Marks.OK)+" no findings: a receiver processes every event")
		} else {
			lines = append(lines, m.muted("no finding matches /"+termsafe.String(m.filter)+" (esc: clear the filter)"))
		}
	}
	end := min(m.top+m.listRows, len(m.visible))
	for i := m.top; i < end; i++ {
		f := m.rep.findings[m.visible[i]]
		row := m.mark(f.sev) + " " + f.code + "  " + f.where + "  " + f.msg
		if i == m.cursor {
			lines = append(lines, st.Selected.Render(st.Marks.Cursor+" ")+st.Selected.Render(row))
		} else {
			lines = append(lines, "  "+row)
		}
	}
	if d := m.detailHeight(); d > 0 && m.cursor < len(m.visible) {
		for len(lines) < area-d {
			lines = append(lines, "")
		}
		lines = append(lines, m.detailLines(m.rep.findings[m.visible[m.cursor]], d)...)
	}
	return lines
}

// wrapSections wraps the text of the streams, duplicates and signatures
// views to the width, once per report and width (thousands of streams
// take milliseconds to wrap: not on every key).
func (m Model) wrapSections() Model {
	m.text = [numSections][]string{}
	if m.rep == nil {
		return m
	}
	m.textWidth = m.width
	for s := secStreams; s < numSections; s++ {
		m.text[s] = m.sectionLines(s)
	}
	return m
}

// sectionLines is the whole text of the streams, duplicates or
// signatures view, wrapped to the width.
func (m Model) sectionLines(sec section) []string {
	st := m.c.Styles
	w := max(m.width-4, 20)
	var lines []string
	plain := func(s string) string { return s }
	// add wraps text (sanitised, without escapes) and styles each line.
	add := func(mark, text string, style func(string) string) {
		for i, l := range common.Wrap(text, w) {
			if i == 0 {
				lines = append(lines, mark+" "+style(l))
			} else {
				lines = append(lines, "    "+style(l))
			}
		}
	}
	ok, fail, warn, wait := st.OK.Render(st.Marks.OK), st.Error.Render(st.Marks.Fail), st.Warn.Render(st.Marks.Warn), st.Muted.Render(st.Marks.Wait)
	switch sec {
	case secStreams:
		if len(m.rep.streams) == 0 {
			lines = append(lines, m.muted("no event carries a sender, a subject and a valid sequence"))
		}
		for _, s := range m.rep.streams {
			mark := ok
			if s.problem {
				mark = fail
			}
			add(mark, s.name, plain)
			add("  ", s.line, plain)
		}
	case secDuplicates:
		if len(m.rep.dups) == 0 {
			lines = append(lines, ok+" no idempotency key was sent twice")
		}
		for _, d := range m.rep.dups {
			mark := warn
			if d.conflict {
				mark = fail
			}
			add(mark, d.line, plain)
			add(" ", d.msg, m.muted)
		}
	case secSignatures:
		if len(m.rep.sigs) == 0 {
			lines = append(lines, m.muted("no deliveries"))
		}
		for _, s := range m.rep.sigs {
			mark := wait
			switch {
			case s.ok:
				mark = ok
			case s.bad:
				mark = fail
			}
			add(mark, s.line, plain)
		}
	}
	return lines
}

// baseName is a delivery name's last element (directory captures are
// named by their path).
func baseName(p string) string {
	if p == "" {
		return p
	}
	return filepath.Base(p)
}
