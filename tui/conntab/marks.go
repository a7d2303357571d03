package conntab

import (
	"maps"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"
)

// markedSet is the IDs marked with space or * (nil when none). The map
// is replaced, never changed, so copies of the model keep theirs.
func (m Model) markedSet() map[string]bool { return m.marks }

// toggleMark is space: mark or unmark the selected row.
func (m Model) toggleMark() (Model, tea.Cmd) {
	id, ok := m.table.SelectedID()
	if !ok {
		return m, infoCmd("no row to mark")
	}
	next := maps.Clone(m.marks)
	if next == nil {
		next = map[string]bool{}
	}
	if next[id] {
		delete(next, id)
	} else {
		next[id] = true
	}
	m = m.withMarks(next)
	m.table.Move(1)
	return m, nil
}

// markAll is *: mark every row the filter shows, or clear the marks when
// all of them are marked already.
func (m Model) markAll() (Model, tea.Cmd) {
	rows := m.table.Visible()
	next := map[string]bool{}
	all := len(rows) > 0
	for _, r := range rows {
		all = all && m.marks[r.ID()]
		next[r.ID()] = true
	}
	if all {
		return m.withMarks(nil), infoCmd("marks cleared")
	}
	return m.withMarks(next), infoCmd(strconv.Itoa(len(next)) + " rows marked: P previews processing them, :export PATH writes them")
}

func (m Model) withMarks(set map[string]bool) Model {
	if len(set) == 0 {
		set = nil
	}
	m.marks = set
	m.table.SetMarked(set)
	return m
}
