// Package tui is the b2bx app: the root model (tabs of connections, status
// bar, footer with errors) over the start screen (connlist) and one tab per
// connection (conntab), with its screen stack (common.Stack) for `?` help,
// the `L` session log, the `e` event inspector, `:view` on the connection
// list, the `:` command line and y/N prompts. Keys go owner → tab → top of
// its stack; q and esc close the top screen (see tui/common). It only
// orchestrates: resolution, claims, downloads and acknowledgements happen
// in apiclient and its sub-packages.
package tui

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/settings"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/connlist"
	"github.com/nutrab2b/b2bx/tui/logview"
)

// Options configure Run.
type Options struct {
	// Env is where profiles and secrets come from. Env.Store must be set:
	// one store for the whole session, so a keyring that proved
	// unreachable is not waited for again (session.StoreFromEnv).
	Env session.Env
	// StoreName names Env.Store for people ("the OS keyring").
	StoreName string
	// Open are connections (profile names) to open as tabs at start.
	Open []string
	// Demo shows the DEMO marker (b2bx demo).
	Demo bool
	// Wait, when set, holds the background work that reads profiles or
	// connects until the environment is ready (b2bx demo starts its
	// simulator while the first frame is already on screen); its error
	// is shown where the work's would be.
	Wait func(ctx context.Context) error
	// OnFirstFrame, when set, is called (on a goroutine of its own) once
	// the first full frame is on screen: b2bx demo starts its simulator
	// then, so generating the demo data does not compete with that frame.
	OnFirstFrame func()
	// Log keeps the session log; nil → a new one.
	Log *logview.Handler
	// NewTab builds a connection's tab; nil → ConnTab.
	NewTab func(c *common.Common, id common.TabID, conn *session.Conn) Tab
	// Input and Output default to the terminal (stdin/stdout).
	Input  io.Reader
	Output io.Writer
	// ProgramOptions are added to the Bubble Tea program's (tests).
	ProgramOptions []tea.ProgramOption
	// EventsListenAddr and EventsDir are where `:events listen` listens
	// and captures by default (b2bx demo points its sender there).
	EventsListenAddr, EventsDir string
	// Config is config.toml as settings.Load read it (with Actions and
	// common.ThemeSlots): its [keys] rebind the shell's and the tabs'
	// keys, its [theme] sets the colours. nil: the defaults.
	Config *settings.Config
	// TeamStore, when set, is the team store's outbox: every connection's
	// spool queues into it and the status bar shows its line. nil: none.
	TeamStore TeamStore
	// Team, when set, is the team's data the app reads (TeamData:
	// teamstore.Faces); nil: this machine's only.
	Team TeamData
	// StatePath is where the app remembers its tabs between runs
	// (settings.StatePath); "" remembers nothing. With Open empty, the
	// tabs of the last run are opened again, each with its page size
	// and filter; the state is saved when the app ends.
	StatePath string
}

// sessionBackend connects named profiles through the session package;
// every client logs into the session log.
type sessionBackend struct {
	wait   func(ctx context.Context) error
	env    session.Env
	logger *slog.Logger
	newTab func(c *common.Common, id common.TabID, conn *session.Conn) Tab
	team   TeamStore // nil: no team store
	data   TeamData  // nil: no team data
	ctx    context.Context
}

// Connect implements Backend: resolve the profile's secrets, then build
// its client and spool (no network).
func (b sessionBackend) Connect(ctx context.Context, name string) (*session.Conn, error) {
	if err := b.wait(ctx); err != nil {
		return nil, err
	}
	t, err := session.ResolveProfile(ctx, b.env, name)
	if err != nil {
		return nil, err
	}
	c, err := session.Open(t, session.Options{Logger: b.logger, Getenv: b.env.Getenv})
	if err == nil && b.team != nil {
		b.team.Attach(c.Spool)
	}
	if err == nil && b.data != nil { // key plans count the team's uploads
		b.data.AttachKeyPlans(b.ctx, c.Spool)
	}
	return c, err
}

// SecretStore is the session's one store (the event inspector's K reads
// a profile's webhook secret from it).
func (b sessionBackend) SecretStore() credentials.SecretStore { return b.env.Store }

// NewTab implements Backend.
func (b sessionBackend) NewTab(c *common.Common, id common.TabID, conn *session.Conn) Tab {
	return b.newTab(c, id, conn)
}

// waitSource holds a Source's reads until Options.Wait says ready.
type waitSource struct {
	connlist.Source
	wait func(ctx context.Context) error
}

// Profiles implements connlist.Source.
func (s waitSource) Profiles(ctx context.Context) (connlist.Listing, error) {
	if err := s.wait(ctx); err != nil {
		return connlist.Listing{}, err
	}
	return s.Source.Profiles(ctx)
}

// NewApp builds the root model for opts (what Run runs; tests drive it
// directly).
func NewApp(ctx context.Context, opts Options) (Model, error) {
	if opts.Env.Store == nil {
		return Model{}, errors.New("tui: Options.Env.Store is required (one secret store for the session)")
	}
	if opts.Log == nil {
		opts.Log = logview.New(0, nil)
	}
	remembered := map[string]settings.TabState{}
	var stateErr error
	if opts.StatePath != "" && len(opts.Open) == 0 {
		st, err := settings.LoadState(opts.StatePath, false)
		stateErr = err
		for _, t := range st.Tabs {
			opts.Open = append(opts.Open, t.Profile)
			remembered[t.Profile] = t
		}
		if st.Active > 0 && st.Active < len(opts.Open) { // the focused tab opens first (it gets the focus)
			a := opts.Open[st.Active]
			opts.Open = append([]string{a}, append(opts.Open[:st.Active:st.Active], opts.Open[st.Active+1:]...)...)
		}
	}
	if opts.NewTab == nil {
		opts.NewTab = ConnTabTeam(opts.Env, TabKeys(opts.Config), remembered, opts.Team) // keeping the tracking index up to date
	}
	if opts.Wait == nil {
		opts.Wait = func(context.Context) error { return nil }
	}
	c := common.New()
	if opts.Config != nil {
		_, noColor := os.LookupEnv("NO_COLOR")
		c.Styles = common.NewThemedStyles(noColor, opts.Config.Theme.Colors)
	}
	c.Demo = opts.Demo
	if opts.Team != nil {
		opts.Team.Start(ctx) // on its own goroutine, bounded: never the UI's
	}
	be := sessionBackend{wait: opts.Wait, env: opts.Env, logger: slog.New(opts.Log), newTab: opts.NewTab, team: opts.TeamStore, data: opts.Team, ctx: ctx}
	src := waitSource{Source: connlist.SessionSource{Env: opts.Env, StoreName: opts.StoreName}, wait: opts.Wait}
	// the start screen's figures per connection (issue 14 §5), read in the background
	dash := connlist.NewSessionDashboard(opts.Env, opts.Wait)
	dash.Team = teamIndexFunc(opts.Team)
	m := New(ctx, c, be, src, opts.Log, connlist.Options{StoreName: opts.StoreName, Dashboard: dash}, opts.Open)
	m.onFirstFrame = opts.OnFirstFrame
	m.finder = machineSource{env: opts.Env, wait: opts.Wait, team: opts.Team}
	m.evListenAddr, m.evDir = opts.EventsListenAddr, opts.EventsDir
	m.keys = GlobalKeys(opts.Config)
	m.statePath = opts.StatePath
	m.team = opts.TeamStore
	m.teamData = opts.Team
	if stateErr != nil {
		m.foot.info = termsafe.String("the tabs of the last run are not restored: " + stateErr.Error())
	}
	return m, nil
}

// Run runs the app in the terminal until the person quits or ctx ends
// (SIGINT/SIGTERM). The alternate screen is used, the mouse is left to
// the terminal (so IDs and hashes can be selected and copied). When Run
// returns, every tab is closed: running work cancelled, leases released.
//
// Run catches no signal itself: the caller owns them and cancels ctx
// (cmd/b2bx's notifyInterrupt). Bubble Tea's own handler would race the
// caller's for the same SIGTERM and could hang the app: it blocks sending
// its quit to an event loop already ended by the cancelled ctx, and the
// program waits for it forever.
func Run(ctx context.Context, opts Options) error {
	m, err := NewApp(ctx, opts)
	if err != nil {
		return err
	}
	popts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	popts = append(popts, opts.ProgramOptions...)
	final, err := tea.NewProgram(m, popts...).Run()
	if fm, ok := final.(Model); ok {
		if serr := fm.saveState(); serr != nil {
			fm.logH.Handle(ctx, slog.NewRecord(time.Now(), slog.LevelWarn, "the open tabs could not be remembered: "+serr.Error(), 0))
		}
		fm.closeAll()
	} else {
		m.closeAll()
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // interrupted: a normal end
	}
	return err
}
