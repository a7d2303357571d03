package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/tui/common"
)

// handleKey routes a key: ctrl+c always quits; a too-small terminal takes
// only q; then owner → tab → top of its stack. A screen on the root stack
// has the keys (the close rule first: q and esc close it when it says
// so), : and ? stay the shell's while it types nothing; else a capturing
// tab gets every key, else the global keys come first and the rest goes
// to the active page, whose own stack applies the same close rule.
func (m Model) handleKey(k tea.KeyMsg) (Model, tea.Cmd) {
	if key.Matches(k, m.keys.ForceQuit) {
		return m.quit(true)
	}
	if keys := m.splitKeys(k); keys != nil {
		cmds := make([]tea.Cmd, 0, len(keys))
		for _, one := range keys {
			var cmd tea.Cmd
			m, cmd = m.handleKey(one)
			cmds = append(cmds, cmd)
		}
		return m, tea.Batch(cmds...)
	}
	m.foot.info = "" // any key clears a passing note (errors stay)
	if m.tooSmall() {
		if key.Matches(k, m.keys.Quit) {
			return m.quit(false)
		}
		return m, nil
	}
	if top := m.screens.Top(); top != nil {
		if !top.Capturing() && !top.Closes(k) && key.Matches(k, m.keys.Command, m.keys.Help) {
			return m.globalKey(k)
		}
		return m.finished(m.screens.Key(k))
	}
	if m.capturing() {
		return m.toPage(k)
	}
	return m.globalKey(k)
}

// splitKeys returns the single keys of a KeyRunes message that carries
// several, when they are commands rather than text: bubbletea v1 reports
// runes read together as one message (keys typed fast, sent at once by
// tmux, a held key), so ":view x" would otherwise match no key at all.
// While a text input has the keys (the command line, a tab's filter or
// form, a search) the runes stay together; a paste is never split, so
// pasted text cannot act as a stream of commands. nil: handle k as it is.
func (m Model) splitKeys(k tea.KeyMsg) []tea.KeyMsg {
	switch top := m.screens.Top(); {
	case top != nil:
		if !common.SplitsKeys(top) {
			return nil
		}
	case m.capturing():
		return nil
	}
	return common.SplitRunes(k)
}

// globalKey handles the shell's keys when no text input has them.
func (m Model) globalKey(k tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(k, m.keys.Dismiss) && m.foot.err != "":
		m.foot.err = ""
		return m.layout(), nil
	case key.Matches(k, m.keys.Quit) && m.tabCloses(k):
		return m.toPage(k) // q closes the screen on top of the tab
	case key.Matches(k, m.keys.Quit):
		return m.quit(false)
	case key.Matches(k, m.keys.Help):
		return m.push(m.helpScreen())
	case key.Matches(k, m.keys.Command):
		c, cmd := newCmdScreen()
		m, _ = m.push(c)
		return m, cmd
	case key.Matches(k, m.keys.Log):
		return m.openLog()
	case key.Matches(k, m.keys.Find):
		c, cmd := newCmdScreenWith("find ")
		m, _ = m.push(c)
		return m, cmd
	case key.Matches(k, m.keys.PrevTab):
		m.active = (m.active + len(m.tabs)) % (len(m.tabs) + 1)
	case key.Matches(k, m.keys.NextTab):
		m.active = (m.active + 1) % (len(m.tabs) + 1)
	case key.Matches(k, m.keys.Home):
		m.active = 0
	case key.Matches(k, m.keys.GoTab):
		if n := int(k.Runes[0] - '0'); n <= len(m.tabs) {
			m.active = n
		} else {
			m.foot.info = "no tab " + string(k.Runes) + ": " + tabCount(len(m.tabs))
		}
	case key.Matches(k, m.keys.CloseTab):
		return m.closeActive(false)
	case key.Matches(k, m.keys.Events):
		return m.openEvents("")
	default:
		return m.toPage(k)
	}
	return m, nil
}

// tabCloses reports whether the active tab closes a screen of its stack
// on k (the close rule one level down).
func (m Model) tabCloses(k tea.KeyMsg) bool {
	t := m.activeTab()
	return t != nil && t.tab.Closes(k)
}

// toPage gives a key to the active page.
func (m Model) toPage(k tea.KeyMsg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	if t := m.activeTab(); t != nil {
		t.tab, cmd = t.tab.Update(k)
		return m, cmd
	}
	m.list, cmd = m.list.Update(k)
	return m, cmd
}

func tabCount(n int) string {
	switch n {
	case 0:
		return "no connection is open yet (enter on a connection opens it)"
	case 1:
		return "one tab is open"
	}
	return "tabs 1-" + string(rune('0'+min(n, 9))) + " are open"
}

// tooSmall reports whether the terminal is below MinWidth×MinHeight (a
// size of 0 means none is known yet).
func (m Model) tooSmall() bool {
	return m.c.Width > 0 && (m.c.Width < MinWidth || m.c.Height < MinHeight)
}
