// Package viewer is the segment viewer: a header card (envelope, the
// validation verdict, the message summary in words), a virtualized segment
// list drawn from the edi index, a detail pane with every element's
// directory name and code meaning, the issues with jump-to-segment, search
// over tags and values and a raw view of the bytes around an issue. It
// renders only what is on screen, so 700k segments scroll as fast as ten.
//
// The viewer owns the file it shows (Source): a mapped file is read only
// while open and inside edi.Guard, so a file shortened meanwhile shows an
// error instead of crashing, and after Close nothing reads the bytes.
// Everything from the data goes through termsafe.
package viewer

import (
	"sort"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/mig"
	"github.com/nutrab2b/b2bx/edi/pin"
	"github.com/nutrab2b/b2bx/tui/common"
)

// Options tune a viewer.
type Options struct {
	// Title replaces the source's name in the header (e.g. "delivery
	// 3f2a… ORDRSP" for a downloaded entry); sanitised by the viewer.
	Title string
	// Keys replaces DefaultKeyMap.
	Keys *KeyMap
	// Pins are a partner's CONTRL/APERAK errors placed on this document
	// (pin.Pins): their segments are marked in the list (PinMark) and
	// explained in the detail pane, and the viewer opens on the first.
	Pins []pin.Pin
	// Directory is the connection's profile revision ("D.96A", "D.25A";
	// "" when the file is not a connection's): messages that break the
	// contract's version rules for it are pinned on their UNH
	// (pin.ContractPins).
	Directory string
	// Rules are the connection's partner rules (the profile's mig), nil
	// for none: their findings on the document's ORDERS are pinned on
	// their segment and element with the rule's file:line (pin.MIGPins).
	Rules *mig.Rules
}

// focusArea is which list gets the movement keys.
type focusArea uint8

const (
	focusSegments focusArea = iota
	focusIssues
)

// paneMode is what the bottom pane shows.
type paneMode uint8

const (
	paneDetail paneMode = iota
	paneIssues
	paneRaw
)

// Model is the segment viewer component (common.Component[Model]).
type Model struct {
	c     *common.Common
	src   *Source
	keys  KeyMap
	title string
	cache *cache // per-source caches shared by the model's copies

	width, height int

	cursor, top int // selected segment, first visible segment
	focus       focusArea
	pane        paneMode
	iCursor     int // selected issue
	// spot is the byte offset the raw view marks when the cursor is on
	// spotSeg (set by jumping to an issue); otherwise the segment's start.
	spot, spotSeg int

	input  textinput.Model
	search search
	status string // one line under the list: search progress, "no match"
}

// New returns a viewer over src, which it owns from now on: Close closes
// it. The size is set with SetSize.
func New(c *common.Common, src *Source, opts Options) Model {
	keys := DefaultKeyMap()
	if opts.Keys != nil {
		keys = *opts.Keys
	}
	title := src.Name()
	if opts.Title != "" {
		title = sanitize(opts.Title)
	}
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = "tag or value (case-insensitive unless it has capitals)"
	in.CharLimit = 256
	in.Cursor.SetMode(cursor.CursorStatic) // no blink timer: the view changes only on input
	ca := newCache()
	ca.indexIssues(src.doc)
	ca.indexPins(findingPins(src, opts))
	m := Model{c: c, src: src, keys: keys, title: title, cache: ca, input: in, spotSeg: -1}
	if first := m.firstPinned(); first >= 0 {
		m.cursor = first
	}
	return m
}

// Init starts nothing: the Source is parsed before New.
func (m Model) Init() tea.Cmd { return nil }

// Close releases the file (see Source.Close). The model may still be
// drawn: it says it is closed and reads nothing.
func (m Model) Close() error { return m.src.Close() }

// Err is why the view cannot show the file any more (ErrClosed,
// edi.ErrFileChanged), nil while it can.
func (m Model) Err() error { return m.src.Err() }

// Name is the file's name for a window title (sanitised).
func (m Model) Name() string { return m.title }

// Title names the screen in the tab bar and the help screen.
func (m Model) Title() string { return "segment viewer" }

// Capturing reports whether the search input wants every key, so the
// caller must not take q, :, ? or digits for itself.
func (m Model) Capturing() bool { return m.input.Focused() }

// Cursor is the index of the selected segment.
func (m Model) Cursor() int { return m.cursor }

// SetSize sets the viewer's area.
func (m Model) SetSize(width, height int) Model {
	m.width, m.height = max(width, 0), max(height, 0)
	m.input.Width = max(m.width/2, 1)
	m = m.clampTop()
	return m
}

// Update handles keys and the search's steps.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case searchStepMsg:
		return m.searchStep(msg)
	case tea.KeyMsg:
		if m.src.Err() != nil {
			return m, nil
		}
		if keys := common.SplitRunes(msg); keys != nil && !m.input.Focused() {
			return common.EachKey(m, keys, Model.Update)
		}
		if m.input.Focused() {
			return m.inputKey(msg)
		}
		return m.key(msg)
	}
	return m, nil
}


// doc is the parsed input.
func (m Model) doc() *edi.Document { return m.src.doc }

// lay is the screen split for the current size.
type lay struct {
	header int // header card lines
	list   int // segment rows (without the column header)
	pane   int // bottom pane lines, 0 when there is no room
}

// headerLines is the height of the header card.
const headerLines = 5

func (m Model) layout() lay {
	l := lay{header: headerLines}
	avail := m.height - l.header - 2 // the list's column header and the status line
	if avail < 1 {
		l.header = max(0, m.height-3)
		avail = m.height - l.header - 2
	}
	if avail >= 14 {
		l.pane = max(7, avail*2/5)
	}
	l.list = max(avail-l.pane, 1)
	return l
}

// rows is the number of visible segment rows.
func (m Model) rows() int { return m.layout().list }

// moveTo selects segment i (clamped) and scrolls it into view.
func (m Model) moveTo(i int) Model {
	n := m.doc().Len()
	if n == 0 {
		return m
	}
	m.cursor = min(max(i, 0), n-1)
	return m.clampTop()
}

// clampTop keeps the cursor visible and the window inside the document.
func (m Model) clampTop() Model {
	rows, n := m.rows(), m.doc().Len()
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+rows {
		m.top = m.cursor - rows + 1
	}
	m.top = max(min(m.top, n-rows), 0)
	return m
}

// scroll moves cursor and window by delta rows together (page keys).
func (m Model) scroll(delta int) Model {
	m.top += delta
	return m.moveTo(m.cursor + delta)
}

// segmentAt returns the index of the segment containing byte offset off,
// or the last segment starting before it (off in a gap); 0 when none.
func segmentAt(doc *edi.Document, off int) int {
	k := sort.Search(doc.Len(), func(i int) bool { return doc.Segment(i).Offset() > off })
	return max(k-1, 0)
}
