// Package common holds what every screen of the b2bx app shares: the
// terminal size, the styles (built once), the global key map, the Screen
// interface and the Stack screens sit on. It imports no domain package,
// so screens can be tested with typed messages alone.
//
// # Screens and stacks
//
// Every screen (the viewer, the diff, the uploads, the upload flow, the
// event inspector, help, the session log, find, the timeline)
// implements Screen: Update, View, SetSize, its help keys, Capturing (a
// text input has the keys), Closes(key), Close (release what it owns)
// and Title. A value-typed model keeps its own typed Update for its
// tests and adds a small adapter (viewer.Model.Screen, FromScreen).
//
// Screens sit on a Stack: the root model has one (help, log, events,
// :view on the connection list, the : line and y/N prompts), each
// connection tab another (viewer, diff, uploads, upload). The top screen
// is drawn and gets the keys.
//
// Adding a screen is one Push: from Update, m.stack.Push(s) for a screen
// that is ready (a Cmd of the screen's Init comes back), or a Cmd that
// prepares it in the background and returns Opened{Tab: owner, Req:
// req, Screen: s} (or Err) for a screen that needs IO (a file to read, a
// diff to compute); req comes from Stack.Prepare, which also gives the
// context that stops the work. Never a new flag on the model.
//
// # Routing and the close rule
//
// Keys go owner → tab → top of its stack: the root's top screen first,
// else the active tab, whose stack's top gets them. Before a key reaches
// the top screen, the stack asks Closes(key): if it says yes (q, and esc
// once the screen has nothing to step back from: no search, pane or
// filter open) and the screen is not Capturing, the screen is popped and
// closed. The rule reads the same on every screen, and the help screen
// says it; with no screen open, q quits the app. A screen that ends by
// itself (the : line on enter, a flow's last step) reports Done and is
// popped after that Update.
//
// # Staleness, checked once
//
// A stack tags every message its screens' commands make with its owner
// and the screen's id (ScreenMsg); the root routes it by owner (RootOwner
// or a tab), the stack by screen id, so a result reaches the screen that
// asked and nobody once it left. An Opened is routed by owner the same
// way; the stack then drops (and closes) one whose Req is no longer the
// request it waits for: a newer open, esc, or the owner closing
// (Opened.Drop). Footer notes (Info, ErrorMsg) and messages that already
// name an owner (Owned) pass a stack unchanged. A screen's own async
// work (find's query, a directory read) comes back this way too: start
// it from Init or Update, number your own requests if a newer one must
// win, and never keep an app-wide counter.
//
// # Screens hand back results
//
// What happens when a screen leaves is decided by a message the screen
// hands back, never by its owner looking at what kind of screen it was.
// Every Stack method that gives a screen a message (Key, Update,
// Deliver) returns res next to the command: when the screen left (q or
// esc by the close rule, Done, or Pop, PopWhile and Replace by the
// owner) res is its Result() (Resulter), or Left{Title} when it has
// none, handed back once, after its Close; while it stays, res is its
// Report() (Reporter: the tab's filter as it is typed), else nil.
// CloseAll hands nothing back: the owner is leaving too. The owner acts
// on res with a switch over message types (the root's finished, the
// tab's afterScreen): cmdEntered, a prompt's action, upload.Left,
// fix.Left, ... A test (tui/screentypes_test.go) fails on a type switch
// or assertion on a concrete screen type in tui/*.go or tui/conntab.
//
// Capabilities the owners need are interfaces here, asked by the stack
// or by a helper: Inline (drawn below the page: the : line, a question,
// the filter), Listener (takes the owner's news: new links), Pending and
// Busy (an upload on its way), Exporter, Initer, Finisher.
//
// Prompt is the one y/N question: NewPrompt(question, yes, no) in the
// root's footer or a tab's pane (the next key answers it), NewPreview
// for a page that lists what y would run (a bulk run, marked uploads).
// Its action travels with it: y hands back yes, every other way of
// leaving hands back no.
//
// # Value or pointer screens
//
// One rule for both: the stack keeps the Screen that Update and SetSize
// return, and nothing else. A value screen (most: the viewer's adapter,
// Prompt, the tab's screens) returns its changed copy; a pointer screen
// (find.Results, find.Timeline, the copy menu) changes itself and
// returns itself, and must then be on one stack only and not be kept by
// anyone else, since a copy of the stack shares it. Pick a value unless
// the screen holds something that must not be copied (a cancel func,
// a large result it grows in place).
//
// A value model whose Update and SetSize return its own type (Model[M]:
// the viewer, the upload flow, the event inspector, the session log)
// goes on a stack through the one adapter, Adapt(m), and comes back
// with As[M](screen); the adapter forwards what the stack asks beyond
// Screen (Init, Done, Result, Exporter, Pending, Busy, Close) to the
// model when it has it. Write those on the model, never a package's own
// wrapper type.
package common

import (
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
)

// Common is shared by pointer between the root model and every screen. Only
// the root model writes it (on tea.WindowSizeMsg); screens read it in View.
type Common struct {
	// Width and Height are the whole terminal's size.
	Width, Height int
	// Styles are built once for the colour profile in use.
	Styles *Styles
	// Now is the clock for countdowns and relative times; tests fix it.
	Now func() time.Time
	// Demo marks the in-process simulator session (`b2bx demo`).
	Demo bool
}

// New returns a Common with styles for the environment (NO_COLOR aware) and
// the wall clock.
func New() *Common {
	return &Common{Styles: DefaultStyles(), Now: time.Now}
}

// Component is a screen or widget: the soft-serve shape. Update returns the
// component itself so the caller keeps a concrete type.
type Component[T any] interface {
	Update(msg tea.Msg) (T, tea.Cmd)
	View() string
	SetSize(width, height int) T
	help.KeyMap
}

// TabID identifies one connection tab for the life of the app. IDs are
// never reused, so a late result for a closed tab matches nothing.
type TabID uint64

// Owned is implemented by every message that results from a tab's async
// work (gh-dash's SectionMsg): the root model routes it to the tab with that
// ID and drops it when the tab is gone. The tab drops it when Req is not
// the request it is waiting for (stale).
type Owned interface {
	Owner() TabID
}

// Dropped is implemented by an Owned message that holds something to let
// go of when no tab takes it: the shell calls Drop when the owner tab is
// gone (e.g. a claim that completed just as its tab closed releases its
// lease, so the token is forgotten at once).
type Dropped interface {
	Owned
	Drop()
}

// Info is a transient message for the footer (info or error). Err messages
// stay until dismissed.
type Info struct {
	Text string // already sanitised by the sender
	Err  bool
}
