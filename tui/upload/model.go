// Package upload is the app's ORDERS resend screen for one connection: a
// file picker, the pre-flight report (blocking problems stop it with the
// reason, warnings need a confirmation), the Idempotency-Key shown and
// editable before sending (validated while typed), the replay / new /
// abort choice for bytes that were already accepted, the result with the
// stable code and what to do (a network failure offers a retry with the
// same key), and the connection's upload history.
//
// The work is upload's, the same code `b2bx upload` runs; this
// package starts it in tea.Cmds and shows it. Every async result is a
// message tagged with the owning tab's ID (common.Owned) and a request
// ID; a result the screen no longer waits for is dropped. File names,
// keys and server text reach the screen only through termsafe.
package upload

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/filepicker"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// Extensions are the file types the picker offers until `a` shows all.
var Extensions = []string{".edi", ".edifact", ".txt", ".EDI", ".EDIFACT", ".TXT"}

// OpenMsg asks the tab Tab to open its upload screen; Path "" opens the
// file picker, a path goes straight to its pre-flight (`:upload PATH`).
type OpenMsg struct {
	Tab  common.TabID
	Path string
}

// Owner implements common.Owned.
func (m OpenMsg) Owner() common.TabID { return m.Tab }

// Options tune the screen. The zero value opens the picker in the
// working directory.
type Options struct {
	Dir  string // where the picker starts; "" → the working directory
	Path string // a file to inspect at once instead of picking one
	// Links reads the link input of the uploads the resend guard and the
	// pre-flight's history ask about (track.SelectLoader: the tracking
	// index); nil reads the store.
	Links up.SelectLoader
	// Verdicts reads the verdicts on the partner's newest accepted
	// payloads the pre-flight compares with (track.VerdictLoader: kept in
	// the index); nil: from Links.
	Verdicts up.VerdictLoader
}

// backend is the domain calls the screen makes (a seam for tests).
type backend interface {
	Prepare(ctx context.Context, path string) (*up.Plan, error)
	Send(ctx context.Context, p *up.Plan) (*up.Outcome, error)
	History() ([]spool.UploadRecord, error)
}

// domain runs upload on an open connection.
type domain struct {
	conn     *session.Conn
	links    up.SelectLoader
	verdicts up.VerdictLoader
}

func (d domain) Prepare(ctx context.Context, path string) (*up.Plan, error) {
	t := d.conn.Target
	opts, err := up.ConnectionOptions(t.Directory, t.MIG, false)
	if err != nil {
		return nil, err
	}
	if d.verdicts != nil {
		opts = opts.WithHistoryVerdicts(ctx, d.conn.Spool, t.ConnectionID, d.verdicts)
	} else {
		opts = opts.WithHistory(ctx, d.conn.Spool, t.ConnectionID, d.links)
	}
	p, err := up.PrepareWith(ctx, d.conn.Spool, t.ConnectionID, path, opts)
	if err != nil || p.Preflight.Blocked() {
		return p, err
	}
	// The seed's rule, as `b2bx upload` applies it: bytes identical to an
	// upload a partner's answer rejected are refused with the reason (the
	// app has no --force; E in the uploads screen fixes and resends).
	var l *up.Linked
	var lerr error
	if d.links != nil { // the uploads of these bytes only
		sha := p.Preflight.SHA256
		l, lerr = d.links(ctx, d.conn.Spool, t.ConnectionID, up.Selection{SHAs: []string{sha}})
	} else {
		l, lerr = up.StoreLoader(ctx, d.conn.Spool, t.ConnectionID)
	}
	if lerr != nil {
		return p, nil // no linked answers to check against: as before the rule
	}
	if gerr := up.Guard(l, p.Preflight.SHA256, nil, false); gerr != nil {
		return nil, fmt.Errorf("%w (H, then E on the rejected upload, fixes it and sends it with a new key)", gerr)
	}
	return p, nil
}

func (d domain) Send(ctx context.Context, p *up.Plan) (*up.Outcome, error) {
	return up.Send(ctx, d.conn.Client, p)
}

func (d domain) History() ([]spool.UploadRecord, error) {
	return up.History(d.conn.Spool, d.conn.Target.ConnectionID)
}

// stage is where the screen is in pick → inspect → decide → send → result.
type stage int

const (
	stagePick     stage = iota // the file picker
	stagePlanning              // reading and checking the file
	stageReport                // the pre-flight report, the choice and the key
	stageSending               // the upload is on its way
	stageResult                // the answer
)

// Model is the upload screen of one connection. It is a value; Update
// returns the new one.
type Model struct {
	c     *common.Common
	owner common.TabID
	be    backend
	keys  KeyMap
	ctx   context.Context
	stop  context.CancelFunc

	width, height int

	stage    stage
	picker   filepicker.Model
	allFiles bool
	note     string // a one-line hint under the picker (sanitised)

	path      string
	plan      *up.Plan
	planErr   error
	confirmed bool // the operator accepted the warnings

	editing bool
	keyIn   textinput.Model
	keyErr  string

	out     *up.Outcome
	sendErr error
	cancel  context.CancelFunc // cancels the running upload

	showHistory bool
	history     []spool.UploadRecord
	historyErr  error

	req     uint64 // last request id handed out
	waiting uint64 // the plan or send request the screen waits for
	histReq uint64 // the history request it waits for

	done    bool
	initCmd tea.Cmd

	// dest is the connection the screen uploads to and its profile's
	// directory (and partner rules), for the title; sanitised.
	dest string
}

// New builds the screen for an open connection; owner is the tab it
// belongs to. Nothing is read until the Cmd of Init runs.
func New(c *common.Common, owner common.TabID, conn *session.Conn, opts Options) Model {
	m := newModel(c, owner, domain{conn: conn, links: opts.Links, verdicts: opts.Verdicts}, opts)
	m.dest = destination(conn.Target)
	return m
}

// destination is "to NAME · D.96A · partner rules FILE": where the
// upload goes and what its pre-flight checks it against.
func destination(t session.Target) string {
	name := cmp.Or(t.Name, t.ConnectionID)
	if name == "" {
		return ""
	}
	s := "to " + termsafe.String(name)
	if t.Directory != "" {
		s += " · " + termsafe.String(t.Directory)
	}
	if t.MIG != "" {
		s += " · partner rules " + termsafe.String(filepath.Base(t.MIG))
	}
	return s
}

func newModel(c *common.Common, owner common.TabID, be backend, opts Options) Model {
	ctx, stop := context.WithCancel(context.Background())
	m := Model{c: c, owner: owner, be: be, keys: DefaultKeyMap(), ctx: ctx, stop: stop,
		picker: common.NewPicker(opts.Dir, Extensions, "  no files here (h: parent directory, a: all files)"), keyIn: newKeyInput(), width: c.Width, height: c.Height}
	m.picker.SetHeight(m.pickerHeight())
	if opts.Path != "" {
		m, m.initCmd = m.startPlan(common.ExpandHome(opts.Path))
		return m
	}
	m.initCmd = m.picker.Init()
	return m
}

func newKeyInput() textinput.Model {
	ti := textinput.New()
	ti.Prompt = "key: "
	ti.CharLimit = up.MaxKeyLen + 20 // room to see the length error
	ti.Cursor.SetMode(cursor.CursorStatic)
	return ti
}

// Init reads the picker's directory, or inspects Options.Path. Its Cmd
// runs once even if Init is called again.
func (m Model) Init() tea.Cmd {
	cmd := m.initCmd
	return cmd
}

// Done reports whether the operator closed the screen (esc on the file
// list); the host then drops it.
func (m Model) Done() bool { return m.done }

// Capturing reports whether the key input wants every key, so the host
// must not take q, [, ], 1-9, :, ? for itself.
func (m Model) Capturing() bool { return m.editing }

// Pending says why closing now would lose something, or "".
func (m Model) Pending() string {
	if m.stage == stageSending {
		return "an upload is being sent: closing cancels it and leaves its outcome unknown (a retry reuses the key)"
	}
	return ""
}

// Busy is a few words for the status bar while work runs, else "".
func (m Model) Busy() string {
	switch m.stage {
	case stagePlanning:
		return "upload: checking the file"
	case stageSending:
		return "upload: sending"
	}
	return ""
}

// Close cancels any running work.
func (m Model) Close() {
	if m.stop != nil {
		m.stop()
	}
}

// SetSize sets the screen's area.
func (m Model) SetSize(w, h int) Model {
	m.width, m.height = w, h
	m.picker.SetHeight(m.pickerHeight())
	m.keyIn.Width = max(w-8, 10)
	return m
}

// pickerHeight leaves room for the title, the directory, the note and
// the help line.
func (m Model) pickerHeight() int { return max(m.height-5, 3) }

// nextReq hands out a request id.
func (m *Model) nextReq() uint64 {
	m.req++
	return m.req
}

// cwd is the picker's directory.
func (m Model) cwd() string { return m.picker.CurrentDirectory }
