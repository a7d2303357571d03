package common

import (
	"os"

	"github.com/charmbracelet/lipgloss"
)

// Styles are every style the app uses, built once (never in a row loop).
// Under NO_COLOR lipgloss drops colour, bold and reverse, so every state
// also has a textual marker (Marks).
type Styles struct {
	NoColor bool

	App        lipgloss.Style
	Title      lipgloss.Style
	Demo       lipgloss.Style
	TabActive  lipgloss.Style
	TabPassive lipgloss.Style
	StatusBar  lipgloss.Style
	StatusKey  lipgloss.Style
	Footer     lipgloss.Style
	Error      lipgloss.Style
	Warn       lipgloss.Style
	OK         lipgloss.Style
	Muted      lipgloss.Style
	Selected   lipgloss.Style
	Header     lipgloss.Style
	Border     lipgloss.Style
	Key        lipgloss.Style

	Marks Marks
}

// Marks are the symbols that carry state without colour.
type Marks struct {
	Cursor string // selected row
	OK     string // a passed check
	Fail   string // a failed check
	Wait   string // not run yet / pending
	Warn   string
}

// DefaultStyles builds the styles for this process's environment.
func DefaultStyles() *Styles {
	_, noColor := os.LookupEnv("NO_COLOR")
	return NewStyles(noColor)
}

// ThemeSlots are the colour slots `[theme]` in config.toml may set:
// accent (titles, keys, the active tab), muted (hints, the footer),
// error, warn and ok.
var ThemeSlots = []string{"accent", "muted", "error", "warn", "ok"}

// NewStyles builds the styles; noColor follows https://no-color.org.
func NewStyles(noColor bool) *Styles { return NewThemedStyles(noColor, nil) }

// NewThemedStyles builds the styles with the colours of theme (slot →
// a colour lipgloss reads: "#RRGGBB" or an ANSI number) over the
// defaults. noColor wins over any theme.
func NewThemedStyles(noColor bool, theme map[string]string) *Styles {
	s := &Styles{NoColor: noColor}
	s.Marks = Marks{Cursor: ">", OK: "✓", Fail: "✗", Wait: "·", Warn: "!"}
	slot := func(name string, def lipgloss.AdaptiveColor) lipgloss.TerminalColor {
		if c, ok := theme[name]; ok && c != "" {
			return lipgloss.Color(c)
		}
		return def
	}
	accent := slot("accent", lipgloss.AdaptiveColor{Light: "#5A32A3", Dark: "#B69CFF"})
	muted := slot("muted", lipgloss.AdaptiveColor{Light: "#6E6E6E", Dark: "#8A8A8A"})
	red := slot("error", lipgloss.AdaptiveColor{Light: "#B3261E", Dark: "#FF6B6B"})
	yellow := slot("warn", lipgloss.AdaptiveColor{Light: "#8A6100", Dark: "#F2C14E"})
	green := slot("ok", lipgloss.AdaptiveColor{Light: "#1E7B34", Dark: "#5FD38D"})

	s.App = lipgloss.NewStyle()
	s.Title = lipgloss.NewStyle().Bold(true).Foreground(accent)
	s.Demo = lipgloss.NewStyle().Bold(true).Reverse(true).Foreground(yellow)
	s.TabActive = lipgloss.NewStyle().Bold(true).Underline(true).Foreground(accent)
	s.TabPassive = lipgloss.NewStyle().Foreground(muted)
	s.StatusBar = lipgloss.NewStyle().Reverse(true)
	s.StatusKey = lipgloss.NewStyle().Bold(true)
	s.Footer = lipgloss.NewStyle().Foreground(muted)
	s.Error = lipgloss.NewStyle().Bold(true).Foreground(red)
	s.Warn = lipgloss.NewStyle().Foreground(yellow)
	s.OK = lipgloss.NewStyle().Foreground(green)
	s.Muted = lipgloss.NewStyle().Foreground(muted)
	s.Selected = lipgloss.NewStyle().Bold(true).Reverse(true)
	s.Header = lipgloss.NewStyle().Bold(true).Underline(true)
	s.Border = lipgloss.NewStyle().BorderStyle(lipgloss.NormalBorder()).BorderForeground(muted)
	s.Key = lipgloss.NewStyle().Bold(true).Foreground(accent)
	if noColor {
		plain := lipgloss.NewStyle()
		for _, p := range []*lipgloss.Style{&s.Title, &s.Demo, &s.TabActive, &s.TabPassive, &s.StatusBar,
			&s.StatusKey, &s.Footer, &s.Error, &s.Warn, &s.OK, &s.Muted, &s.Selected, &s.Header, &s.Key} {
			*p = plain
		}
		s.Border = lipgloss.NewStyle().BorderStyle(lipgloss.NormalBorder())
	}
	return s
}
