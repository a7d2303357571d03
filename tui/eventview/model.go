// Package eventview is the app's event inspector (`e`, `:events PATH`):
// it runs the checks of `b2bx event inspect` on a picked capture file or
// directory and shows what a receiver does with it — a summary, every
// finding with its stable and platform code, the ordering per
// sender+subject (what is parked, which sequences the sender must
// replay, regressions), duplicates with the receiver's answer (DUPLICATE
// plus the original result, NB-E005), the signature verdicts (NB-E008
// with the skew) and the envelope of the event a finding is about.
//
// The checks are the events package's (ReadPath, Inspect); this package
// runs them in a tea.Cmd and draws the Report. The webhook secret, typed
// masked or read from the active profile's keyring account
// <profile>/webhook, is held as a secret.Value in memory only and never
// drawn. Everything read from a capture goes through termsafe.
//
// On the app's root stack (Screen) its results come back tagged with
// the stack's owner and the screen's id, so they reach this screen only;
// a request id drops the result of an earlier run.
//
// Live mode (`:events listen [ADDR]`, L) runs the events/webhook
// receiver of `b2bx event listen` while the screen is open and shows the
// deliveries as they are answered (live.go).
package eventview

import (
	"context"
	"sync/atomic"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/filepicker"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/tui/common"
)

// Extensions are the capture files the picker offers until `a` shows all
// (see events.ReadPath).
var Extensions = []string{events.ExtJSON, events.ExtHTTP}

// Options tune the screen. The zero value opens the picker in the
// working directory without a keyring secret.
type Options struct {
	// Dir is where the picker starts; "" → the working directory.
	Dir string
	// Path is a capture file or directory to inspect at once (`:events
	// PATH`) instead of picking one.
	Path string
	// Profile is the active connection's profile; with Store, K reads its
	// webhook secret (keyring account <Profile>/webhook).
	Profile string
	// Store holds Profile's secrets (the app's one store).
	Store credentials.SecretStore
	// Listen opens the screen in live mode (`:events listen [ADDR]`) on
	// ListenAddr (DefaultListenAddr when ""), capturing in LiveDir
	// (DefaultLiveDir() when "").
	Listen     bool
	ListenAddr string
	LiveDir    string
}

// stage is where the screen is: pick → loading → report.
type stage int

const (
	stagePick    stage = iota // the file picker
	stageLoading              // reading and checking the captures
	stageReport               // the report
)

// section is the report's lower view.
type section int

const (
	secFindings section = iota
	secStreams
	secDuplicates
	secSignatures
	numSections
)

// input is which text input has the keys, if any.
type input int

const (
	inNone input = iota
	inPath
	inSecret
	inFilter
)

// reqSeq hands out request ids for every screen of the process, so a
// late result of a closed screen never matches a new one's.
var reqSeq atomic.Uint64

func nextReq() uint64 { return reqSeq.Add(1) }

// Model is the event inspector (common.Component[Model]). It is a value;
// Update returns the new one.
type Model struct {
	c    *common.Common
	keys KeyMap
	opts Options

	width, height int

	stage    stage
	picker   filepicker.Model
	allFiles bool
	note     string // one line of news for the operator (sanitised)

	focus    input
	pathIn   textinput.Model
	secretIn textinput.Model
	filterIn textinput.Model

	// secrets are the webhook secrets the checks use (never drawn);
	// secretFrom says where they came from, for the header.
	secrets    []events.Secret
	secretFrom string

	path    string // the inspected file or directory
	rep     *report
	loadErr string // why the path could not be read (sanitised)

	section     section
	filter      string // the applied findings filter
	visible     []int  // findings shown (indexes into rep.findings)
	cursor, top int    // in visible
	listRows    int    // findings rows drawn at the current size
	scroll      int    // first line of the streams, duplicates or signatures view
	// text is the wrapped text of the views other than the findings, for
	// textWidth (wrapSections).
	text      [numSections][]string
	textWidth int

	waiting   uint64 // the load request the screen waits for
	secretReq uint64 // the keyring request it waits for

	// live is the running listener (live mode), acc the report it
	// builds; wantLive is the address to listen on once a secret is set.
	live     *liveState
	acc      *liveAcc
	liveReq  uint64
	wantLive string

	ctx  context.Context // ends when the screen closes
	stop context.CancelFunc

	done    bool
	initCmd tea.Cmd
}

// New builds the screen. Nothing is read until the Cmd of Init runs.
func New(c *common.Common, opts Options) Model {
	ctx, stop := context.WithCancel(context.Background())
	m := Model{c: c, ctx: ctx, stop: stop, keys: DefaultKeyMap(), opts: opts, width: c.Width, height: c.Height,
		picker: common.NewPicker(opts.Dir, Extensions, "  no captures here (h: parent directory, a: all files, d: inspect this directory)"), pathIn: newInput("path: ", 4096, false),
		secretIn: newInput("webhook secret: ", 4096, true), filterIn: newInput("/", 256, false)}
	m.filterIn.Placeholder = "code, NB code, event id, field or words"
	m.pathIn.Placeholder = "a capture file or a directory of captures"
	m = m.SetSize(m.width, m.height)
	if opts.Listen {
		m, m.initCmd = m.Listen(opts.ListenAddr)
		return m
	}
	if opts.Path != "" {
		m, m.initCmd = m.start(opts.Path)
		return m
	}
	m.initCmd = m.picker.Init()
	return m
}

func newInput(prompt string, limit int, masked bool) textinput.Model {
	ti := textinput.New()
	ti.Prompt = prompt
	ti.CharLimit = limit
	ti.Cursor.SetMode(cursor.CursorStatic) // no blink timer
	if masked {
		ti.EchoMode = textinput.EchoPassword
		ti.EchoCharacter = '•'
	}
	return ti
}

// Init reads the picker's directory, or inspects Options.Path.
func (m Model) Init() tea.Cmd { return m.initCmd }

// Done reports whether the operator closed the screen (esc); the host
// then drops it.
func (m Model) Done() bool { return m.done }

// Capturing reports whether a text input (path, secret, filter) wants
// every key.
func (m Model) Capturing() bool { return m.focus != inNone }

// Title names the screen for a tab bar or a window title.
func (m Model) Title() string { return "event inspector" }

// Path is the inspected file or directory ("" before the first run).
func (m Model) Path() string { return m.path }

// Close cancels a keyring read still running and stops the listener of
// live mode (waiting for it, bounded). A capture being read
// finishes on its own; its result matches no screen any more.
func (m Model) Close() {
	if m.stop != nil {
		m.stop()
	}
	if m.live != nil {
		m.live.stop()
	}
}

// SetSize sets the screen's area.
func (m Model) SetSize(w, h int) Model {
	m.width, m.height = max(w, 0), max(h, 0)
	m.picker.SetHeight(max(m.height-5, 3))
	for _, in := range []*textinput.Model{&m.pathIn, &m.secretIn, &m.filterIn} {
		in.Width = max(m.width-len(in.Prompt)-2, 10)
	}
	if m.rep != nil && m.textWidth != m.width {
		m = m.wrapSections()
	}
	return m.clamp()
}

// clamp keeps the cursor on a visible finding, the list window around
// it, and the other views' scroll position within their text.
func (m Model) clamp() Model {
	if m.rep == nil || m.stage != stageReport {
		return m
	}
	m.listRows = m.findingRowsFor()
	n := len(m.visible)
	m.cursor = max(min(m.cursor, n-1), 0)
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+m.listRows {
		m.top = m.cursor - m.listRows + 1
	}
	m.top = max(min(m.top, n-m.listRows), 0)
	if m.section != secFindings {
		m.scroll = max(min(m.scroll, len(m.text[m.section])-m.areaHeight()), 0)
	}
	return m
}
