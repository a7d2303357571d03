// Package find is the app's face of the tracking index: the results of a
// find (conversations, newest first, with where each stands: answered,
// awaiting, overdue, needs action) and the timeline of one conversation,
// whose steps open their own screens (viewer, diff, claim panel, event
// detail). Both are common.Screen values for the screen stacks.
//
// How the root opens it (wired by the app shell, not here): on `F`, or
// `:find QUERY` on the command line, the root pushes
//
//	find.New(c, owner, find.FromIndex(idx, machine.SLA()), query, openers)
//
// on its stack, with idx the machine's track.Index
// (track.LoadMachine(env).Open) and openers building the step screens
// (see Openers). The screen's Init runs the query in a tea.Cmd, so the
// first frame never waits for the index; its answer comes back through
// the stack like every screen's own message (common.ScreenMsg: the
// owner and the screen), and the screen drops an answer to an older
// query of its own (r searches again).
package find

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
)

// Source is what the screens need of the tracking index.
type Source interface {
	// Find syncs the index with the files (cheap when nothing changed)
	// and runs the query.
	Find(ctx context.Context, q track.Query) (track.Result, track.Stats, error)
	// Timeline tells one conversation (reads the files of its steps).
	Timeline(ctx context.Context, c track.Conversation) []track.Step
}

// FromIndex is the Source of a track.Index with the machine's SLAs.
func FromIndex(x *track.Index, sla track.SLAFunc) Source { return indexSource{x: x, sla: sla} }

type indexSource struct {
	x   *track.Index
	sla track.SLAFunc
}

func (s indexSource) Find(ctx context.Context, q track.Query) (track.Result, track.Stats, error) {
	st, err := s.x.Sync(ctx)
	if err != nil {
		return track.Result{}, st, err
	}
	r, err := s.x.Find(ctx, q, s.sla)
	return r, st, err
}

func (s indexSource) Timeline(ctx context.Context, c track.Conversation) []track.Step {
	return s.x.Timeline(ctx, c)
}

// Openers build the screens a timeline step opens; each returns the
// command that yields a common.Opened (or nil when the screen is not
// available). A nil field means that kind of step opens nothing.
type Openers struct {
	Viewer func(owner common.TabID, path string) tea.Cmd             // the segment viewer on a stored file
	Diff   func(owner common.TabID, orders, ordrsp string) tea.Cmd   // the order diff
	Claim  func(owner common.TabID, conn, delivery string) tea.Cmd   // the claim panel of a delivery
	Event  func(owner common.TabID, capture, eventID string) tea.Cmd // the event inspector at one event
}

// Open is the command for a step's screen, nil when there is none.
func (o Openers) Open(owner common.TabID, op track.Opens) tea.Cmd {
	switch op.Screen {
	case track.OpenViewer:
		if o.Viewer != nil {
			return o.Viewer(owner, op.Path)
		}
	case track.OpenDiff:
		if o.Diff != nil {
			return o.Diff(owner, op.Orders, op.Path)
		}
	case track.OpenClaim:
		if o.Claim != nil {
			return o.Claim(owner, op.Conn, op.Delivery)
		}
	case track.OpenEvent:
		if o.Event != nil {
			return o.Event(owner, op.Path, op.Event)
		}
	}
	return nil
}

// keyMap is the keys of both screens.
type keyMap struct {
	common.Nav
	Open, Refresh, Close key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Nav:     common.NavKeys(),
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Refresh: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "search again")),
		Close:   key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q/esc", "back")),
	}
}

// Timeout bounds one query or timeline read; said on screen when it runs
// out.
const Timeout = 30 * time.Second

// resultMsg is a finished query. It is the results screen's own
// message: the stack brings it back to the screen that asked, which
// keeps it only when req is its latest query.
type resultMsg struct {
	req   uint64
	res   track.Result
	stats track.Stats
	err   error
}

// Owns reports whether s is one of find's screens (the results, a
// timeline): a mailbox step takes them off the stack when it brings the
// connection's tab to the front.
func Owns(s common.Screen) bool {
	switch s.(type) {
	case *Results, *Timeline:
		return true
	}
	return false
}

// safe is the one sanitiser, for every string from the index.
func safe(s string) string { return termsafe.String(s) }

func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// cut shortens s to w runes ("…" at the end).
func cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	r := []rune(s)
	if len(r) <= w {
		return s
	}
	if w == 1 {
		return "…"
	}
	return string(r[:w-1]) + "…"
}

func pad(s string, w int) string {
	s = cut(s, w)
	if n := len([]rune(s)); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// flagWord is a conversation's state in words (upper case, as in b2bx find).
func flagWord(st track.UploadState) string {
	if f := st.Flag(); f != "" {
		return strings.ToUpper(f)
	}
	return "-"
}
