package viewer

import (
	"strconv"

	"github.com/nutrab2b/b2bx/edi/explain"
	"github.com/nutrab2b/b2bx/internal/human"
)

// header is the card above the list: the input, the envelope of the
// interchange under the cursor, the validation verdict, and the summary
// in words of the message under the cursor with its directory. It uses
// only what Parse extracted (copies), never the mapped bytes.
func (m Model) header(lines int) []string {
	if lines <= 0 {
		return nil
	}
	st, doc := m.c.Styles, m.doc()
	ic := doc.InterchangeOf(m.cursor)
	out := []string{
		st.Title.Render(m.title) + st.Muted.Render("  "+human.Bytes(int64(len(doc.Data())))+" · "+human.Count(doc.Len(), "segment", "segments")+
			" · "+human.Count(len(doc.Interchanges), "interchange", "interchanges")+" · "+human.Count(len(doc.Messages), "message", "messages")),
		m.envelopeLine(ic),
		m.verdictLine(),
	}
	if len(m.cache.pins) > 0 {
		out = append(out, m.pinLine())
	}
	out = append(out, m.messageLines(ic)...)
	for len(out) < lines {
		out = append(out, "")
	}
	return out[:lines]
}

// label pads a header label.
func (m Model) label(s string) string { return m.c.Styles.Header.Render(s) + padTo(s, 12) }

func padTo(s string, n int) string {
	if len(s) >= n {
		return " "
	}
	return spaces(n - len(s))
}

func spaces(n int) string {
	if n <= 0 {
		return ""
	}
	b := make([]byte, n)
	for k := range b {
		b[k] = ' '
	}
	return string(b)
}

// envelopeLine shows sender, recipient, control reference, syntax and
// character set of interchange k.
func (m Model) envelopeLine(k int) string {
	doc := m.doc()
	if k < 0 {
		return m.label("Interchange") + "none"
	}
	ic := doc.Interchanges[k]
	which := ""
	if len(doc.Interchanges) > 1 {
		which = strconv.Itoa(k+1) + "/" + strconv.Itoa(len(doc.Interchanges)) + " "
	}
	if !ic.HasUNB {
		return m.label("Interchange") + which + "no UNB: segments without interchange envelope"
	}
	syntax := sanitize(ic.SyntaxLabel()) + " (" + ic.Charset.String() + ")"
	return m.label("Interchange") + which + "ref " + sanitize(ic.ControlRef) + "  " + syntax +
		"  from " + explain.Party(ic.SyntaxVersion, ic.Sender) + " to " + explain.Party(ic.SyntaxVersion, ic.Recipient)
}

// verdictLine is the validation verdict with a mark that shows without
// colour.
func (m Model) verdictLine() string {
	st, v := m.c.Styles, m.src.verdict
	var text string
	switch {
	case !v.Valid():
		text = st.Error.Render(st.Marks.Fail + " " + v.String())
	case v.Warnings > 0:
		text = st.Warn.Render(st.Marks.Warn + " " + v.String())
	default:
		text = st.OK.Render(st.Marks.OK + " " + v.String())
	}
	if v.Errors+v.Warnings > 0 {
		text += st.Muted.Render("  (i: issues)")
	}
	return m.label("File check") + text
}

// messageLines show the message under the cursor (or the interchange's
// first): which one, its summary in words, its directory and the
// directory note (D.25A shown with the D.24A structure).
func (m Model) messageLines(ic int) []string {
	doc := m.doc()
	k := doc.MessageOf(m.cursor)
	if k < 0 && ic >= 0 && len(doc.Interchanges[ic].Messages) > 0 {
		k = doc.Interchanges[ic].Messages[0].Index
	}
	if k < 0 {
		return []string{m.label("Message") + "none here"}
	}
	msg := &doc.Messages[k]
	st := m.c.Styles
	which := ""
	if len(doc.Messages) > 1 {
		which = strconv.Itoa(k+1) + "/" + strconv.Itoa(len(doc.Messages)) + " "
	}
	info := m.cache.message(doc, k)
	headline := st.Title.Render(info.headline)
	if info.rejects {
		headline = st.Error.Render(st.Marks.Fail + " " + info.headline)
	}
	dir := "none: " + sanitize(msg.DirectoryNote)
	if msg.Structure != "" {
		dir = msg.Structure
		if msg.DirectoryNote != "" {
			dir += st.Warn.Render("  note: " + sanitize(msg.DirectoryNote))
		}
	}
	return []string{
		m.label("Message") + which + headline,
		m.label("Directory") + dir,
	}
}
