package common

import (
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/filepicker"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// NewPicker is the file picker of the screens that open a file (upload,
// event inspector): it starts in dir (the working directory when ""),
// offers the files with exts, leaves esc to the screen (back/close) and
// says empty in a directory without such files. Its styles are plain:
// it writes file names raw, so PickerLines sanitises its output line by
// line, and it must carry no escapes of its own.
func NewPicker(dir string, exts []string, empty string) filepicker.Model {
	fp := filepicker.New()
	if dir == "" {
		dir = "."
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	fp.CurrentDirectory = dir
	fp.AllowedTypes = exts
	fp.AutoHeight = false
	fp.ShowPermissions = false
	fp.ShowHidden = false
	fp.KeyMap.Back = key.NewBinding(key.WithKeys("h", "backspace", "left"), key.WithHelp("h", "parent directory"))
	plain := lipgloss.NewStyle()
	fp.Styles = filepicker.Styles{
		DisabledCursor: plain, Cursor: plain, Symlink: plain, Directory: plain, File: plain,
		DisabledFile: plain, Permission: plain, Selected: plain, DisabledSelected: plain,
		FileSize:       plain.Width(7).Align(lipgloss.Right),
		EmptyDirectory: plain.SetString(empty),
	}
	return fp
}

// PickerLines are the picker's rows, sanitised, the cursor's row
// highlighted.
func PickerLines(fp filepicker.Model, st *Styles) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(fp.View(), "\n"), "\n") {
		safe := termsafe.String(l)
		if strings.HasPrefix(l, fp.Cursor) {
			safe = st.Selected.Render(safe)
		}
		lines = append(lines, safe)
	}
	return lines
}
