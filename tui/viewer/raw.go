package viewer

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/nutrab2b/b2bx/edi"
)

// rawOffsetWidth is the width of the "@offset " column of the raw view.
const rawOffsetWidth = 11

// rawSpot is the byte offset the raw view marks: the offset after
// a jump to it, else the selected segment's first byte.
func (m Model) rawSpot() int {
	if m.spotSeg == m.cursor && m.spotSeg >= 0 {
		return m.spot
	}
	return m.doc().Segment(m.cursor).Offset()
}

// rawView shows the input as written around the spot: one line per
// segment (with its terminator and the layout after it), the spot's line
// in the middle, cut so the spot is visible, and a caret line under the
// spot naming its offset and byte.
func (m Model) rawView(lines int) []string {
	st, doc := m.c.Styles, m.doc()
	if doc.Len() == 0 {
		return fill([]string{st.Header.Render("Raw bytes"), "nothing to show"}, lines)
	}
	data := doc.Data()
	spot := min(max(m.rawSpot(), 0), len(data))
	k := -1 // the unit holding the spot: -1 is the bytes before segment 0
	if spot >= doc.Segment(0).Offset() {
		k = segmentAt(doc, spot)
	}
	out := []string{st.Header.Render(fmt.Sprintf("Raw bytes around offset %d (segment %d)  r: back to the details", spot, max(k, 0)))}
	rows := lines - 2 // title and caret line
	before := max((rows-1)/2, 0)
	first := max(k-before, -1)
	if first == -1 && len(doc.Leading()) == 0 {
		first = 0
	}
	avail := max(m.width-rawOffsetWidth, 10)
	for u := first; u < doc.Len() && len(out) < lines; u++ {
		start, end := unitRange(doc, u)
		cs := doc.Segment(max(u, 0)).Charset()
		if u != k {
			out = append(out, rawOffset(start)+m.rawText(cs, data[start:min(end, start+avail*4)], avail))
			continue
		}
		line, caretCol := m.rawSpotLine(cs, data, start, end, spot, avail)
		out = append(out, rawOffset(start)+line)
		if len(out) < lines {
			out = append(out, spaces(rawOffsetWidth+caretCol)+st.Error.Render("^ "+spotInfo(data, spot)))
		}
	}
	return fill(out, lines)
}

// unitRange is the byte range of unit u: segment u with its terminator
// and the gap after it, or (u = -1) the bytes before the first segment.
func unitRange(doc *edi.Document, u int) (int, int) {
	if u < 0 {
		return 0, doc.Segment(0).Offset()
	}
	end := len(doc.Data())
	if u+1 < doc.Len() {
		end = doc.Segment(u + 1).Offset()
	}
	return doc.Segment(u).Offset(), end
}

func rawOffset(off int) string {
	s := "@" + strconv.Itoa(off)
	return s + spaces(rawOffsetWidth-len(s))
}

// rawText decodes and sanitises bytes and cuts them to avail cells.
func (m Model) rawText(cs edi.Charset, b []byte, avail int) string {
	return ansi.Truncate(sanitize(cs.Decode(b)), avail, "…")
}

// rawSpotLine renders the unit holding the spot with the spot's character
// highlighted, keeping it visible in avail cells; it returns the line and
// the spot's column.
func (m Model) rawSpotLine(cs edi.Charset, data []byte, start, end, spot, avail int) (string, int) {
	lo := max(start, spot-avail*4)
	hi := min(end, spot+avail*4)
	pre := sanitize(cs.Decode(data[lo:spot]))
	size := 0
	if spot < len(data) {
		size = 1
		if cs == edi.CharsetUTF8 || cs == edi.CharsetUnknown {
			if _, n := utf8.DecodeRune(data[spot:]); n > 1 {
				size = n
			}
		}
	}
	at := "⟂" // the end of the data
	if size > 0 {
		at = sanitize(cs.Decode(data[spot : spot+size]))
	}
	post := sanitize(cs.Decode(data[min(spot+size, hi):hi]))
	keep := avail / 2
	if w := ansi.StringWidth(pre); w > keep {
		pre = ansi.TruncateLeft(pre, w-keep+1, "…")
	}
	col := ansi.StringWidth(pre)
	line := pre + m.c.Styles.Selected.Render(at) + post
	return ansi.Truncate(line, avail, "…"), col
}

// spotInfo names the marked byte: "offset 345, byte 0x1B".
func spotInfo(data []byte, spot int) string {
	if spot >= len(data) {
		return "offset " + strconv.Itoa(spot) + ", the end of the data"
	}
	return fmt.Sprintf("offset %d, byte 0x%02X", spot, data[spot])
}
