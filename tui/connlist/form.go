package connlist

import (
	"errors"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// The form's fields, in order.
const (
	fName = iota
	fURL
	fConnection
	fMailboxKey
	fMailboxSecret
	fInboxKey
	fInboxSecret
	fPartner
	nFields
)

// fieldSpec describes one input of the add-connection form.
type fieldSpec struct {
	label, placeholder string
	secret             bool
	tomlKey            string // the credentials.FieldError field it answers for
}

var fieldSpecs = [nFields]fieldSpec{
	fName:          {"Name", "acme-prod (letters, digits, . _ -)", false, "name"},
	fURL:           {"Base URL", "https://partner-api.example.com", false, "url"},
	fConnection:    {"Connection ID", "as given by the platform", false, "connection"},
	fMailboxKey:    {"Mailbox key ID", "API key for the mailbox calls", false, "mailbox_key_id"},
	fMailboxSecret: {"Mailbox key secret", "typed hidden, stored in the keyring", true, ""},
	fInboxKey:      {"Inbox key ID", "empty: the mailbox key uploads too", false, "inbox_key_id"},
	fInboxSecret:   {"Inbox key secret", "only for a separate inbox key", true, ""},
	fPartner:       {"Partner label", "optional, for people", false, "partner"},
}

// formKeys are the form's keys (for help).
type formKeys struct {
	Next, Prev, Submit, Cancel key.Binding
}

func newFormKeys() formKeys {
	return formKeys{
		Next:   key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next field")),
		Prev:   key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous field")),
		Submit: key.NewBinding(key.WithKeys("enter", "ctrl+s"), key.WithHelp("enter", "next / save on the last field (ctrl+s: save)")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// Form is the add-connection form. Secrets are typed masked and leave it
// only as secret.Value, into the secret store.
type Form struct {
	inputs [nFields]textinput.Model
	focus  int
	keys   formKeys
	// errField is the field the error is about (-1: none in particular).
	errField int
	err      string
	saving   bool
}

// newForm returns an empty form with the first field focused.
func newForm() Form {
	f := Form{keys: newFormKeys(), errField: -1}
	for i, spec := range fieldSpecs {
		in := textinput.New()
		in.Prompt = ""
		in.Placeholder = spec.placeholder
		in.CharLimit = 512
		in.Width = 44
		_ = in.Cursor.SetMode(cursor.CursorStatic)
		if spec.secret {
			in.EchoMode = textinput.EchoPassword
			in.EchoCharacter = '•'
		}
		f.inputs[i] = in
	}
	f.inputs[0].Focus()
	return f
}

// setFocus moves the focus to field i.
func (f Form) setFocus(i int) Form {
	f.inputs[f.focus].Blur()
	f.focus = (i + nFields) % nFields
	f.inputs[f.focus].Focus()
	return f
}

// submitMsg asks the list to save the form's connection.
type submitMsg struct{ nc NewConn }

// cancelMsg closes the form.
type cancelMsg struct{}

// Update handles the form's keys. Every key goes to the form while it is
// open (it captures input).
func (f Form) Update(msg tea.Msg) (Form, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		var cmd tea.Cmd
		f.inputs[f.focus], cmd = f.inputs[f.focus].Update(msg)
		return f, cmd
	}
	if f.saving {
		return f, nil // the result decides; keys wait
	}
	switch {
	case key.Matches(km, f.keys.Cancel):
		return f, func() tea.Msg { return cancelMsg{} }
	case key.Matches(km, f.keys.Next):
		return f.setFocus(f.focus + 1), nil
	case key.Matches(km, f.keys.Prev):
		return f.setFocus(f.focus - 1), nil
	case key.Matches(km, f.keys.Submit):
		if km.String() == "enter" && f.focus < nFields-1 {
			return f.setFocus(f.focus + 1), nil
		}
		nc, field, err := f.build()
		if err != nil {
			f.err, f.errField = termsafe.String(err.Error()), field
			if field >= 0 {
				f = f.setFocus(field)
			}
			return f, nil
		}
		f.err, f.errField, f.saving = "", -1, true
		return f, func() tea.Msg { return submitMsg{nc: nc} }
	}
	var cmd tea.Cmd
	f.inputs[f.focus], cmd = f.inputs[f.focus].Update(msg)
	return f, cmd
}

func (f Form) value(i int) string { return strings.TrimSpace(f.inputs[i].Value()) }

// build validates the form as `b2bx conn add` does and returns the new
// connection, or the field at fault and why.
func (f Form) build() (NewConn, int, error) {
	mk, ik := f.value(fMailboxKey), f.value(fInboxKey)
	if ik == "" {
		ik = mk
	}
	p := credentials.Profile{Name: f.value(fName), URL: f.value(fURL), ConnectionID: f.value(fConnection),
		Partner: f.value(fPartner), InboxKeyID: ik, MailboxKeyID: mk}
	if err := p.Validate(); err != nil {
		return NewConn{}, fieldOf(err), err
	}
	secrets := map[string]secret.Value{}
	for _, s := range []struct {
		field int
		keyID string
	}{{fMailboxSecret, mk}, {fInboxSecret, ik}} {
		if _, done := secrets[s.keyID]; done {
			continue // one key for both: one secret
		}
		v, err := session.CleanSecret(f.inputs[s.field].Value())
		if err != nil {
			return NewConn{}, s.field, errors.New("the secret of key " + s.keyID + ": " + err.Error())
		}
		secrets[s.keyID] = v
	}
	return NewConn{Profile: p, Secrets: secrets}, -1, nil
}

// fieldOf maps a validation error to the form field it is about.
func fieldOf(err error) int {
	var fe *credentials.FieldError
	if errors.As(err, &fe) {
		for i, s := range fieldSpecs {
			if s.tomlKey != "" && s.tomlKey == fe.Field {
				return i
			}
		}
	}
	if errors.Is(err, session.ErrProfileExists) {
		return fName
	}
	return -1
}

// failed shows a save error and lets the person fix the form; nothing
// typed is lost.
func (f Form) failed(err error) Form {
	f.saving = false
	f.err, f.errField = termsafe.String(err.Error()), fieldOf(err)
	if f.errField >= 0 {
		f = f.setFocus(f.errField)
	}
	return f
}

// View renders the labelled fields, the focused one marked.
func (f Form) View(st *common.Styles, storeName string) string {
	var b strings.Builder
	b.WriteString(st.Title.Render("Add a connection") + "\n")
	b.WriteString(st.Muted.Render("Same checks as `b2bx conn add`. Secrets are masked and go straight into "+storeName+", never into a file.") + "\n\n")
	for i, spec := range fieldSpecs {
		mark := "  "
		if i == f.focus {
			mark = st.Marks.Cursor + " "
		}
		label := spec.label
		if i == f.errField {
			label = st.Marks.Fail + " " + label
		}
		b.WriteString(mark + padRight(label, 22) + common.InputView(f.inputs[i]) + "\n")
	}
	b.WriteString("\n")
	switch {
	case f.saving:
		b.WriteString(st.Muted.Render("Saving…"))
	case f.err != "":
		b.WriteString(st.Error.Render(st.Marks.Fail + " " + f.err))
	default:
		b.WriteString(st.Muted.Render("tab/↓ next · shift+tab/↑ back · enter on the last field or ctrl+s saves · esc cancels"))
	}
	return b.String()
}

func padRight(s string, n int) string {
	if w := len([]rune(s)); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s + " "
}
