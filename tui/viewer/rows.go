package viewer

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/nutrab2b/b2bx/edi"
)

// columns are the segment list's column widths for one screen width.
type columns struct {
	index, name, path, elems int
}

func (m Model) columns() columns {
	c := columns{index: len(strconv.Itoa(max(m.doc().Len()-1, 0))), name: 24, path: 14}
	if m.width < 100 {
		c.name, c.path = 16, 10
	}
	if m.width < 70 {
		c.name = 0
	}
	// marker+mark "> ✗ ", then index, tag and the gaps.
	fixed := 4 + c.index + 1 + 3 + 1 + c.path + 1
	if c.name > 0 {
		fixed += c.name + 1
	}
	c.elems = max(m.width-fixed, 8)
	return c
}

// rowsView renders the column header and the visible segment rows only:
// the cost of a frame does not depend on the number of segments.
func (m Model) rowsView(rows int) []string {
	st, doc := m.c.Styles, m.doc()
	c := m.columns()
	out := make([]string, 0, rows+1)
	head := "    " + cell("#", c.index) + " TAG "
	if c.name > 0 {
		head += cell("NAME", c.name) + " "
	}
	head += cell("GROUP PATH", c.path) + " ELEMENTS"
	out = append(out, st.Header.Render(head))
	if doc.Len() == 0 {
		return fill(append(out, "  (no segments: the input is empty or has no EDIFACT data)"), rows+1)
	}
	var b strings.Builder
	for i := m.top; i < min(m.top+rows, doc.Len()); i++ {
		b.Reset()
		m.row(&b, c, doc.Segment(i))
		line := b.String()
		if i == m.cursor {
			line = st.Selected.Render(padRight(line, m.width))
		}
		out = append(out, line)
	}
	return fill(out, rows+1)
}

// row writes one segment row: marker, issue mark, index, tag, name,
// group path and the elements as written (decoded, sanitised, cut to the
// column: only the bytes that can show are decoded).
func (m Model) row(b *strings.Builder, c columns, s edi.Segment) {
	st := m.c.Styles
	if s.Index() == m.cursor {
		b.WriteString(st.Marks.Cursor)
	} else {
		b.WriteByte(' ')
	}
	b.WriteByte(' ')
	if _, pinned := m.cache.pinsBySeg[s.Index()]; pinned {
		b.WriteString(PinMark)
	} else {
		b.WriteString(m.severityMarkPlain(m.cache.severityOf(m.doc(), s.Index())))
	}
	b.WriteByte(' ')
	idx := strconv.Itoa(s.Index())
	b.WriteString(spaces(c.index - len(idx)))
	b.WriteString(idx)
	b.WriteByte(' ')
	tag := s.Tag()
	bad := !s.TagValid() && !s.IsUNA()
	if bad {
		b.WriteString(cell("?", 3)) // the tag, escaped, leads the elements column
	} else {
		b.WriteString(cell(sanitize(tag), 3))
	}
	b.WriteByte(' ')
	if c.name > 0 {
		b.WriteString(cell(m.cache.name(m.doc(), s), c.name))
		b.WriteByte(' ')
	}
	path := s.Path()
	if path == "" {
		path = "-"
	}
	b.WriteString(cell(path, c.path))
	b.WriteByte(' ')
	raw := s.Raw()
	skip := min(len(tag), len(raw))
	if s.IsUNA() {
		skip = min(3, len(raw))
	}
	raw = raw[skip:]
	if limit := c.elems*4 + 4; len(raw) > limit {
		raw = raw[:limit]
	}
	text := sanitize(s.Charset().Decode(raw))
	if bad {
		text = tagText(s) + text
	}
	b.WriteString(ansi.Truncate(text, c.elems, "…"))
}

// severityMarkPlain is the issue mark of a row without styling, so the
// selected row's own style is not interrupted.
func (m Model) severityMarkPlain(s edi.Severity) string {
	switch s {
	case edi.SeverityError:
		return m.c.Styles.Marks.Fail
	case edi.SeverityWarning:
		return m.c.Styles.Marks.Warn
	}
	return " "
}
