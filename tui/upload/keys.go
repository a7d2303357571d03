package upload

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/nutrab2b/b2bx/tui/common"
)

// KeyMap is the upload screen's keys. The shell's global keys (q, [, ],
// 1-9, :, ?, L, ctrl+c) are not used here.
type KeyMap struct {
	// File list (the rest are the file picker's: j/k, h/l, g/G, pgup/pgdn).
	Select, AllFiles key.Binding
	// Report and key.
	Replay, New, Yes, Edit, Accept key.Binding
	// Result.
	Retry key.Binding
	// Everywhere.
	History, Back key.Binding
}

// DefaultKeyMap is the screen's key map (shown by the shell's `?` help).
func DefaultKeyMap() KeyMap {
	b := common.Bind
	return KeyMap{
		Select:   b([]string{"enter"}, "enter", "open / choose file"),
		AllFiles: b([]string{"a"}, "a", "all files / .edi .edifact .txt"),
		Replay:   b([]string{"r"}, "r", "replay (same key)"),
		New:      b([]string{"n"}, "n", "new upload (next key)"),
		Yes:      b([]string{"y", "Y", "enter"}, "y/enter", "send"),
		Edit:     b([]string{"e"}, "e", "edit key"),
		Accept:   b([]string{"enter"}, "enter", "use this key"),
		Retry:    b([]string{"R"}, "R", "retry with the same key"),
		History:  b([]string{"H"}, "H", "upload history"),
		Back:     b([]string{"esc"}, "esc", "back / close"),
	}
}

// pickerHelp documents the file picker's own keys.
var pickerHelp = []key.Binding{
	key.NewBinding(key.WithKeys("j", "k"), key.WithHelp("j/k", "down/up")),
	key.NewBinding(key.WithKeys("h", "l"), key.WithHelp("h/l", "parent/open dir")),
	key.NewBinding(key.WithKeys("g", "G"), key.WithHelp("g/G", "first/last")),
}

// ShortHelp is the keys that work right now.
func (m Model) ShortHelp() []key.Binding {
	k := m.keys
	switch {
	case m.editing:
		return []key.Binding{k.Accept, k.Back}
	case m.showHistory:
		return []key.Binding{k.History, k.Back}
	}
	switch m.stage {
	case stagePick:
		return []key.Binding{k.Select, k.AllFiles, k.History, k.Back}
	case stageReport:
		switch p := m.plan; {
		case p == nil || p.Preflight.Blocked():
			return []key.Binding{k.Back}
		case p.NeedsChoice():
			return []key.Binding{k.Replay, k.New, k.Back}
		case m.needsConfirm():
			return []key.Binding{key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "send anyway")), k.Back}
		}
		return []key.Binding{k.Yes, k.Edit, k.History, k.Back}
	case stageResult:
		if m.out != nil && m.out.Retry {
			return []key.Binding{k.Retry, k.History, k.Back}
		}
		return []key.Binding{k.History, k.Back}
	}
	return []key.Binding{k.Back}
}

// FullHelp is every key of the screen, in groups.
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{
		append([]key.Binding{k.Select, k.AllFiles}, pickerHelp...),
		{k.Replay, k.New, k.Yes, k.Edit, k.Accept},
		{k.Retry, k.History, k.Back},
	}
}
