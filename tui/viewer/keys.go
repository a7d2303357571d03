package viewer

import "github.com/charmbracelet/bubbles/key"

// KeyMap are the viewer's keys. q is not among them: quitting or closing
// the view is the caller's (the app's shell, or the standalone program).
type KeyMap struct {
	Up, Down             key.Binding
	PageUp, PageDown     key.Binding
	HalfUp, HalfDown     key.Binding
	Top, Bottom          key.Binding
	Search               key.Binding
	Next, Prev           key.Binding
	Issues, Focus, Jump  key.Binding
	Raw                  key.Binding
	NextPin, PrevPin     key.Binding // only with pins (Options.Pins)
	Cancel               key.Binding
	SearchAccept, Escape key.Binding // inside the search input
}

// DefaultKeyMap is the viewer's key map: less/vim-like movement.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:           key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("↑/k", "up")),
		Down:         key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("↓/j", "down")),
		PageUp:       key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/b", "page up")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown", "f", " "), key.WithHelp("pgdn/f", "page down")),
		HalfUp:       key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "half page up")),
		HalfDown:     key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "half page down")),
		Top:          key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "first segment")),
		Bottom:       key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last segment")),
		Search:       key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search tags, values")),
		Next:         key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		Prev:         key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
		Issues:       key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "issues")),
		Focus:        key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "segments/issues")),
		Jump:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "go to the issue's segment")),
		Raw:          key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "raw bytes")),
		NextPin:      key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "next pinned error")),
		PrevPin:      key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "previous pinned error")),
		Cancel:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop search / details")),
		SearchAccept: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep match")),
		Escape:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel search")),
	}
}

// ShortHelp is the footer's key list.
func (m Model) ShortHelp() []key.Binding {
	if m.input.Focused() {
		return []key.Binding{m.keys.SearchAccept, m.keys.Escape}
	}
	k := m.keys
	if m.focus == focusIssues {
		return []key.Binding{k.Up, k.Down, k.Jump, k.Focus, k.Issues, k.Raw}
	}
	if len(m.cache.pins) > 0 {
		return []key.Binding{k.Down, k.Up, k.NextPin, k.Search, k.Next, k.Issues, k.Raw}
	}
	return []key.Binding{k.Down, k.Up, k.Search, k.Next, k.Issues, k.Raw}
}

// FullHelp is every key, grouped for the help screen.
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom},
		{k.Search, k.Next, k.Prev, k.Cancel},
		{k.Issues, k.Focus, k.Jump, k.Raw, k.NextPin, k.PrevPin},
	}
}
