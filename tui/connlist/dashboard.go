package connlist

import (
	"context"
	"errors"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
)

// Dashboard computes a connection's figures for the start screen: due
// entries and the oldest due entry's age from the mailbox's first page,
// refused here, awaiting answer, overdue and needs action from this
// machine's files (track.Figures). Its method does IO and runs inside
// tea.Cmds only, after the first frame.
type Dashboard interface {
	Figures(ctx context.Context, name string) (track.Figures, error)
}

// RefreshEvery is how often the figures are read again while the app
// runs: one mailbox page per connection a minute, far inside the client's
// rate limit.
const RefreshEvery = time.Minute

// figuresTimeout bounds one connection's figures (keyring, index, page).
const figuresTimeout = 30 * time.Second

// figuresMsg is one connection's figures; gen drops a round replaced by
// a reload.
type figuresMsg struct {
	gen  int
	name string
	fig  track.Figures
	err  error
}

// figuresTick starts the next round.
type figuresTick struct{ gen int }

// loadFigures reads every row's figures, one command each, and schedules
// the next round.
func (m Model) loadFigures() tea.Cmd {
	d := m.opts.Dashboard
	if d == nil || len(m.listing.Rows) == 0 {
		return nil
	}
	cmds := make([]tea.Cmd, 0, len(m.listing.Rows)+1)
	for _, r := range m.listing.Rows {
		ctx, gen, name := m.ctx, m.gen, r.Name
		cmds = append(cmds, func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, figuresTimeout)
			defer cancel()
			f, err := d.Figures(ctx, name)
			return figuresMsg{gen: gen, name: name, fig: f, err: err}
		})
	}
	gen := m.gen
	cmds = append(cmds, m.tick(RefreshEvery, func(time.Time) tea.Msg { return figuresTick{gen: gen} }))
	return tea.Batch(cmds...)
}

// figState is what the list knows of a connection's figures.
type figState struct {
	fig track.Figures
	err string // sanitised
	at  time.Time
}

// SessionDashboard is the Dashboard over the machine's profiles, secret
// store and tracking index. Wait, when set, holds the first read until
// the environment is ready (b2bx demo's simulator).
type SessionDashboard struct {
	Env  session.Env
	Wait func(ctx context.Context) error
	// Team, when set, is the team's index (nil: not open or not usable):
	// the figures count what anyone on the team stored and sent.
	Team func(ctx context.Context) *track.Index

	mu  sync.Mutex
	idx *track.Index
	m   *track.Machine
}

// NewSessionDashboard is a SessionDashboard (a pointer: it keeps the
// index open for the life of the app).
func NewSessionDashboard(env session.Env, wait func(context.Context) error) *SessionDashboard {
	return &SessionDashboard{Env: env, Wait: wait}
}

// index opens the machine's index once.
func (d *SessionDashboard) index(ctx context.Context) (*track.Machine, *track.Index, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.idx != nil {
		return d.m, d.idx, nil
	}
	m, err := track.LoadMachine(d.Env)
	if err != nil {
		return nil, nil, err
	}
	// The files answer when the index file cannot be used (OpenQuery),
	// as find does: the start screen still shows the figures.
	x, err := m.OpenQuery(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	d.m, d.idx = m, x
	return m, x, nil
}

// teamIndex is the team's index, nil without one (or until it is open).
func (d *SessionDashboard) teamIndex(ctx context.Context) *track.Index {
	if d.Team == nil {
		return nil
	}
	return d.Team(ctx)
}

// Figures implements Dashboard: the index part, then one mailbox page
// (limit 50) through the profile's own client. A mailbox that cannot be
// read leaves the index part and says why.
func (d *SessionDashboard) Figures(ctx context.Context, name string) (track.Figures, error) {
	if d.Wait != nil {
		if err := d.Wait(ctx); err != nil {
			return track.Figures{}, err
		}
	}
	m, x, err := d.index(ctx)
	if err != nil {
		return track.Figures{}, err
	}
	conn, err := m.Connection(name)
	if err != nil {
		return track.Figures{}, err
	}
	team := d.teamIndex(ctx)
	if team != nil { // fed by pushes, not synced
		x = team
	} else if _, err := x.Sync(ctx); err != nil && !errors.Is(err, track.ErrStale) {
		return track.Figures{}, err
	}
	var p credentials.Profile
	for _, q := range m.Profiles {
		if q.Name == name {
			p = q
		}
	}
	contrl, ordrsp := p.Effective()
	f, err := x.ConnFigures(ctx, conn, track.SLA{Contrl: contrl, Ordrsp: ordrsp})
	if err != nil {
		return f, err
	}
	f.Team = team != nil
	t, err := session.ResolveProfile(ctx, d.Env, name)
	if err == nil {
		var c *session.Conn
		if c, err = session.Open(t, session.Options{}); err == nil {
			defer c.Close()
			page, lerr := c.Client.ListMailbox(ctx, 50, "")
			if err = lerr; err == nil {
				created := make([]time.Time, len(page.Entries))
				for i, e := range page.Entries {
					created[i] = e.CreatedAt
				}
				f.AddMailboxPage(created, page.HasMore, time.Now())
			}
		}
	}
	if err != nil {
		f.MailboxErr = termsafe.String(err.Error())
	}
	return f, nil
}
