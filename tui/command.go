package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/upload"
)

// commandList is the command line's commands, for the help view and
// the error about an unknown command.
var commandList = []struct{ use, what string }{
	{":conn NAME", "open or switch to a connection"},
	{":view PATH", "segment viewer on a file"},
	{":upload [PATH]", "upload ORDERS (in a tab)"},
	{":find QUERY", "find an order, interchange, GLN, key or ID everywhere (F)"},
	{":events [PATH]", "event inspector"},
	{":events listen [ADDR]", "receive webhook events live"},
	{":export PATH", "write the table as CSV/JSON (:export! replaces)"},
	{":close", "close the tab"},
	{":log", "session log"},
	{":help", "this help"},
	{":q  :q!", "quit (:q! without y/N)"},
}

// commandHelp lists the commands on one line.
var commandHelp = func() string {
	uses := make([]string, len(commandList))
	for i, c := range commandList {
		uses[i] = c.use
	}
	return strings.Join(uses, ", ")
}()

// run executes one command line.
func (m Model) run(line string) (Model, tea.Cmd) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return m, nil
	}
	name, args := fields[0], fields[1:]
	switch name {
	case "conn", "open":
		if len(args) != 1 {
			return m.showError(common.ErrorMsg{Text: ":conn takes one connection name, e.g. :conn acme-de (the names are on the connections page, key 0)"}), nil
		}
		return m.openConn(args[0], true)
	case "upload":
		t := m.activeTab()
		if t == nil {
			return m.showError(common.ErrorMsg{Text: ":upload works in a connection's tab: open one first (:conn NAME), then :upload PATH"}), nil
		}
		id, path := t.id, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), name))
		return m, func() tea.Msg { return upload.OpenMsg{Tab: id, Path: path} }
	case "find":
		return m.openFind(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), name)))
	case "view":
		return m.openView(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), name)))
	case "events":
		if len(args) > 0 && args[0] == "listen" {
			if len(args) > 2 {
				return m.showError(common.ErrorMsg{Text: ":events listen takes at most one address, e.g. :events listen 127.0.0.1:8787"}), nil
			}
			return m.openEventsLive(strings.Join(args[1:], ""))
		}
		return m.openEvents(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), name)))
	case "export", "export!":
		return m.export(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), name)), name == "export!")
	case "close":
		return m.closeActive(false)
	case "q", "quit":
		return m.quit(false)
	case "q!", "quit!":
		return m.quit(true)
	case "help":
		return m.push(m.helpScreen())
	case "log":
		return m.openLog()
	}
	return m.showError(common.ErrorMsg{Text: "unknown command :" + termsafe.String(name) + "; the commands are " + commandHelp}), nil
}

// commandColumns documents the commands in the help view, in two columns.
func commandColumns() [][]key.Binding {
	cols := make([][]key.Binding, 2)
	half := (len(commandList) + 1) / 2
	for i, c := range commandList {
		cols[i/half] = append(cols[i/half], key.NewBinding(key.WithKeys(c.use), key.WithHelp(c.use, c.what)))
	}
	return cols
}
