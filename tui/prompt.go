package tui

import (
	"errors"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// action is what a y answer does.
type action int

const (
	actQuit  action = iota // quit the app
	actClose               // close prompt.tab
)

// promptScreen is a y/N question in the footer (pug's prompts), a
// screen on the root stack: the next key answers it; y does the action,
// every other key keeps things as they are.
type promptScreen struct {
	common.Base
	question string
	action   action
	tab      common.TabID
	yes      bool
	done     bool
}

func (p promptScreen) footer() bool { return true }
func (p promptScreen) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		p.yes, p.done = k.String() == "y" || k.String() == "Y", true
	}
	return p, nil
}
func (p promptScreen) View() string                   { return p.question }
func (p promptScreen) SetSize(int, int) common.Screen { return p }
func (p promptScreen) Capturing() bool                { return true }
func (p promptScreen) Closes(tea.KeyMsg) bool         { return false }
func (p promptScreen) Title() string                  { return "prompt" }
func (p promptScreen) Done() bool                     { return p.done }

func (m Model) ask(p promptScreen) Model {
	m.screens.Push(p)
	return m.layout()
}

// answer does what the prompt was answered.
func (m Model) answer(p promptScreen) (Model, tea.Cmd) {
	if !p.yes {
		m.foot.info = "nothing changed"
		return m.layout(), nil
	}
	switch p.action {
	case actQuit:
		return m.quit(true)
	case actClose:
		return m.closeTab(p.tab), nil
	}
	return m.layout(), nil
}

// footer is the bottom line's state: an error stays until esc dismisses
// it; a note goes with the next key.
type footer struct {
	err  string
	info string
}

func (f footer) withInfo(i common.Info) footer {
	if i.Err {
		f.err = termsafe.String(i.Text)
	} else {
		f.info = termsafe.String(i.Text)
	}
	return f
}

// showError puts a tab's (or the shell's) error into the footer, named by
// its tab. An error from a tab that is closed meanwhile is dropped.
func (m Model) showError(e common.ErrorMsg) Model {
	prefix := ""
	if e.Tab != 0 {
		i := m.tabIndex(e.Tab)
		if i < 0 {
			return m
		}
		prefix = m.tabs[i].tab.Title() + ": "
	}
	e.Text, e.Code = termsafe.String(e.Text), termsafe.String(e.Code)
	e.Action, e.CorrelationID = termsafe.String(e.Action), termsafe.String(e.CorrelationID)
	m.foot.err = prefix + e.Line()
	return m.layout()
}

// errorMsgOf turns a domain error into a footer error: the API's stable
// code, client action and correlation ID when there is one.
func errorMsgOf(err error) common.ErrorMsg {
	var ae *apiclient.APIError
	if errors.As(err, &ae) {
		return common.ErrorMsg{Code: ae.Code, Action: ae.Action, CorrelationID: ae.CorrelationID,
			Text: termsafe.String(strings.TrimSpace(firstClause(err.Error(), ae)))}
	}
	return common.ErrorMsg{Text: termsafe.String(err.Error())}
}

// firstClause drops the action and correlation that APIError.Error()
// appends, since the footer shows them as their own fields.
func firstClause(s string, ae *apiclient.APIError) string {
	if ae.Action != "" {
		s = strings.Replace(s, " — "+ae.Action, "", 1)
	}
	if ae.CorrelationID != "" {
		s = strings.Replace(s, " [correlation "+ae.CorrelationID+"]", "", 1)
	}
	return s
}
