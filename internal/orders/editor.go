package orders

import "strings"

// EditorArgs is the command that opens path in the operator's editor:
// $VISUAL, else $EDITOR, else vi, run through sh like git does, so an
// editor given with arguments ("code --wait", "emacs -nw") works and the
// path is passed as one argument whatever it holds. The app runs it with
// the terminal handed over (suspended); Review reads the result after.
func EditorArgs(getenv func(string) string, path string) []string {
	ed := strings.TrimSpace(getenv("VISUAL"))
	if ed == "" {
		ed = strings.TrimSpace(getenv("EDITOR"))
	}
	if ed == "" {
		ed = "vi"
	}
	return []string{"sh", "-c", ed + ` "$@"`, ed, path}
}
