package table

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// layout holds the column widths for one table width. The interchange ID
// column takes what the fixed columns leave; below ~90 columns the local
// creation time is left out (the age and the details pane still show it).
type layout struct {
	pos, created, age, typ, ic, size, sha, status int
}

const (
	wCreated = 16 // 2006-01-02 15:04
	wAge     = 4
	wType    = 6
	wSize    = 9
	wSHA     = 12
	wStatus  = 9
	minIC    = 8
	marker   = 2 // "> " or "  "
)

func newLayout(width, posDigits int) layout {
	l := layout{pos: max(posDigits, 3), created: wCreated, age: wAge, typ: wType, size: wSize, sha: wSHA, status: wStatus}
	fixed := func() int {
		n := marker + l.pos + l.age + l.typ + l.size + l.sha + l.status + 6 // six single-space gaps
		if l.created > 0 {
			n += l.created + 1
		}
		return n
	}
	if width-fixed() < minIC+20 {
		l.created = 0
	}
	l.ic = max(width-fixed()-1, minIC)
	return l
}

// header is the column titles line (without the marker's style).
func (l layout) header() string {
	var b strings.Builder
	b.WriteString("  ")
	b.WriteString(padLeft("#", l.pos))
	b.WriteByte(' ')
	if l.created > 0 {
		b.WriteString(pad("created", l.created))
		b.WriteByte(' ')
	}
	b.WriteString(padLeft("age", l.age))
	b.WriteByte(' ')
	b.WriteString(pad("type", l.typ))
	b.WriteByte(' ')
	b.WriteString(pad("interchange", l.ic))
	b.WriteByte(' ')
	b.WriteString(padLeft("size", l.size))
	b.WriteByte(' ')
	b.WriteString(pad("sha256", l.sha))
	b.WriteByte(' ')
	b.WriteString(pad("status", l.status))
	return b.String()
}

// cells renders the parts of a row that do not change with time.
func (l layout) cells(r *Row, statusOverride string) (left, right string) {
	var b strings.Builder
	b.WriteString(padLeft(strconv.Itoa(r.Pos), l.pos))
	b.WriteByte(' ')
	if l.created > 0 {
		b.WriteString(pad(r.created, l.created))
		b.WriteByte(' ')
	}
	left = b.String()
	b.Reset()
	b.WriteByte(' ')
	b.WriteString(pad(r.typ, l.typ))
	b.WriteByte(' ')
	b.WriteString(pad(r.ic, l.ic))
	b.WriteByte(' ')
	b.WriteString(padLeft(r.size, l.size))
	b.WriteByte(' ')
	b.WriteString(pad(r.sha, l.sha))
	b.WriteByte(' ')
	st := r.status
	if statusOverride != "" {
		st = statusOverride
	}
	b.WriteString(pad(st, l.status))
	return left, b.String()
}

// line is a whole row: the cached cells around the age, which changes.
func (l layout) line(r *Row, now time.Time) string {
	return r.left + padLeft(Age(now, r.Entry.CreatedAt), l.age) + r.right
}

// pad truncates s to w cells (with "…") and pads it on the right.
func pad(s string, w int) string {
	n := ansi.StringWidth(s)
	if n > w {
		s = ansi.Truncate(s, w, "…")
		n = ansi.StringWidth(s)
	}
	return s + strings.Repeat(" ", max(w-n, 0))
}

// padLeft truncates like pad and pads on the left (numbers).
func padLeft(s string, w int) string {
	n := ansi.StringWidth(s)
	if n > w {
		s = ansi.Truncate(s, w, "…")
		n = ansi.StringWidth(s)
	}
	return strings.Repeat(" ", max(w-n, 0)) + s
}
