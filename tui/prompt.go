package tui

import (
	"errors"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// The root's y/N questions are common.Prompts in the footer: y hands
// the root the request below, any other key "nothing changed".
type (
	quitReq  struct{}                   // quit, leases released
	closeReq struct{ tab common.TabID } // close tab
)

// ask puts a y/N question in the footer; yes is what y hands back.
func (m Model) ask(question string, yes tea.Msg) Model {
	m.screens.Push(common.NewPrompt(question, yes, common.Info{Text: "nothing changed"}))
	return m.layout()
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
