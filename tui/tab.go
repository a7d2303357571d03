package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/conntab"
)

// Tab is one connection's tab as the shell sees it: conntab.Model behind
// a small adapter (connTab), or a fake in tests. Update and SetSize return
// the tab so the shell can keep tabs of any concrete type in one slice.
type Tab interface {
	Init() tea.Cmd
	Update(msg tea.Msg) (Tab, tea.Cmd)
	View() string
	SetSize(width, height int) Tab
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
	// Title is the tab bar's name for the tab, sanitised.
	Title() string
	// Status is what the status bar shows while the tab is active.
	Status() Status
	// Pending is "" or why closing the tab (or quitting) would lose
	// something, e.g. an active claim whose lease would run out.
	Pending() string
	// Capturing is true while a text input or prompt of the tab wants
	// every key (the shell then leaves q, [, ], 1-9, :, ? and L alone).
	Capturing() bool
	// Closes reports whether k closes the screen on top of the tab's
	// stack (q then goes to the tab instead of quitting the app).
	Closes(k tea.KeyMsg) bool
	// Close cancels the tab's work and releases its lease (the token is
	// forgotten). The shell calls it once, when the tab closes or the app
	// ends.
	Close()
}

// Status is the status bar's content for one tab (conntab's words).
// Empty fields are left out. Every string is sanitised by the tab.
type Status = conntab.Bar

// openTab is one open tab and its identity.
type openTab struct {
	id   common.TabID
	name string // the connection (profile) name it was opened for
	conn *session.Conn
	tab  Tab
}
