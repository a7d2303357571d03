package viewer

import (
	"strconv"

	"github.com/nutrab2b/b2bx/internal/human"
)

// issuesView lists the issues around the issue cursor: severity, code,
// segment and message; enter jumps to the segment.
func (m Model) issuesView(lines int) []string {
	st, issues := m.c.Styles, m.doc().Issues()
	title := "Issues (" + human.Int(len(issues)) + ")"
	if m.focus == focusIssues {
		title += "  enter: go to the segment · r: raw bytes · tab: back to the segments"
	} else {
		title += "  tab: move into the list"
	}
	out := []string{st.Header.Render(title)}
	if len(issues) == 0 {
		return fill(append(out, st.OK.Render(st.Marks.OK+" no issues: the input passed every check")), lines)
	}
	rows := max(lines-1, 1)
	top := max(min(m.iCursor-rows/2, len(issues)-rows), 0)
	for k := top; k < min(top+rows, len(issues)); k++ {
		is := issues[k]
		seg := "-"
		if is.Segment >= 0 {
			seg = strconv.Itoa(is.Segment)
		}
		marker := "  "
		if k == m.iCursor {
			marker = st.Marks.Cursor + " "
		}
		line := marker + m.severityMarkPlain(is.Severity) + " " + cell(is.Severity.String(), 7) + " segment " + cell(seg, 7) + " " + issueText(is)
		if k == m.iCursor && m.focus == focusIssues {
			line = st.Selected.Render(padRight(line, m.width))
		}
		out = append(out, line)
	}
	return fill(out, lines)
}
