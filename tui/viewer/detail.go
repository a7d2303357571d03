package viewer

import (
	"strconv"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/explain"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/tui/common"
)

// detailView explains the selected segment: name, group path, place,
// the directory note, its issues, then every element and component with
// position, directory reference and name, value and the code's meaning.
func (m Model) detailView(lines int) []string {
	st, doc := m.c.Styles, m.doc()
	if doc.Len() == 0 {
		return []string{st.Header.Render("Details"), "nothing to show"}
	}
	info := m.cache.describe(doc, m.cursor)
	title := "Segment " + strconv.Itoa(info.Index) + " " + tagText(doc.Segment(info.Index))
	if info.Name != "" {
		title += " " + info.Name
	}
	if info.FullPath != "" {
		title += " · " + info.FullPath
	}
	if info.Number > 0 {
		title += " · position " + strconv.Itoa(info.Number) + " in message " + strconv.Itoa(doc.MessageOf(info.Index)+1)
	}
	title += " · offset " + strconv.Itoa(info.Offset)
	if info.Directory != "" {
		title += " · " + info.Directory
	}
	out := []string{st.Header.Render(title)}
	if info.Note != "" {
		out = append(out, st.Warn.Render("note: "+sanitize(info.Note)))
	}
	for _, p := range m.cache.pinsOf(info.Index) {
		out = append(out, st.Error.Render(PinMark+" "+pinText(p)))
	}
	here := m.segmentIssues(info.Index)
	for k, is := range here {
		if k == maxDetailIssues {
			out = append(out, st.Muted.Render("… "+human.Count(len(here)-k, "more issue", "more issues")+" here (i lists them)"))
			break
		}
		out = append(out, m.severityMark(is.Severity)+" "+issueText(is))
	}
	c := detailColumns(m.width)
	if info.Unknown != "" && len(info.Fields) > 0 {
		out = append(out, st.Muted.Render(info.Unknown))
	}
	if len(info.Fields) == 0 {
		out = append(out, st.Muted.Render("no data elements"))
	} else {
		out = append(out, st.Muted.Render(cell("POS", c.pos)+" "+cell("REF", c.ref)+" "+cell("NAME", c.name)+" VALUE"))
	}
	room := lines - len(out)
	for k, f := range info.Fields {
		if k == room-1 && len(info.Fields) > room {
			out = append(out, st.Muted.Render("… "+human.Count(len(info.Fields)-k, "more value", "more values")+
				" (b2bx parse --describe lists them all)"))
			break
		}
		out = append(out, cell(explain.FieldPosition(f), c.pos)+" "+cell(explain.FieldRef(f), c.ref)+" "+
			cell(explain.FieldNameIn(info, f), c.name)+" "+explain.FieldValue(f))
	}
	return fill(out, lines)
}

// maxDetailIssues bounds the issue lines above a segment's values.
const maxDetailIssues = 3

// detailCols are the detail pane's column widths.
type detailCols struct{ pos, ref, name int }

func detailColumns(width int) detailCols {
	if width < 100 {
		return detailCols{pos: 7, ref: 10, name: 24}
	}
	return detailCols{pos: 8, ref: 10, name: 36}
}

// segmentIssues are the issues of segment i.
func (m Model) segmentIssues(i int) []edi.Issue {
	var out []edi.Issue
	for _, k := range m.cache.issuesOf(m.doc(), i) {
		out = append(out, m.doc().Issues()[k])
	}
	return out
}

// issueText is one issue in a line: code, 0085 code, place and message.
func issueText(is edi.Issue) string {
	s := string(is.Code)
	if is.SyntaxError != 0 {
		s += " [0085:" + strconv.Itoa(is.SyntaxError) + "]"
	}
	return s + " @" + strconv.Itoa(is.Offset) + ": " + sanitize(is.Message)
}

// fill pads or cuts lines to exactly n.
func fill(lines []string, n int) []string { return common.Fill(lines, n) }

// tagText is a segment's tag for the screen: a bad tag quoted and
// escaped ("\"    UNH\"", "\"un\\x01\""), so spaces and controls in it show.
func tagText(s edi.Segment) string {
	if s.TagValid() || s.IsUNA() {
		return sanitize(s.Tag())
	}
	return sanitize(strconv.QuoteToASCII(s.Tag()))
}
