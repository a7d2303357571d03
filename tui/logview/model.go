package logview

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/nutrab2b/b2bx/tui/common"
)

// refreshEvery is how often an open log view looks for new records.
const refreshEvery = 500 * time.Millisecond

// TickMsg asks an open log view to look for new records.
type TickMsg struct{ gen int }

// KeyMap are the log view's own keys (the viewport's, for help).
type KeyMap struct {
	viewport.KeyMap
	Top, Bottom key.Binding
}

// Model is the session log screen. It reads the Handler's buffer when it
// opens and, while open, on a tick when the buffer changed.
type Model struct {
	c      *common.Common
	h      *Handler
	vp     viewport.Model
	keys   KeyMap
	open   bool
	gen    int // tick generation: a closed-then-reopened view ignores old ticks
	seq    uint64
	count  int
	lines  []string // the records, one line each, as the buffer held them
	width  int
	height int
}

// NewModel returns a closed log view over h.
func NewModel(c *common.Common, h *Handler) Model {
	vp := viewport.New(0, 0)
	k := KeyMap{KeyMap: vp.KeyMap,
		Top:    key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g/home", "oldest")),
		Bottom: key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G/end", "newest")),
	}
	return Model{c: c, h: h, vp: vp, keys: k}
}

// Open shows the newest records and starts the refresh tick.
func (m Model) Open() (Model, tea.Cmd) {
	m.open = true
	m.gen++
	m = m.reload(true)
	return m, m.tick()
}

// Close stops the refresh tick.
func (m Model) Close() Model {
	m.open = false
	return m
}

func (m Model) tick() tea.Cmd {
	gen := m.gen
	return tea.Tick(refreshEvery, func(time.Time) tea.Msg { return TickMsg{gen: gen} })
}

// SetSize sets the area the view may use; the records are wrapped to
// the new width, the newest kept in view if it was.
func (m Model) SetSize(w, h int) Model {
	follow := m.vp.AtBottom()
	rewrap := w != m.width
	m.width, m.height = w, h
	m.vp.Width, m.vp.Height = w, max(h-1, 1)
	if rewrap {
		m.vp.SetContent(m.wrapped())
	}
	if follow {
		m.vp.GotoBottom()
	}
	return m
}

// Update handles the refresh tick and the scrolling keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case TickMsg:
		if !m.open || msg.gen != m.gen {
			return m, nil
		}
		if m.h.Seq() != m.seq {
			m = m.reload(m.vp.AtBottom())
		}
		return m, m.tick()
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, m.keys.Top):
			m.vp.GotoTop()
			return m, nil
		case key.Matches(msg, m.keys.Bottom):
			m.vp.GotoBottom()
			return m, nil
		}
	}
	var cmd tea.Cmd
	m.vp, cmd = m.vp.Update(msg)
	return m, cmd
}

// reload copies the buffer into the viewport; follow keeps the newest
// record in view.
func (m Model) reload(follow bool) Model {
	m.seq = m.h.Seq()
	entries := m.h.Entries()
	m.count = len(entries)
	m.lines = make([]string, len(entries))
	for i, e := range entries {
		m.lines[i] = e.Format()
	}
	if len(entries) == 0 {
		m.lines = []string{"Nothing logged yet: Partner API calls, retries and worker steps of this session appear here."}
	}
	m.vp.SetContent(m.wrapped())
	if follow {
		m.vp.GotoBottom()
	}
	return m
}

// wrapped is the records wrapped to the width at spaces, continuation
// lines indented: an ID or key=value is never broken in the middle (not
// at its hyphens either) unless it alone is wider than the screen. j/k
// and the page keys scroll.
func (m Model) wrapped() string {
	var b strings.Builder
	for i, l := range m.lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if m.width <= 0 || ansi.StringWidth(l) <= m.width {
			b.WriteString(l)
			continue
		}
		b.WriteString(strings.Join(wrapWords(l, m.width), "\n"+indent))
	}
	return b.String()
}

// wrapWords packs the space-separated words of l into lines of at most w
// columns, the continuation lines w minus the indent; a word wider than
// its line is cut.
func wrapWords(l string, w int) []string {
	var lines []string
	cur, room, rest := "", w, max(w-len(indent), 10)
	for _, word := range strings.Fields(l) {
		if cur != "" && ansi.StringWidth(cur)+1+ansi.StringWidth(word) <= room {
			cur += " " + word
			continue
		}
		if cur != "" {
			lines = append(lines, cur)
			cur, room = "", rest
		}
		for ansi.StringWidth(word) > room {
			lines = append(lines, ansi.Truncate(word, room, ""))
			word = ansi.TruncateLeft(word, room, "")
			room = rest
		}
		cur = word
	}
	return append(lines, cur)
}

// indent starts a record's continuation lines.
const indent = "    "

// View renders a heading line and the records.
func (m Model) View() string {
	head := fmt.Sprintf("Session log (%d) · IDs, codes and timings only: never keys, tokens or payloads", m.count)
	return m.c.Styles.Header.Render(head) + "\n" + m.vp.View()
}

// ShortHelp implements help.KeyMap.
func (m Model) ShortHelp() []key.Binding {
	return []key.Binding{m.keys.Up, m.keys.Down, m.keys.PageDown, m.keys.Bottom}
}

// FullHelp implements help.KeyMap.
func (m Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{m.keys.Up, m.keys.Down, m.keys.PageUp, m.keys.PageDown},
		{m.keys.HalfPageUp, m.keys.HalfPageDown, m.keys.Top, m.keys.Bottom},
		{m.keys.Left, m.keys.Right},
	}
}
