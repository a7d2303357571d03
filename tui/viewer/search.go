package viewer

import (
	"bytes"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/edi"
)

// searchBudget bounds the bytes one search step reads (~0.5 ms), so a
// search through 16 MiB never holds up a keypress: between steps the
// program handles keys, and esc or a new query cancels.
const searchBudget = 256 << 10

// searchStepMsg asks the viewer to continue search generation id.
type searchStepMsg struct{ id int }

// search is the state of the search: lazy, from the cursor, one bounded
// step per message, wrapping once around the document.
type search struct {
	query   string
	id      int // generation: steps of an older search are ignored
	running bool
	found   bool // the last search ended on a match
	dir     int  // +1 forward, -1 backward
	origin  int  // the cursor when / was pressed: incremental searches start after it, esc returns to it
	typed   bool // started from the input (incremental): a miss returns to origin
	start   int  // the segment the scan started from (looked at last)
	next    int  // the next segment to look at
	done    int  // segments looked at
	match   matcher
}

// cancel stops the search; its pending step becomes stale.
func (s search) cancel() search {
	s.id++
	s.running = false
	return s
}

func stepCmd(id int) tea.Cmd {
	return func() tea.Msg { return searchStepMsg{id: id} }
}

// startSearch looks for query from the segment after from (before it,
// for dir -1), wrapping around the ends.
func (m Model) startSearch(query string, dir, from int) (Model, tea.Cmd) {
	n := m.doc().Len()
	if query == "" {
		m.status = "no search yet: press / and type a tag or value"
		return m, nil
	}
	if n == 0 {
		return m, nil
	}
	s := m.search.cancel()
	s.query, s.running, s.found, s.dir = query, true, false, dir
	s.typed = m.input.Focused()
	s.start = min(max(from, 0), n-1)
	s.next = (s.start + dir + n) % n
	s.done = 0
	s.match = newMatcher(query)
	m.search = s
	m.status = "searching for " + quote(query) + " …"
	return m, stepCmd(s.id)
}

// searchStep looks at segments until a match, the whole document, or the
// byte budget; then it asks for another step.
func (m Model) searchStep(msg searchStepMsg) (Model, tea.Cmd) {
	s := m.search
	if msg.id != s.id || !s.running {
		return m, nil // stale: cancelled or superseded
	}
	doc := m.doc()
	n := doc.Len()
	hit := -1
	err := m.src.read(func() {
		read := 0
		for s.done < n && read < searchBudget {
			i := s.next
			seg := doc.Segment(i)
			read += len(seg.Raw()) + 16
			s.next = (i + s.dir + n) % n
			s.done++
			if s.match.match(seg) {
				hit = i
				return
			}
		}
	})
	if err != nil {
		m.search = s.cancel()
		return m, fileErrorCmd(m.src)
	}
	switch {
	case hit >= 0:
		s.running, s.found = false, true
		m.search = s
		m.status = fmt.Sprintf("%s: segment %d", quote(s.query), hit)
		if (s.dir > 0 && hit <= s.start) || (s.dir < 0 && hit >= s.start) {
			m.status += " (search wrapped around)"
		}
		return m.moveTo(hit), nil
	case s.done >= n:
		s.running, s.found = false, false
		m.search = s
		m.status = "no segment contains " + quote(s.query)
		if s.typed {
			// An earlier, shorter query may have moved the cursor: back
			// to where the search started.
			return m.moveTo(s.origin), nil
		}
		return m, nil
	}
	m.search = s
	m.status = fmt.Sprintf("searching for %s … %d%%", quote(s.query), s.done*100/n)
	return m, stepCmd(s.id)
}

// quote shows a query sanitised in quotes.
func quote(q string) string { return `"` + sanitize(q) + `"` }

// matcher finds a query in a segment's bytes: tag, separators and values
// as written. A query without capitals ignores case ("lin" finds LIN),
// one with capitals matches exactly. ASCII queries compare bytes, which
// mean the same in every EDIFACT character set; others compare the text
// decoded with the interchange's character set.
type matcher struct {
	ascii bool
	fold  bool
	q     []byte // ASCII query, lower-cased when fold
	text  string // non-ASCII query, lower-cased when fold
}

func newMatcher(q string) matcher {
	mt := matcher{fold: q == strings.ToLower(q), ascii: isASCII(q)}
	if mt.fold {
		q = strings.ToLower(q)
	}
	mt.q, mt.text = []byte(q), q
	return mt
}

func (mt matcher) match(s edi.Segment) bool {
	raw := s.Raw()
	if mt.ascii {
		if !mt.fold {
			return bytes.Contains(raw, mt.q)
		}
		return containsFoldASCII(raw, mt.q)
	}
	t := s.Charset().Decode(raw)
	if mt.fold {
		t = strings.ToLower(t)
	}
	return strings.Contains(t, mt.text)
}

// containsFoldASCII reports whether b contains q ignoring ASCII case; q
// is lower case.
func containsFoldASCII(b, q []byte) bool {
	if len(q) == 0 {
		return true
	}
	first, upper := q[0], upperASCII(q[0])
	for i := 0; i+len(q) <= len(b); i++ {
		if c := b[i]; c != first && c != upper {
			continue
		}
		ok := true
		for j := 1; j < len(q); j++ {
			if c := b[i+j]; c != q[j] && c != upperASCII(q[j]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
