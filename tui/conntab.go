package tui

import (
	"context"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/bundle"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/settings"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/conntab"
)

// connTab adapts conntab.Model (a value whose Update returns its own
// type) to Tab.
type connTab struct{ m conntab.Model }

// ConnTab builds the real tab of an open connection: mailbox, claim,
// download with live integrity checks, acknowledge, worker mode, and the
// screens over it (uploads, viewer, diff, the ORDERS upload).
func ConnTab(c *common.Common, id common.TabID, conn *session.Conn) Tab {
	return connTab{m: conntab.New(c, id, conn, conntab.Options{})}
}

// ConnTabWith builds tabs with the keys config.toml binds and the page
// size and filter each profile's tab had when the app last ended.
// Each tab keeps the tracking index up to date (indexFor).
func ConnTabWith(env session.Env, keys conntab.KeyMap, remembered map[string]settings.TabState) func(c *common.Common, id common.TabID, conn *session.Conn) Tab {
	return ConnTabTeam(env, keys, remembered, nil)
}

// ConnTabTeam is ConnTabWith whose tabs read the team's data when team is
// set: H, the upload guard, the fix flow and a bundle's timeline (T)
// read the team's index (this machine's until it is open or when it
// cannot be used).
func ConnTabTeam(env session.Env, keys conntab.KeyMap, remembered map[string]settings.TabState, team TeamData) func(c *common.Common, id common.TabID, conn *session.Conn) Tab {
	timeline, links, linksFor, linksOf := track.MachineTimeline(env, nil), track.Loader(env), track.SelectLoader(env), track.DeliveriesLoader(env)
	verdicts := track.VerdictLoader(env)
	var sentBy func(ctx context.Context, conn string) map[string]string
	var colleague bundle.ColleagueFunc
	if team != nil { // the team's uploads: the whole link input (the team's index has no rows' reader)
		timeline, links, linksFor, linksOf = team.Timeline(env), team.Loader(env), team.SelectLoader(env), nil
		verdicts = orders.VerdictsVia(linksFor) // the team's index keeps no verdicts
		sentBy, colleague = team.SentBy, team.Delivery
	}
	return func(c *common.Common, id common.TabID, conn *session.Conn) Tab {
		st := remembered[conn.Target.Name]
		return connTab{m: conntab.New(c, id, conn, conntab.Options{Keys: &keys, PageSize: st.PageSize, Filter: st.Filter, Index: indexFor(env, conn),
			Timeline: timeline, Links: links, LinksFor: linksFor, LinksOf: linksOf, Verdicts: verdicts, SentBy: sentBy, Colleague: colleague})}
	}
}

// TabState is what the app remembers of the tab (settings.SaveState).
func (t connTab) TabState() (pageSize int, filter string) { return t.m.PageSize(), t.m.Filter() }

func (t connTab) Init() tea.Cmd { return t.m.Init() }

func (t connTab) Update(msg tea.Msg) (Tab, tea.Cmd) {
	var cmd tea.Cmd
	t.m, cmd = t.m.Update(msg)
	return t, cmd
}

func (t connTab) View() string              { return t.m.View() }
func (t connTab) SetSize(w, h int) Tab      { t.m = t.m.SetSize(w, h); return t }
func (t connTab) ShortHelp() []key.Binding  { return t.m.ShortHelp() }
func (t connTab) FullHelp() [][]key.Binding { return t.m.FullHelp() }
func (t connTab) Title() string             { return t.m.Title() }
func (t connTab) Pending() string           { return t.m.Pending() }
func (t connTab) Capturing() bool           { return t.m.Capturing() }
func (t connTab) Closes(k tea.KeyMsg) bool  { return t.m.Closes(k) }
func (t connTab) Close()                    { t.m.Close() }
func (t connTab) Status() Status            { return t.m.Status().Bar() }
