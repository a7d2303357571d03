package viewer

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// key handles a key while no text input is focused.
func (m Model) key(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Search):
		m.search = m.search.cancel()
		m.search.origin = m.cursor
		m.input.SetValue("")
		m.status = ""
		return m, m.input.Focus()
	case key.Matches(msg, k.Next):
		return m.startSearch(m.search.query, +1, m.cursor)
	case key.Matches(msg, k.Prev):
		return m.startSearch(m.search.query, -1, m.cursor)
	case len(m.cache.pins) > 0 && (key.Matches(msg, k.NextPin) || key.Matches(msg, k.PrevPin)):
		dir := 1
		if key.Matches(msg, k.PrevPin) {
			dir = -1
		}
		if seg := m.nextPinned(dir); seg >= 0 {
			m.focus, m.pane = focusSegments, paneDetail
			return m.moveTo(seg), nil
		}
		return m, nil
	case key.Matches(msg, k.Cancel):
		return m.escape(), nil
	case key.Matches(msg, k.Issues):
		return m.toggleIssues(), nil
	case key.Matches(msg, k.Focus):
		if m.pane == paneIssues && m.focus == focusSegments {
			m.focus = focusIssues
		} else {
			m.focus = focusSegments
		}
		return m, nil
	case key.Matches(msg, k.Raw):
		switch {
		case m.pane == paneRaw:
			m.pane = paneDetail
		case m.focus == focusIssues:
			// The bytes around the selected issue.
			m = m.jumpToIssue(m.iCursor)
			m.pane = paneRaw
		default:
			m.pane = paneRaw
		}
		return m, nil
	}
	if m.focus == focusIssues {
		return m.issueKey(msg), nil
	}
	return m.moveKey(msg), nil
}

// moveKey moves the segment cursor.
func (m Model) moveKey(msg tea.KeyMsg) Model {
	k, rows := m.keys, m.rows()
	switch {
	case key.Matches(msg, k.Down):
		return m.moveTo(m.cursor + 1)
	case key.Matches(msg, k.Up):
		return m.moveTo(m.cursor - 1)
	case key.Matches(msg, k.PageDown):
		return m.scroll(rows)
	case key.Matches(msg, k.PageUp):
		return m.scroll(-rows)
	case key.Matches(msg, k.HalfDown):
		return m.scroll(max(rows/2, 1))
	case key.Matches(msg, k.HalfUp):
		return m.scroll(-max(rows/2, 1))
	case key.Matches(msg, k.Top):
		return m.moveTo(0)
	case key.Matches(msg, k.Bottom):
		return m.moveTo(m.doc().Len() - 1)
	}
	return m
}

// escape stops a running search, else leaves the issues or raw pane.
func (m Model) escape() Model {
	switch {
	case m.search.running:
		m.search = m.search.cancel()
		m.status = "search stopped"
	case m.pane != paneDetail:
		m.pane, m.focus = paneDetail, focusSegments
	}
	return m
}

// toggleIssues opens the issues pane with the focus in it, or closes it.
func (m Model) toggleIssues() Model {
	if m.pane == paneIssues {
		m.pane, m.focus = paneDetail, focusSegments
		return m
	}
	m.pane, m.focus = paneIssues, focusIssues
	return m
}

// issueKey moves in the issues list; enter jumps to the issue's segment.
func (m Model) issueKey(msg tea.KeyMsg) Model {
	k, n := m.keys, len(m.doc().Issues())
	page := max(m.layout().pane-1, 1)
	switch {
	case key.Matches(msg, k.Jump):
		return m.jumpToIssue(m.iCursor)
	case key.Matches(msg, k.Down):
		m.iCursor++
	case key.Matches(msg, k.Up):
		m.iCursor--
	case key.Matches(msg, k.PageDown, k.HalfDown):
		m.iCursor += page
	case key.Matches(msg, k.PageUp, k.HalfUp):
		m.iCursor -= page
	case key.Matches(msg, k.Top):
		m.iCursor = 0
	case key.Matches(msg, k.Bottom):
		m.iCursor = n - 1
	}
	m.iCursor = max(min(m.iCursor, n-1), 0)
	return m
}

// jumpToIssue selects the segment of issue k, remembers its offset for
// the raw view and shows the segment's details.
func (m Model) jumpToIssue(k int) Model {
	issues := m.doc().Issues()
	if k < 0 || k >= len(issues) || m.doc().Len() == 0 {
		return m
	}
	is := issues[k]
	seg := is.Segment
	if seg < 0 {
		_ = m.src.read(func() { seg = segmentAt(m.doc(), is.Offset) })
	}
	m = m.moveTo(seg)
	m.spot, m.spotSeg = is.Offset, m.cursor
	m.pane, m.focus = paneDetail, focusSegments
	return m
}

// inputKey feeds the search input; every change searches again from
// where the search started (incremental), enter keeps the match, esc goes
// back.
func (m Model) inputKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Escape):
		m.input.Blur()
		origin := m.search.origin
		m.search = m.search.cancel()
		m.status = ""
		return m.moveTo(origin), nil
	case key.Matches(msg, m.keys.SearchAccept):
		m.input.Blur()
		if m.input.Value() == "" {
			return m, nil
		}
		if m.search.query != m.input.Value() {
			return m.startSearch(m.input.Value(), +1, m.search.origin)
		}
		return m, nil // the incremental search has the result, or is still looking
	}
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if v := m.input.Value(); v != before {
		if v == "" {
			m.search = m.search.cancel()
			m.status = ""
			return m.moveTo(m.search.origin), cmd
		}
		var step tea.Cmd
		m, step = m.startSearch(v, +1, m.search.origin)
		return m, tea.Batch(cmd, step)
	}
	return m, cmd
}
