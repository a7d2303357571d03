package common

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Screen is what every screen of the app implements: the mailbox, the
// segment viewer, the diff, the uploads list, the upload flow, find, the
// timeline, the event inspector, help and the session log. Screens sit on
// a Stack (one at the root, one per tab); the stack, not the screen,
// decides who gets a key: owner → tab → top of its stack.
type Screen interface {
	// Update handles one message and returns the screen (value or
	// pointer, as the screen likes) and a command.
	Update(msg tea.Msg) (Screen, tea.Cmd)
	// View renders the screen into the size last given to SetSize.
	View() string
	// SetSize is the area the screen may draw in (below the tab bar,
	// above the footer).
	SetSize(width, height int) Screen
	// ShortHelp and FullHelp: the keys the screen binds, for the footer
	// and the help screen.
	help.KeyMap
	// Capturing reports that a text input has the keys (a typed search,
	// a path, a filter): global keys and the close rule step aside.
	Capturing() bool
	// Closes reports whether this key closes the screen when it is on top
	// of a stack (q and esc at rest; never while Capturing). The stack
	// asks it before giving the key to Update, so the rule reads the same
	// on every screen.
	Closes(key tea.KeyMsg) bool
	// Close releases what the screen owns (a mapped file, a running
	// request). It is called once, when the screen leaves its stack.
	Close()
	// Title names the screen in the tab bar and the help screen; it is
	// already terminal-safe.
	Title() string
}

// RootOwner is the owner of the root stack's screens (help, log, events,
// :view on the connection list). Tabs have IDs from 1 on.
const RootOwner TabID = 0

// Opened is the one message that puts a prepared screen on a stack: the
// result of an async open (a viewer reading its file, a diff, find
// results) carries its owner, and the root routes it like any Owned
// message. A screen opened for a tab that is gone is closed unseen.
// Req, when not zero, is the request the screen answers: a stack that has
// since asked for something newer (or cancelled) drops it.
//
// Err, when not nil, says the screen could not be prepared (a file that
// cannot be read): the stack stops waiting and the owner shows Err,
// which is already phrased for the footer ("the viewer cannot open it:
// …"); Screen is then nil.
type Opened struct {
	Tab    TabID
	Req    uint64
	Screen Screen
	Err    error
}

// Owner implements Owned.
func (o Opened) Owner() TabID { return o.Tab }

// Drop implements Dropped: an Opened that no tab takes closes its screen.
func (o Opened) Drop() {
	if o.Screen != nil {
		o.Screen.Close()
	}
}

// Push asks for s to be put on top of the owner's stack; use it for a
// screen that is ready at once.
func Push(owner TabID, s Screen) tea.Cmd {
	return func() tea.Msg { return Opened{Tab: owner, Screen: s} }
}

// Base gives a screen the usual answers to the methods it has nothing
// to say to: no keys of its own for the help, no text input, nothing to
// release. Embed it and write the rest (Update, View, SetSize, Closes,
// Title).
type Base struct{}

// ShortHelp implements help.KeyMap: no keys.
func (Base) ShortHelp() []key.Binding { return nil }

// FullHelp implements help.KeyMap: no keys.
func (Base) FullHelp() [][]key.Binding { return nil }

// Capturing implements Screen: no text input.
func (Base) Capturing() bool { return false }

// Close implements Screen: nothing to release.
func (Base) Close() {}
