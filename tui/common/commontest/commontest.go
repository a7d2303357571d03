// Package commontest holds test helpers the screens of tui/ share. Only
// tests import it.
package commontest

import (
	"bytes"
	"io"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/stretchr/testify/require"
)

// HostilePaste is what the audit pasted into every text input: bidi
// overrides and isolates, zero-width and invisible characters, line
// separators, C1 controls (finding 5).
const HostilePaste = "Z\u202eRLO\u2066LRI\u200bZWSP\u009bCSI\u0085NEL\ufeffBOM\u061cALM\u2028LS\u00adSHY-Q"

// Paste is the key message of pasting s.
func Paste(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true} }

// RequireSafeEcho fails when the screen echoes one of HostilePaste's
// dangerous runes raw; it shows them as <U+XXXX>.
func RequireSafeEcho(t *testing.T, view string) {
	t.Helper()
	for _, r := range "\u202e\u2066\u200b\u009b\u0085\ufeff\u061c\u2028\u00ad" {
		require.NotContains(t, view, string(r), "%U echoed raw", r)
	}
	require.Regexp(t, `<U\+(202E|FEFF|00AD)>`, view, "the pasted text is shown, made visible")
}

// Collect runs cmd and every batch inside it, returning the messages; it
// must only be used on Cmds that return at once.
func Collect(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, Collect(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// named are the keys tests press by bubbletea's name for them.
var named = map[string]tea.KeyType{
	"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
	"backspace": tea.KeyBackspace, "up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft,
	"right": tea.KeyRight, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome,
	"end": tea.KeyEnd, "ctrl+c": tea.KeyCtrlC, "ctrl+d": tea.KeyCtrlD, "ctrl+s": tea.KeyCtrlS,
	"ctrl+u": tea.KeyCtrlU, "ctrl+w": tea.KeyCtrlW,
}

// Key is the key message bubbletea reports for a key named as it names
// it ("enter", "shift+tab", "ctrl+w"); anything else is typed runes.
func Key(k string) tea.KeyMsg {
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// Messages is Collect without the nil messages (a Cmd that had nothing
// to say).
func Messages(cmd tea.Cmd) []tea.Msg {
	var out []tea.Msg
	for _, m := range Collect(cmd) {
		if m != nil {
			out = append(out, m)
		}
	}
	return out
}

// WaitTimeout bounds WaitFor: generous, as it is a condition, not a
// speed goal.
const WaitTimeout = 20 * time.Second

// WaitFor waits until what a teatest program drew (its Output, drained
// as it is read) holds every string of want, failing t after
// WaitTimeout.
func WaitFor(t testing.TB, out io.Reader, want ...string) {
	t.Helper()
	teatest.WaitFor(t, out, func(b []byte) bool {
		for _, w := range want {
			if !bytes.Contains(b, []byte(w)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(WaitTimeout), teatest.WithCheckInterval(10*time.Millisecond))
}
