package common

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Model is a value screen's model as its package writes it: Update and
// SetSize return the model's own type (soft-serve's Component), and it
// answers the rest of Screen itself. Adapt puts one on a stack.
type Model[M any] interface {
	Update(msg tea.Msg) (M, tea.Cmd)
	SetSize(width, height int) M
	View() string
	help.KeyMap
	Capturing() bool
	Closes(key tea.KeyMsg) bool
	Title() string
}

// Adapted is the one screen adapter of the app: a value model M as a
// Screen. What a stack asks of a screen beyond Screen (Initer, Finisher,
// Resulter, Exporter, Pending, Busy, Close) it forwards to M when M has
// it, and otherwise answers as a screen without it would.
type Adapted[M Model[M]] struct{ Model M }

// Adapt is m as a screen of a stack.
func Adapt[M Model[M]](m M) Screen { return Adapted[M]{Model: m} }

// As is the model a screen shows when it is an Adapted[M].
func As[M Model[M]](s Screen) (M, bool) {
	a, ok := s.(Adapted[M])
	return a.Model, ok
}

// Update implements Screen.
func (a Adapted[M]) Update(msg tea.Msg) (Screen, tea.Cmd) {
	m, cmd := a.Model.Update(msg)
	return Adapted[M]{Model: m}, cmd
}

// SetSize implements Screen.
func (a Adapted[M]) SetSize(w, h int) Screen { return Adapted[M]{Model: a.Model.SetSize(w, h)} }

// View implements Screen.
func (a Adapted[M]) View() string { return a.Model.View() }

// ShortHelp implements help.KeyMap.
func (a Adapted[M]) ShortHelp() []key.Binding { return a.Model.ShortHelp() }

// FullHelp implements help.KeyMap.
func (a Adapted[M]) FullHelp() [][]key.Binding { return a.Model.FullHelp() }

// Capturing implements Screen.
func (a Adapted[M]) Capturing() bool { return a.Model.Capturing() }

// Closes implements Screen.
func (a Adapted[M]) Closes(k tea.KeyMsg) bool { return a.Model.Closes(k) }

// Title implements Screen.
func (a Adapted[M]) Title() string { return a.Model.Title() }

// Close implements Screen: the model's Close, with or without an error
// (the viewer's unmapping cannot fail in a way the stack could act on).
func (a Adapted[M]) Close() {
	switch c := any(a.Model).(type) {
	case interface{ Close() }:
		c.Close()
	case interface{ Close() error }:
		_ = c.Close()
	}
}

// Init implements Initer: the model's Init, nil when it has none.
func (a Adapted[M]) Init() tea.Cmd {
	if i, ok := any(a.Model).(Initer); ok {
		return i.Init()
	}
	return nil
}

// Done implements Finisher: the model's Done, false when it has none.
func (a Adapted[M]) Done() bool {
	f, ok := any(a.Model).(Finisher)
	return ok && f.Done()
}

// Result implements Resulter: the model's Result, else Left with its
// title, as for any screen without one.
func (a Adapted[M]) Result() tea.Msg {
	if r, ok := any(a.Model).(Resulter); ok {
		return r.Result()
	}
	return Left{Title: a.Title()}
}

// Pending implements the stack's pender: "" when the model has no
// Pending.
func (a Adapted[M]) Pending() string {
	if p, ok := any(a.Model).(pender); ok {
		return p.Pending()
	}
	return ""
}

// Busy implements the stack's buser: "" when the model has no Busy.
func (a Adapted[M]) Busy() string {
	if b, ok := any(a.Model).(buser); ok {
		return b.Busy()
	}
	return ""
}

// Exporter implements Exporter: nil when the model has none (ExporterOf
// then reports none).
func (a Adapted[M]) Exporter() func(path string, force bool) (string, error) {
	if e, ok := any(a.Model).(Exporter); ok {
		return e.Exporter()
	}
	return nil
}
