package eventview

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/nutrab2b/b2bx/tui/common"
)

// KeyMap is the event inspector's keys. While the screen is open it gets
// every key but ctrl+c, so it may use letters the shell uses elsewhere.
type KeyMap struct {
	// Report.
	common.Nav
	Section, PrevSection    key.Binding
	Open, Rerun, Filter     key.Binding
	Secret, Keyring, Forget key.Binding
	Listen                  key.Binding
	// File list (movement and h/l are the file picker's own keys).
	Select, AllFiles, InspectDir, TypePath key.Binding
	// Text inputs.
	Accept key.Binding
	// Everywhere.
	Back key.Binding
}

// DefaultKeyMap is the screen's key map (shown in its help line and by
// FullHelp).
func DefaultKeyMap() KeyMap {
	b := common.Bind
	return KeyMap{
		Nav:         common.NavKeys(),
		Section:     b([]string{"tab"}, "tab", "next view"),
		PrevSection: b([]string{"shift+tab"}, "shift+tab", "previous view"),
		Open:        b([]string{"o"}, "o", "open another file"),
		Rerun:       b([]string{"r"}, "r", "re-run the checks"),
		Filter:      b([]string{"/"}, "/", "filter findings"),
		Secret:      b([]string{"s"}, "s", "type the webhook secret"),
		Keyring:     b([]string{"K"}, "K", "secret from the profile's keyring"),
		Forget:      b([]string{"x"}, "x", "forget the secret"),
		Listen:      b([]string{"L"}, "L", "listen live (webhook receiver)"),
		Select:      b([]string{"enter"}, "enter", "inspect file / open dir"),
		AllFiles:    b([]string{"a"}, "a", "all files / captures only"),
		InspectDir:  b([]string{"d"}, "d", "inspect this directory"),
		TypePath:    b([]string{"p"}, "p", "type a path"),
		Accept:      b([]string{"enter"}, "enter", "accept"),
		Back:        b([]string{"esc"}, "esc", "back / close"),
	}
}

// pickerHelp documents the file picker's own movement keys.
var pickerHelp = []key.Binding{
	key.NewBinding(key.WithKeys("j", "k"), key.WithHelp("j/k", "down/up")),
	key.NewBinding(key.WithKeys("h", "l"), key.WithHelp("h/l", "parent/open dir")),
	key.NewBinding(key.WithKeys("g", "G"), key.WithHelp("g/G", "first/last")),
}

// inputHelp documents a focused text input.
func (k KeyMap) inputHelp() []key.Binding {
	cancel := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel"))
	return []key.Binding{k.Accept, cancel}
}

// ShortHelp implements help.KeyMap: the keys of the current stage.
func (m Model) ShortHelp() []key.Binding {
	k := m.keys
	switch {
	case m.Capturing():
		return k.inputHelp()
	case m.stage == stagePick:
		return []key.Binding{k.Select, k.InspectDir, k.TypePath, k.AllFiles, k.Secret, k.Listen, k.Back}
	case m.stage == stageLoading:
		return []key.Binding{k.Back}
	}
	if m.live != nil {
		return []key.Binding{k.Down, k.Section, k.Filter, k.Back}
	}
	return []key.Binding{k.Down, k.Section, k.Filter, k.Open, k.Rerun, k.Secret, k.Listen, k.Back}
}

// FullHelp implements help.KeyMap.
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{
		k.Nav.Bindings(),
		{k.Section, k.PrevSection, k.Filter, k.Open, k.Rerun},
		{k.Secret, k.Keyring, k.Forget, k.Listen},
		append([]key.Binding{k.Select, k.InspectDir, k.TypePath, k.AllFiles}, pickerHelp...),
		{k.Back},
	}
}
