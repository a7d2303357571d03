// Package connlist is the app's start screen: the connection profiles with
// the state of each key's secret (resolved in the background, so the first
// frame never waits on the keyring), the first-run screen, and the `+`
// add-connection form.
package connlist

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// OpenMsg asks the shell to open the named connection as a tab.
type OpenMsg struct{ Name string }

// profilesMsg and statesMsg carry a load's result; gen drops stale ones.
type profilesMsg struct {
	gen     int
	listing Listing
	err     error
}

type statesMsg struct {
	gen     int
	listing Listing
	err     error
}

// savedMsg is the add form's result.
type savedMsg struct {
	name, text string
	err        error
}

// KeyMap are the list's keys.
type KeyMap struct {
	Up, Down, Open, Add, Refresh key.Binding
}

// DefaultKeyMap returns the list's keys.
func DefaultKeyMap() KeyMap {
	nav := common.NavKeys()
	return KeyMap{
		Up:      nav.Up,
		Down:    nav.Down,
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open as a tab")),
		Add:     key.NewBinding(key.WithKeys("+"), key.WithHelp("+", "add a connection")),
		Refresh: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload profiles and key states")),
	}
}

// Options configure the list.
type Options struct {
	// StoreName names where the form stores secrets ("the OS keyring").
	StoreName string
	// Dashboard, when set, adds each connection's figures under its row
	// (read in the background once the key states are known, again every
	// RefreshEvery).
	Dashboard Dashboard
}

// Model is the connection list.
type Model struct {
	c      *common.Common
	ctx    context.Context
	src    Source
	opts   Options
	keys   KeyMap
	width  int
	height int

	gen      int
	loaded   bool // profiles read
	checked  bool // key states known
	listing  Listing
	loadErr  string
	stateErr string
	cursor   int

	form     Form
	formOpen bool
	selectTo string // after a save: move the cursor to this name

	figs map[string]figState // by profile name (Options.Dashboard)
	tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
}

// New returns the list; Init starts loading.
func New(ctx context.Context, c *common.Common, src Source, opts Options) Model {
	if opts.StoreName == "" {
		opts.StoreName = "the OS keyring"
	}
	return Model{c: c, ctx: ctx, src: src, opts: opts, keys: DefaultKeyMap(), figs: map[string]figState{}, tick: tea.Tick}
}

// Init reads the profiles in the background.
func (m Model) Init() tea.Cmd { return m.load() }

func (m Model) load() tea.Cmd {
	ctx, src, gen := m.ctx, m.src, m.gen
	return func() tea.Msg {
		l, err := src.Profiles(ctx)
		return profilesMsg{gen: gen, listing: l, err: err}
	}
}

func (m Model) loadStates() tea.Cmd {
	ctx, src, gen := m.ctx, m.src, m.gen
	return func() tea.Msg {
		l, err := src.States(ctx)
		return statesMsg{gen: gen, listing: l, err: err}
	}
}

// Reload reads the profiles and key states again.
func (m Model) Reload() (Model, tea.Cmd) {
	m.gen++
	m.checked, m.stateErr = false, ""
	return m, m.load()
}

// SetSize sets the area the list may use.
func (m Model) SetSize(w, h int) Model {
	m.width, m.height = w, h
	return m
}

// Capturing reports whether the form is open and wants every key.
func (m Model) Capturing() bool { return m.formOpen }

// Selected is the name under the cursor ("" when none).
func (m Model) Selected() string {
	if m.cursor < len(m.listing.Rows) {
		return m.listing.Rows[m.cursor].Name
	}
	return ""
}

// Update handles load results, the form and the list's keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case profilesMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		m.loaded = true
		if msg.err != nil {
			m.loadErr = termsafe.String(msg.err.Error())
			return m, nil
		}
		m.loadErr = ""
		m = m.setListing(msg.listing)
		return m, m.loadStates()
	case statesMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		m.checked = true
		if msg.err != nil {
			m.stateErr = termsafe.String(msg.err.Error())
			return m, m.loadFigures()
		}
		m = m.setListing(msg.listing)
		return m, m.loadFigures()
	case figuresMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		fs := figState{fig: msg.fig, at: m.now()}
		if msg.err != nil {
			fs.err = termsafe.String(msg.err.Error())
		}
		m.figs[msg.name] = fs
		return m, nil
	case figuresTick:
		if msg.gen != m.gen {
			return m, nil
		}
		return m, m.loadFigures()
	case submitMsg:
		ctx, src, nc := m.ctx, m.src, msg.nc
		return m, func() tea.Msg {
			text, err := src.Add(ctx, nc)
			return savedMsg{name: nc.Profile.Name, text: text, err: err}
		}
	case savedMsg:
		return m.saved(msg)
	case cancelMsg:
		m.formOpen = false
		return m, nil
	}
	if m.formOpen {
		var cmd tea.Cmd
		m.form, cmd = m.form.Update(msg)
		return m, cmd
	}
	if km, ok := msg.(tea.KeyMsg); ok {
		return m.key(km)
	}
	return m, nil
}

func (m Model) saved(msg savedMsg) (Model, tea.Cmd) {
	if msg.err != nil {
		m.form = m.form.failed(msg.err)
		return m, nil
	}
	m.formOpen = false
	m.form = Form{} // drop the typed secrets
	m.selectTo = msg.name
	m, cmd := m.Reload()
	info := func() tea.Msg { return common.Info{Text: msg.text} }
	return m, tea.Batch(cmd, info)
}

func (m Model) setListing(l Listing) Model {
	sel := m.Selected()
	if m.selectTo != "" {
		sel, m.selectTo = m.selectTo, ""
	}
	m.listing = l
	m.cursor = 0
	for i, r := range l.Rows {
		if r.Name == sel {
			m.cursor = i
		}
	}
	return m
}

func (m Model) key(km tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(km, m.keys.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(km, m.keys.Down):
		m.cursor = max(min(m.cursor+1, len(m.listing.Rows)-1), 0)
	case key.Matches(km, m.keys.Add):
		m.form, m.formOpen = newForm(), true
	case key.Matches(km, m.keys.Refresh):
		return m.Reload()
	case key.Matches(km, m.keys.Open):
		if name := m.Selected(); name != "" {
			return m, func() tea.Msg { return OpenMsg{Name: name} }
		}
	}
	return m, nil
}

// ShortHelp implements help.KeyMap.
func (m Model) ShortHelp() []key.Binding {
	if m.formOpen {
		return []key.Binding{m.form.keys.Next, m.form.keys.Submit, m.form.keys.Cancel}
	}
	return []key.Binding{m.keys.Open, m.keys.Add, m.keys.Refresh}
}

// FullHelp implements help.KeyMap.
func (m Model) FullHelp() [][]key.Binding {
	if m.formOpen {
		k := m.form.keys
		return [][]key.Binding{{k.Next, k.Prev, k.Submit, k.Cancel}}
	}
	return [][]key.Binding{{m.keys.Up, m.keys.Down, m.keys.Open}, {m.keys.Add, m.keys.Refresh}}
}

// Count is the number of profiles (for the status bar).
func (m Model) Count() int { return len(m.listing.Rows) }

func (m Model) now() time.Time {
	if m.c.Now != nil {
		return m.c.Now()
	}
	return time.Now()
}
