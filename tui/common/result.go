package common

import (
	"reflect"

	tea "github.com/charmbracelet/bubbletea"
)

// What a screen hands back. A screen is opened with one Push and tells
// its owner what became of it through the stack, never by the owner
// looking at what kind of screen it was (k9s' StackPopped, pug's prompt
// whose action travels with it). The interfaces below are what a screen
// may add to Screen for that; the stack asks them, owners read messages.

// Resulter is a screen that hands its owner a message when it leaves its
// stack, however it leaves: closed by q or esc (the close rule),
// finished by itself (Finisher), popped or replaced by its owner. The
// stack asks Result once, after the screen's Close, and hands the
// message to the owner exactly once: the : line's entered text, a
// prompt's answer, "something may have been sent" from the upload
// screen.
type Resulter interface{ Result() tea.Msg }

// Reporter is a screen its owner follows while it stays on top: after
// every message the stack gives it, the stack hands the owner Report()
// (the tab's filter as it is typed).
type Reporter interface{ Report() tea.Msg }

// Left is the result of a screen that has nothing to hand back (it is
// not a Resulter): the owner learns that it left, and its title.
type Left struct{ Title string }

// Inline is a screen drawn below the page instead of over it (the : line
// and a y/N prompt in the root's footer, the filter and a prompt in a
// tab's bottom pane): the page under it stays in view. Inline reports
// whether it draws there (a Prompt does as a question, not as a
// preview); InlineView is its lines at width w, already terminal-safe.
type Inline interface {
	Screen
	Inline() bool
	InlineView(st *Styles, w int) []string
}

// IsInline reports whether s is drawn below the page (Inline).
func IsInline(s Screen) bool {
	in, ok := s.(Inline)
	return ok && in.Inline()
}

// InlineLines are s's lines below the page, nil when s is not drawn
// there.
func InlineLines(s Screen, st *Styles, w int) []string {
	if in, ok := s.(Inline); ok && in.Inline() {
		return in.InlineView(st, w)
	}
	return nil
}

// SplitsKeys reports whether several runes read at once should reach s
// one key at a time: yes at rest and for a prompt (its keys are answers),
// no while a text input has the keys (a paste stays text).
func SplitsKeys(s Screen) bool {
	if _, ok := s.(Prompt); ok {
		return true
	}
	return !s.Capturing()
}

// pender is a screen that must not be left now (an upload on its way):
// Pending says why, "" when it may.
type pender interface{ Pending() string }

// buser is a screen with work running that the status bar names.
type buser interface{ Busy() string }

// result is what s hands its owner on leaving.
func result(s Screen) tea.Msg {
	if r, ok := s.(Resulter); ok {
		return r.Result()
	}
	return Left{Title: s.Title()}
}

// report is what a screen that stays hands its owner (nil when it is no
// Reporter).
func report(s Screen) tea.Msg {
	if r, ok := s.(Reporter); ok {
		return r.Report()
	}
	return nil
}

// sameKind reports whether a and b are screens of one kind (one Go
// type): a fresh one replaces the one on top (Stack.Replace).
func sameKind(a, b Screen) bool {
	return a != nil && b != nil && reflect.TypeOf(a) == reflect.TypeOf(b)
}
