package tui

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/conntab"
	"github.com/nutrab2b/b2bx/tui/upload"
)

// leaseWarn is when the status bar starts warning about a lease.
const leaseWarn = 60 * time.Second

// connTab adapts conntab.Model (a value whose Update returns its own
// type) to Tab, and lays the upload screen (u, :upload PATH) over it
// while that is open.
type connTab struct {
	m    conntab.Model
	c    *common.Common
	id   common.TabID
	conn *session.Conn

	up     upload.Model // the upload screen; valid while upOpen
	upOpen bool
	w, h   int
}

// uploadKey opens the upload screen of a connection tab.
var uploadKey = key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "upload ORDERS"))

// ConnTab builds the real tab of an open connection: mailbox, claim,
// download with live integrity checks, acknowledge, worker mode; u opens
// the ORDERS upload screen.
func ConnTab(c *common.Common, id common.TabID, conn *session.Conn) Tab {
	return connTab{m: conntab.New(c, id, conn, conntab.Options{}), c: c, id: id, conn: conn}
}

func (t connTab) Init() tea.Cmd { return t.m.Init() }

// Update: keys go to the upload screen while it is open, else u opens
// it; every other message goes to the mailbox and, while open, to the
// upload screen (each takes only its own results).
func (t connTab) Update(msg tea.Msg) (Tab, tea.Cmd) {
	switch msg := msg.(type) {
	case upload.OpenMsg:
		return t.openUpload(msg.Path)
	case conntab.ViewMsg:
		if t.upOpen {
			if p := t.up.Pending(); p != "" {
				return t, func() tea.Msg {
					return common.Info{Text: ":view waits: " + p + "; try again once the upload screen is done", Err: true}
				}
			}
			t.up.Close()
			t.upOpen = false
		}
	case tea.KeyMsg:
		if t.upOpen {
			return t.updateUpload(msg)
		}
		if key.Matches(msg, uploadKey) && t.mailboxKeys() {
			return t.openUpload("")
		}
	}
	var cmd, upCmd tea.Cmd
	t.m, cmd = t.m.Update(msg)
	if t.upOpen {
		t, upCmd = t.updateUpload(msg)
	}
	return t, tea.Batch(cmd, upCmd)
}

// openUpload opens the upload screen (again: a fresh one), on path or on
// the file picker when path is "".
func (t connTab) openUpload(path string) (connTab, tea.Cmd) {
	if t.upOpen {
		t.up.Close()
	}
	t.up = upload.New(t.c, t.id, t.conn, upload.Options{Path: path}).SetSize(t.w, t.h)
	t.upOpen = true
	return t, t.up.Init()
}

func (t connTab) updateUpload(msg tea.Msg) (connTab, tea.Cmd) {
	var cmd tea.Cmd
	t.up, cmd = t.up.Update(msg)
	if t.up.Done() {
		t.up.Close()
		t.upOpen = false
		// What was sent is in the history now: link the answers to it.
		var links tea.Cmd
		t.m, links = t.m.ReloadLinks()
		cmd = tea.Batch(cmd, links)
	}
	return t, cmd
}

// Overlay reports whether a screen of the tab (uploads and answers,
// viewer, diff) lies over its mailbox: q then closes it instead of
// quitting the app.
func (t connTab) Overlay() bool { return !t.upOpen && t.m.Overlay() }

func (t connTab) View() string {
	if t.upOpen {
		return t.up.View()
	}
	return t.m.View()
}

func (t connTab) SetSize(w, h int) Tab {
	t.w, t.h = w, h
	t.m = t.m.SetSize(w, h)
	if t.upOpen {
		t.up = t.up.SetSize(w, h)
	}
	return t
}

func (t connTab) ShortHelp() []key.Binding {
	if t.upOpen {
		return t.up.ShortHelp()
	}
	if !t.mailboxKeys() {
		return t.m.ShortHelp()
	}
	return append(t.m.ShortHelp(), uploadKey)
}

// mailboxKeys reports whether the mailbox itself has the keys: no
// prompt, filter or screen over it takes u.
func (t connTab) mailboxKeys() bool { return !t.m.Capturing() && !t.m.Overlay() }

func (t connTab) FullHelp() [][]key.Binding {
	if t.upOpen {
		return t.up.FullHelp()
	}
	full := t.m.FullHelp()
	if t.m.Overlay() {
		return full
	}
	last := len(full) - 1
	full[last] = append(full[last], uploadKey)
	return full
}

func (t connTab) Title() string { return t.m.Title() }

func (t connTab) Pending() string {
	if t.upOpen && t.up.Pending() != "" {
		return t.up.Pending()
	}
	return t.m.Pending()
}

func (t connTab) Capturing() bool {
	if t.upOpen {
		return t.up.Capturing()
	}
	return t.m.Capturing()
}

func (t connTab) Close() {
	if t.upOpen {
		t.up.Close()
	}
	t.m.Close()
}

func (t connTab) Status() Status {
	s := statusOf(t.m.Status())
	if t.upOpen && t.up.Busy() != "" {
		if s.Transfer != "" {
			s.Transfer += " · "
		}
		s.Transfer += t.up.Busy()
	}
	return s
}

// statusOf turns the tab's state into the status bar's words.
func statusOf(s conntab.Status) Status {
	out := Status{Connection: s.Connection, Transfer: s.Transfer}
	switch {
	case s.Backlog:
		out.Page = fmt.Sprintf("backlog: %d entries", s.Entries)
	default:
		out.Page = fmt.Sprintf("page %d: %d entries", s.Page, s.Entries)
		if s.HasMore {
			out.Page += ", more (n)"
		}
	}
	if s.Claim != "" {
		out.Claim = "claim " + s.Claim
		switch {
		case s.LeaseExpired:
			out.Claim += " lease expired"
			out.ClaimWarn = true
		case s.LeaseLeft > 0:
			out.Claim += " lease " + countdown(s.LeaseLeft)
			out.ClaimWarn = s.LeaseLeft < leaseWarn
		}
	}
	if s.Busy != "" {
		if out.Transfer != "" {
			out.Transfer += " · "
		}
		out.Transfer += s.Busy
	}
	if s.Worker != "" {
		out.Worker = "worker " + s.Worker
	}
	return out
}

// countdown formats a duration as m:ss.
func countdown(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}
