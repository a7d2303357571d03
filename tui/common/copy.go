package common

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// CopyItem is one value y may copy (a delivery ID, a hash, a stored
// path, an idempotency key, a correlation ID — never a secret or a claim
// token): what it is and the value, both terminal-safe.
type CopyItem struct{ Label, Value string }

// Copy asks the root to put Item on the terminal's clipboard (OSC 52,
// through tmux and SSH) and say in the footer what was copied. It passes
// every stack, like a footer note.
type Copy struct{ Item CopyItem }

// CopyKey is y, the copy key of every screen with values to copy.
var CopyKey = key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy an ID, hash or path"))

// CopyCmd copies the one value on screen, or opens a small menu on the
// owner's stack when there are several.
func CopyCmd(owner TabID, items []CopyItem) tea.Cmd {
	switch len(items) {
	case 0:
		return func() tea.Msg { return Info{Text: "nothing to copy here"} }
	case 1:
		it := items[0]
		return func() tea.Msg { return Copy{Item: it} }
	}
	return Push(owner, &CopyMenu{items: items})
}

// CopyMenu lists the values on screen; a digit or enter on the selected
// one copies it and closes the menu.
type CopyMenu struct {
	Base
	items  []CopyItem
	cursor int
	w, h   int
	done   bool
}

// Items are the values the menu offers.
func (c *CopyMenu) Items() []CopyItem { return c.items }

// Update implements Screen.
func (c *CopyMenu) Update(msg tea.Msg) (Screen, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return c, nil
	}
	n := *c
	pick := -1
	switch s := k.String(); {
	case s == "j" || s == "down":
		n.cursor = min(n.cursor+1, len(n.items)-1)
	case s == "k" || s == "up":
		n.cursor = max(n.cursor-1, 0)
	case s == "enter" || s == "y":
		pick = n.cursor
	case key.Matches(k, CloseKey):
		n.done = true // nothing copied
		return &n, nil
	case len(s) == 1 && s[0] >= '1' && s[0] <= '9':
		if i := int(s[0] - '1'); i < len(n.items) {
			pick = i
		}
	}
	if pick < 0 {
		return &n, nil
	}
	n.done = true
	it := n.items[pick]
	return &n, func() tea.Msg { return Copy{Item: it} }
}

// Capturing implements Screen: the menu has the keys while it is open,
// so its digits choose a value instead of a tab (esc and q close it).
func (c *CopyMenu) Capturing() bool { return true }

// Done implements Finisher: a value was copied, or esc copied nothing.
func (c *CopyMenu) Done() bool { return c.done }

// View implements Screen.
func (c *CopyMenu) View() string {
	lines := []string{"Copy which value? (1-" + strconv.Itoa(min(len(c.items), 9)) + " or enter · esc: nothing)"}
	for i, it := range c.items {
		mark := "  "
		if i == c.cursor {
			mark = "> "
		}
		lines = append(lines, mark+strconv.Itoa(i+1)+" "+it.Label+"  "+it.Value)
	}
	var out []string
	for _, l := range lines {
		out = append(out, Wrap(l, max(c.w, 20))...)
	}
	return strings.Join(Fill(out, max(c.h, 1)), "\n")
}

// SetSize implements Screen.
func (c *CopyMenu) SetSize(w, h int) Screen { n := *c; n.w, n.h = w, h; return &n }

// Closes implements Screen: q and esc copy nothing.
func (c *CopyMenu) Closes(k tea.KeyMsg) bool { return key.Matches(k, CloseKey) }

// Title implements Screen.
func (c *CopyMenu) Title() string { return "copy" }
