package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// SplitRunes returns the single keys of a KeyRunes message that carries
// several, nil for any other message. Bubbletea v1 reports runes read
// together as one message (a held-down j, keys typed fast or sent at once
// by tmux), so each screen whose keys are commands handles them one by
// one. A paste stays one message: pasted text never acts as commands.
func SplitRunes(msg tea.KeyMsg) []tea.KeyMsg {
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || msg.Paste {
		return nil
	}
	keys := make([]tea.KeyMsg, len(msg.Runes))
	for i, r := range msg.Runes {
		keys[i] = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}
	}
	return keys
}

// CloseKey is the close rule as a help entry: q and esc close the screen
// on top of a stack (esc first steps back inside it).
var CloseKey = key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc/q", "close"))

// KeyMap are the app's global keys (the root model's; each screen's own
// keys live beside it). They apply when the active page is not capturing
// input (a form, a filter or a prompt of a tab).
type KeyMap struct {
	Quit, ForceQuit, Help, Command, Log key.Binding
	PrevTab, NextTab, GoTab, Home       key.Binding
	CloseTab, Dismiss, Events           key.Binding
	Find                                key.Binding // F: find on every connection (the : line with "find ")
}

// DefaultKeyMap returns the shell's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit now")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Command:   key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "command")),
		Log:       key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "log")),
		PrevTab:   key.NewBinding(key.WithKeys("["), key.WithHelp("[", "prev tab")),
		NextTab:   key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next tab")),
		GoTab:     key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", "go to tab")),
		Home:      key.NewBinding(key.WithKeys("0"), key.WithHelp("0", "connections")),
		CloseTab:  key.NewBinding(key.WithKeys("ctrl+w"), key.WithHelp("ctrl+w", "close tab")),
		Dismiss:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "dismiss the error")),
		Events:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "event inspector")),
		Find:      key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "find an order everywhere")),
	}
}

// ShortHelp implements help.KeyMap.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.Command, k.PrevTab, k.NextTab, k.Log, k.Quit}
}

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.PrevTab, k.NextTab, k.GoTab, k.Home, k.CloseTab},
		{k.Command, k.Find, k.Log, k.Events, k.Help, k.Dismiss, k.Quit, k.ForceQuit},
	}
}

// AppendHelp appends to a footer's bindings those of extra it does not
// show yet (same keys on screen), so a hint such as "esc/q close" or
// "? help" that a screen lists itself is not shown twice.
func AppendHelp(page []key.Binding, extra ...key.Binding) []key.Binding {
	shown := map[string]bool{}
	for _, b := range page {
		shown[b.Help().Key] = true
	}
	out := page[:len(page):len(page)]
	for _, b := range extra {
		if h := b.Help().Key; !shown[h] {
			shown[h] = true
			out = append(out, b)
		}
	}
	return out
}

// Bind is a key binding: the keys it matches, then its key and
// description for the help.
func Bind(keys []string, help, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// Nav is the movement keys of the list and page screens, declared once:
// embed it in a screen's key map.
type Nav struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
}

// NavKeys is the movement keys as every list screen binds them.
func NavKeys() Nav {
	return Nav{
		Up:       Bind([]string{"up", "k"}, "↑/k", "up"),
		Down:     Bind([]string{"down", "j"}, "↓/j", "down"),
		PageUp:   Bind([]string{"pgup", "ctrl+u"}, "pgup", "screen up"),
		PageDown: Bind([]string{"pgdown", "ctrl+d"}, "pgdn", "screen down"),
		Top:      Bind([]string{"home", "g"}, "g", "first"),
		Bottom:   Bind([]string{"end", "G"}, "G", "last"),
	}
}

// Bindings is n's keys in the order the help lists them.
func (n Nav) Bindings() []key.Binding {
	return []key.Binding{n.Up, n.Down, n.PageUp, n.PageDown, n.Top, n.Bottom}
}

// Move is where a cursor at pos among count rows goes on k, page rows a
// screen (0: the page keys are not this screen's), clamped to the rows;
// ok is false when k moves nothing.
func (n Nav) Move(k tea.KeyMsg, pos, count, page int) (next int, ok bool) {
	switch {
	case key.Matches(k, n.Up):
		pos--
	case key.Matches(k, n.Down):
		pos++
	case page > 0 && key.Matches(k, n.PageUp):
		pos -= page
	case page > 0 && key.Matches(k, n.PageDown):
		pos += page
	case key.Matches(k, n.Top):
		pos = 0
	case key.Matches(k, n.Bottom):
		pos = count - 1
	default:
		return pos, false
	}
	return max(0, min(count-1, pos)), true
}

// EachKey gives keys (SplitRunes' split) to update one at a time, as
// if typed one by one (a key may focus an input, which then takes the
// rest), and batches what they start.
func EachKey[M any](m M, keys []tea.KeyMsg, update func(M, tea.Msg) (M, tea.Cmd)) (M, tea.Cmd) {
	cmds := make([]tea.Cmd, 0, len(keys))
	for _, k := range keys {
		var cmd tea.Cmd
		m, cmd = update(m, k)
		cmds = append(cmds, cmd)
	}
	return m, tea.Batch(cmds...)
}
