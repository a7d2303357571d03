// Package common holds what every screen of the b2bx app shares: the
// terminal size, the styles (built once), the global key map, and the small
// interfaces screens implement. It imports no domain package, so screens can
// be tested with typed messages alone.
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
