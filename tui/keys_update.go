package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/tui/common"
)

// handleKey routes a key by mode: ctrl+c always quits; a too-small
// terminal takes only q; a prompt, the command line, help and log take
// their keys; in normal mode a capturing page gets every key, else the
// global keys come first and the rest goes to the active page.
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
	switch m.mode {
	case modePrompt:
		return m.answer(k)
	case modeCommand:
		return m.commandKey(k)
	case modeHelp:
		switch {
		case key.Matches(k, m.keys.Help, m.keys.Dismiss):
			m.mode = modeNormal
		case key.Matches(k, m.keys.Quit):
			return m.quit(false)
		}
		return m, nil
	case modeLog:
		switch {
		case key.Matches(k, m.keys.Log, m.keys.Dismiss):
			m.mode, m.log = modeNormal, m.log.Close()
			return m, nil
		case key.Matches(k, m.keys.Quit):
			return m.quit(false)
		}
		var cmd tea.Cmd
		m.log, cmd = m.log.Update(k)
		return m, cmd
	}
	if m.evOpen {
		return m.eventsKey(k)
	}
	if m.sv.v != nil {
		return m.shellViewKey(k)
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
	if m.mode == modeCommand {
		return nil
	}
	if m.mode == modeNormal {
		switch {
		case m.evOpen && m.events.Capturing(), m.sv.v != nil && m.sv.v.Capturing():
			return nil
		case !m.evOpen && m.sv.v == nil && m.capturing():
			return nil
		}
	}
	return common.SplitRunes(k)
}

// globalKey handles the shell's keys in normal mode.
func (m Model) globalKey(k tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(k, m.keys.Dismiss) && m.foot.err != "":
		m.foot.err = ""
		return m.layout(), nil
	case key.Matches(k, m.keys.Quit) && m.overlayOpen():
		return m.toPage(k) // q closes the screen over the tab
	case key.Matches(k, m.keys.Quit):
		return m.quit(false)
	case key.Matches(k, m.keys.Help):
		m.mode = modeHelp
	case key.Matches(k, m.keys.Command):
		m.mode = modeCommand
		m.cmdline.Reset()
		cmd := m.cmdline.Focus()
		return m.layout(), cmd
	case key.Matches(k, m.keys.Log):
		var cmd tea.Cmd
		m.mode = modeLog
		m.log, cmd = m.log.Open()
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

// overlayOpen reports whether the active tab shows a screen over its
// mailbox (viewer, diff, uploads and answers) that q closes.
func (m Model) overlayOpen() bool {
	t := m.activeTab()
	if t == nil {
		return false
	}
	o, ok := t.tab.(interface{ Overlay() bool })
	return ok && o.Overlay()
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
