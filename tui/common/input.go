package common

import (
	"github.com/charmbracelet/bubbles/textinput"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// InputView draws a text input with what it echoes sanitised: a pasted
// bidi override, isolate, zero-width or other invisible character shows
// as <U+202E> and a control as ^[, never reaching the terminal raw (the
// textinput echoes its runes as they are). The value itself stays as
// typed, for the caller to use. Every text input of the app draws
// through it; a masked one (a secret) echoes its mask only.
func InputView(in textinput.Model) string {
	v := in.Value()
	if in.EchoMode != textinput.EchoNormal || termsafe.IsSafe(v) {
		return in.View()
	}
	pos, cur, n := in.Position(), -1, 0
	shown := make([]rune, 0, len(v)+16)
	for i, r := range []rune(v) {
		if i == pos {
			cur = n
		}
		s := []rune(termsafe.Rune(r))
		shown = append(shown, s...)
		n += len(s)
	}
	if cur < 0 {
		cur = n
	}
	in.CharLimit, in.Validate = 0, nil // the copy shows, it does not check
	in.SetValue(string(shown))
	in.SetCursor(cur)
	return in.View()
}
