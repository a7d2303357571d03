package pin

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/nutrab2b/b2bx/edi"
)

// ChangeKind says how a segment changed.
type ChangeKind string

// Segment changes.
const (
	Changed ChangeKind = "changed" // replaced by another segment at the same place
	Added   ChangeKind = "added"
	Removed ChangeKind = "removed"
)

// SegmentChange is one segment that differs between two documents.
type SegmentChange struct {
	Kind ChangeKind
	// Old and New are segment indexes in the old and the new document;
	// -1 for the side that has none (Added has no Old).
	Old, New int
	// OldText and NewText are the segments as written, terminal-safe.
	OldText, NewText string
}

// String is one line: "~ 6 NAD+BY+…  ->  NAD+BY+…", "+ 7 …", "- 7 …"
// (1-based segment numbers of the document).
func (c SegmentChange) String() string {
	switch c.Kind {
	case Added:
		return fmt.Sprintf("+ %d %s", c.New+1, c.NewText)
	case Removed:
		return fmt.Sprintf("- %d %s", c.Old+1, c.OldText)
	}
	return fmt.Sprintf("~ %d %s  ->  %s", c.Old+1, c.OldText, c.NewText)
}

// maxDiffCells bounds the work of the segment diff's middle part (after
// the common start and end are cut off): beyond it the middle is
// reported as removed and added wholesale rather than aligned.
const maxDiffCells = 4_000_000

// DiffSegments compares two documents segment by segment (the bytes of
// each segment as written): the common start and end are skipped, the
// rest aligned by a longest common subsequence; a removed and an added
// segment at the same place become one Changed.
func DiffSegments(a, b *edi.Document) []SegmentChange {
	na, nb := a.Len(), b.Len()
	same := func(i, j int) bool { return bytes.Equal(a.Segment(i).Raw(), b.Segment(j).Raw()) }
	pre := 0
	for pre < na && pre < nb && same(pre, pre) {
		pre++
	}
	suf := 0
	for suf < na-pre && suf < nb-pre && same(na-1-suf, nb-1-suf) {
		suf++
	}
	x, y := rawSegments(a, pre, na-suf), rawSegments(b, pre, nb-suf)
	var ops []byte // '=', '-', '+' over x and y
	if len(x)*len(y) > maxDiffCells {
		ops = append([]byte(strings.Repeat("-", len(x))), strings.Repeat("+", len(y))...)
	} else {
		ops = lcsOps(x, y)
	}
	var out []SegmentChange
	i, j := pre, pre
	for k := 0; k < len(ops); k++ {
		switch ops[k] {
		case '=':
			i, j = i+1, j+1
		case '-':
			if k+1 < len(ops) && ops[k+1] == '+' {
				out = append(out, SegmentChange{Kind: Changed, Old: i, New: j, OldText: a.Segment(i).Display(), NewText: b.Segment(j).Display()})
				i, j, k = i+1, j+1, k+1
				continue
			}
			out = append(out, SegmentChange{Kind: Removed, Old: i, New: -1, OldText: a.Segment(i).Display()})
			i++
		case '+':
			out = append(out, SegmentChange{Kind: Added, Old: -1, New: j, NewText: b.Segment(j).Display()})
			j++
		}
	}
	return out
}

// rawSegments are the bytes of segments from to to-1, as strings.
func rawSegments(d *edi.Document, from, to int) []string {
	out := make([]string, 0, max(0, to-from))
	for i := from; i < to; i++ {
		out = append(out, string(d.Segment(i).Raw()))
	}
	return out
}

// lcsOps is the edit script of a longest common subsequence of x and y:
// '=' keep, '-' delete from x, '+' insert from y; deletions come before
// insertions at the same place.
func lcsOps(x, y []string) []byte {
	n, m := len(x), len(y)
	l := make([][]int32, n+1)
	for i := range l {
		l[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	ops := make([]byte, 0, n+m)
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			ops = append(ops, '=')
			i, j = i+1, j+1
		case i < n && (j == m || l[i+1][j] >= l[i][j+1]):
			ops = append(ops, '-')
			i++
		default:
			ops = append(ops, '+')
			j++
		}
	}
	return ops
}
