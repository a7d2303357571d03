// Package conntab is one connection's tab in the b2bx app: the mailbox
// table (paging, filter, details, the whole backlog), and the contract's
// worker order on one entry at a time with live panels: claim with a lease
// countdown, download with progress and one line per integrity check,
// acknowledge with the receipt, process the head (P) and worker mode (W).
//
// The domain work is apiclient's and worker's; this package only starts
// it in tea.Cmds and shows it. The worker order (which entry is the head,
// one claim per connection, our leases, the phase of the claim, when W
// goes on) is the tab's worker.Runner: the tab asks it, never decides. Every async result is a message tagged
// with the tab's ID (common.Owned) and a request ID; a result the tab is
// no longer waiting for is dropped. The claim token lives only inside
// worker.Lease.
package conntab

import (
	"context"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/internal/bundle"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/conntab/table"
	"github.com/nutrab2b/b2bx/tui/fix"
)

// DefaultPageSize is the page size a tab starts with (the server's default).
const DefaultPageSize = 50

// PageSizes are the steps of the + and - keys.
var PageSizes = []int{10, 20, 50, 100}

// Options tune a tab. The zero value is fine.
type Options struct {
	// PageSize is the mailbox page size, 1..100; 0 → DefaultPageSize.
	PageSize int
	// Name overrides the tab title (default: the profile name, else the
	// connection ID).
	Name string
	// Export, if set, runs after the durable store and before any
	// acknowledge (like `b2bx fetch --out`).
	Export func(st *spool.Stored) error
	// Index, if set, updates the tracking index after a store, an
	// acknowledge or an upload, in the background once the tab is idle.
	Index IndexFunc
	// Links, if set, reads the link input of H, the claim panel and the
	// upload guard (track.Loader: from the tracking index, not by parsing
	// every stored answer); nil reads the store.
	Links up.Loader
	// LinksOf, if set, reads the tab's own link input (the details pane,
	// the claim panel, v and D on a row) for the deliveries it shows
	// only (track.DeliveriesLoader), until H needs every upload: opening
	// the tab then costs what its rows' conversations hold, not the store.
	// nil: Links, the whole connection.
	LinksOf up.DeliveriesLoader
	// LinksFor, if set, reads the link input of only some uploads (the
	// upload screen's guard and pre-flight history: track.SelectLoader);
	// nil reads the store.
	LinksFor up.SelectLoader
	// Verdicts, if set, reads the verdicts on the partner's newest
	// accepted payloads the pre-flight compares with (track.VerdictLoader:
	// kept in the index); nil: from LinksFor.
	Verdicts up.VerdictLoader
	// SentBy, if set, says who sent the team's uploads of a connection
	// (SentByKey → "alice on host-3", terminal-safe): H shows it on
	// their rows. nil: this machine's uploads only.
	SentBy func(ctx context.Context, conn string) map[string]string
	// Colleague, if set, finds a delivery only a colleague fetched for a
	// ticket bundle (T): the team store's bytes.
	Colleague bundle.ColleagueFunc
	// Timeline, if set, fills a ticket bundle's timeline.txt (T) from the
	// tracking index, as `b2bx bundle` does (track.MachineTimeline).
	Timeline bundle.TimelineFunc
	// Keys replaces DefaultKeyMap (config.toml's [keys]).
	Keys *KeyMap
	// Filter is the filter the tab starts with (remembered from the
	// last run).
	Filter string

	// journal is the seen journal the runner writes for journalConn
	// (New: the connection's spool), so the timeline shows the tab's
	// claims and refusals as it shows the CLI's.
	journal     worker.Journal
	journalConn string
}

// backend is the domain calls the tab makes: the runner's (pages and
// claims, worker.Backend) and single pages.
type backend interface {
	worker.Backend
	List(ctx context.Context, limit int, cursor string) (*apiclient.Page, error)
}

// domain is the real backend: the connection's client and a worker.
type domain struct {
	worker.Backend
	client *apiclient.Client
}

func (d domain) List(ctx context.Context, limit int, cursor string) (*apiclient.Page, error) {
	return d.client.ListMailbox(ctx, limit, cursor)
}

// viewKind is what the table shows.
type viewKind int

const (
	viewPage    viewKind = iota // one page of the mailbox
	viewBacklog                 // every page, loaded by A
)

// Model is one connection's tab. It is a value; Update returns the new one.
type Model struct {
	c      *common.Common
	id     common.TabID
	name   string
	be     backend
	keys   KeyMap
	export func(st *spool.Stored) error

	width, height int

	table table.Model
	view  viewKind
	pager pager
	back  *backlogState // the loaded backlog (view == viewBacklog) or nil

	req  uint64 // last request id handed out
	list *job   // running page or backlog load
	work *job   // running claim, fetch or ack

	// run is the worker order for this connection: the head, the one
	// claim, our leases, the phases (worker.Runner); claim is what the
	// tab shows of its current claim (nil when none). What P, W and the
	// marked entries do next is the runner's order (Start, Next): the tab
	// keeps no flags of its own about it.
	run   *worker.Runner
	claim *claimState

	tick      func(time.Duration, func(time.Time) tea.Msg) tea.Cmd // tea.Tick; tests replace it
	tickGen   uint64
	tickEvery time.Duration // 0: no tick scheduled

	initCmd tea.Cmd

	index      indexing             // what the tracking index still has to be told (index.go)
	timeline   bundle.TimelineFunc  // fills a bundle's timeline.txt (T); nil: none
	colleague  bundle.ColleagueFunc // a delivery only a colleague fetched, for T; nil: none
	selectWant string               // a delivery to show once the first page is read (select.go)
	links      links                // the uploads and the answers among the stored deliveries (links.go)
	stack      common.Stack         // screens over the mailbox: uploads (H), viewer (v), diff (D), upload (u) (screens.go)
	conn       *session.Conn        // for the upload screen; nil in tests

	marks      map[string]bool // rows marked with space or * (marks.go); nil when none
	bundlePath string          // the last ticket bundle T wrote ("" before); y offers it

	getenv     func(string) string            // $VISUAL/$EDITOR for E (os.Getenv)
	fixBackend func(l *up.Linked) fix.Backend // the E flow's domain calls

	pane string // the bottom pane, rendered in Update (see layout)
	tabH int    // table height
}

// New builds the tab for an open connection. Nothing goes over the
// network until the Cmd of Init runs.
func New(c *common.Common, id common.TabID, conn *session.Conn, opts Options) Model {
	be := domain{Backend: worker.New(conn.Client, conn.Spool, conn.Log).Backend(), client: conn.Client}
	if opts.Name == "" {
		opts.Name = conn.Target.Name
	}
	if opts.Name == "" {
		opts.Name = conn.Target.ConnectionID
	}
	opts.journal, opts.journalConn = conn.Spool, conn.Target.ConnectionID
	m := newModel(c, id, be, opts)
	m.links.store, m.links.connID, m.conn, m.links.load, m.links.loadFor = conn.Spool, conn.Target.ConnectionID, conn, opts.Links, opts.LinksFor
	m.links.sentBy = opts.SentBy
	m.colleague = opts.Colleague
	m.links.loadOf = opts.LinksOf
	contrl, ordrsp := credentials.Profile{SLA: conn.Target.SLA}.Effective()
	m.links.sla = track.SLA{Contrl: contrl, Ordrsp: ordrsp}
	m.links.verdicts = opts.Verdicts
	m.fixBackend = func(l *up.Linked) fix.Backend { return fix.NewBackend(conn, l, opts.LinksFor, opts.Verdicts) }
	// The links are read with the first page: what was downloaded before
	// is linked as soon as the table shows.
	// With LinksOf they are the first page's, read once it is there.
	if m.links.loadOf == nil {
		var linkCmd tea.Cmd
		m, linkCmd = m.loadLinks()
		m.initCmd = tea.Batch(m.initCmd, linkCmd)
	}
	return m
}

func newModel(c *common.Common, id common.TabID, be backend, opts Options) Model {
	size := opts.PageSize
	if size <= 0 || size > apiclient.MaxListLimit {
		size = DefaultPageSize
	}
	m := Model{
		c: c, id: id, name: termsafe.String(opts.Name), be: be, keys: DefaultKeyMap(), export: opts.Export,
		run: worker.NewRunner(be, worker.RunnerOptions{PageSize: size, Now: c.Now,
			Journal: opts.journal, ConnectionID: opts.journalConn}),
		table:      table.New(c.Styles, c.Now),
		pager:      pager{limit: size, stack: []pageRef{{first: 1}}},
		tick:       tea.Tick,
		stack:      common.NewStack(id),
		index:      indexing{fn: opts.Index},
		timeline:   opts.Timeline,
		getenv:     os.Getenv,
		fixBackend: func(*up.Linked) fix.Backend { return nil },
	}
	if opts.Keys != nil {
		m.keys = *opts.Keys
	}
	if opts.Filter != "" {
		m.table.SetFilter(opts.Filter)
	}
	m.width, m.height = c.Width, c.Height
	m.stack.SetSize(max(m.width, 20), max(m.height, 6))
	// The first page's job is made here, so the model the caller keeps
	// already waits for its answer; Init only hands out its Cmd (once).
	m, m.initCmd = m.loadPage(m.pager.stack, thenNothing)
	return m.layout()
}

// Init loads the first page. Its Cmd runs once even if Init is called
// again.
func (m Model) Init() tea.Cmd { return m.initCmd }

// Filter is the filter the table applies ("" for none).
func (m Model) Filter() string { return m.table.Filter() }

// ID is the tab's ID.
func (m Model) ID() common.TabID { return m.id }

// Title is the tab's title: the connection name, sanitised.
func (m Model) Title() string { return m.name }

// SetSize sets the tab's area.
func (m Model) SetSize(w, h int) Model {
	m.width, m.height = w, h
	m.stack.SetSize(max(w, 20), max(h, 6))
	return m.layout()
}

// Capturing reports whether a text input or a y/N prompt wants every key,
// so the shell must not take q, [, ], 1-9, :, ? for itself.
func (m Model) Capturing() bool {
	top := m.stack.Top()
	return top != nil && top.Capturing()
}

// Pending says why closing the tab (or quitting) would lose something, or
// "" when nothing would be lost.
func (m Model) Pending() string {
	if m.hasActiveClaim() {
		cur := m.cur()
		if cur.Phase == worker.PhaseClaiming {
			return "a claim on " + termsafe.String(cur.Entry.DeliveryAttemptID) + " is being made: if it succeeds, its lease expires unused and uses a delivery attempt"
		}
		return "an active claim on " + termsafe.String(cur.Entry.DeliveryAttemptID) +
			": nothing is acknowledged, its lease expires at " + clock(cur.Deadline()) + " and uses a delivery attempt"
	}
	if m.work != nil {
		return "a running " + m.work.what + " on this connection"
	}
	return m.uploadPending()
}

// Close cancels running work and releases the lease (the token is
// forgotten). The server is not told: an unacknowledged lease runs out.
func (m Model) Close() {
	m.stopLinks()
	m.stack.CloseAll()
	for _, j := range []*job{m.list, m.work} {
		if j != nil {
			j.cancel()
		}
	}
	m.run.Close()
	m.run.FlushSeen() // a claim left unused: the tab closes with its connection
}

// nextReq hands out a request id.
func (m *Model) nextReq() uint64 {
	m.req++
	return m.req
}
