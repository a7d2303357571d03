package connlist

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/nutrab2b/b2bx/apiclient/session"
)

// View renders the list, the first-run screen or the form.
func (m Model) View() string {
	st := m.c.Styles
	w := max(m.width, 20)
	var b strings.Builder
	switch {
	case m.formOpen:
		b.WriteString(m.form.View(st, m.opts.StoreName))
	case !m.loaded:
		b.WriteString(st.Muted.Render("Reading the connection profiles…"))
	case m.loadErr != "":
		b.WriteString(st.Error.Render(st.Marks.Fail+" The profile file could not be read:") + "\n")
		b.WriteString(ansi.Wordwrap(m.loadErr, w, " ") + "\n\n")
		b.WriteString("Fix or move the file, then press r to read it again.")
	case len(m.listing.Rows) == 0:
		b.WriteString(m.firstRun(w))
	default:
		b.WriteString(m.rows(w))
	}
	for _, warn := range m.listing.Warnings {
		if !m.formOpen {
			b.WriteString("\n" + st.Warn.Render(st.Marks.Warn+" "+ansi.Wordwrap(warn, w-2, " ")))
		}
	}
	return b.String()
}

func (m Model) firstRun(w int) string {
	st := m.c.Styles
	lines := []string{
		st.Title.Render("Welcome to b2bx"),
		"",
		"No connection profiles yet" + pathNote(m.listing.Path) + ".",
		"",
		"  " + st.Key.Render("+") + "  add a connection: name, URL, connection ID and key IDs;",
		"     the secrets are typed masked and go straight into " + m.opts.StoreName + ".",
		"",
		"To look around first, quit (q) and run " + st.Key.Render("b2bx demo") + ": the same app against a",
		"built-in simulator with two demo connections, temporary files only.",
	}
	return ansi.Wordwrap(strings.Join(lines, "\n"), w, " ")
}

func pathNote(p string) string {
	if p == "" {
		return ""
	}
	return " in " + p
}

// rows renders one block per profile: name, URL and connection, then each
// key with the state of its secret as a word and a mark (NO_COLOR safe).
func (m Model) rows(w int) string {
	st := m.c.Styles
	var b strings.Builder
	b.WriteString(st.Header.Render("Connections") + st.Muted.Render(pathNote(m.listing.Path)) + "\n\n")
	per := 2 // lines a row: the profile and its keys, then the figures
	if m.opts.Dashboard != nil {
		per = 4
	}
	capacity := max((m.height-3)/per, 1)
	start := max(m.cursor-capacity+1, 0)
	rows := m.listing.Rows[start:min(start+capacity, len(m.listing.Rows))]
	if start > 0 {
		b.WriteString(st.Muted.Render("  … more above (↑)") + "\n")
	}
	for j, r := range rows {
		i := start + j
		mark := "  "
		name := r.Name
		if i == m.cursor {
			mark = st.Marks.Cursor + " "
			name = st.Selected.Render(name)
		} else {
			name = st.Title.Render(name)
		}
		head := mark + name + "  " + r.URL + "  connection " + r.ConnectionID
		if r.Directory != "" {
			head += "  " + r.Directory
		}
		if r.Partner != "" {
			head += "  (" + r.Partner + ")"
		}
		b.WriteString(ansi.Truncate(head, w, "…") + "\n")
		b.WriteString(ansi.Truncate("    "+m.keyLine(r), w, "…") + "\n")
		if m.opts.Dashboard != nil {
			for _, l := range m.figureLines(r) {
				b.WriteString(ansi.Truncate("    "+l, w, "…") + "\n")
			}
		}
	}
	if start+len(rows) < len(m.listing.Rows) {
		b.WriteString(st.Muted.Render("  … more below (↓)") + "\n")
	}
	if m.stateErr != "" {
		b.WriteString("\n" + st.Error.Render(st.Marks.Fail+" "+ansi.Wordwrap(m.stateErr, w-2, " ")))
	}
	return strings.TrimRight(b.String(), "\n")
}

func (m Model) keyLine(r Row) string {
	st := m.c.Styles
	parts := make([]string, 0, len(r.Keys))
	for _, k := range r.Keys {
		var state string
		switch k.State {
		case "":
			state = st.Muted.Render(st.Marks.Wait + " checking…")
		case session.StateKeyring:
			where := string(k.State)
			if m.c.Demo {
				where = "in memory (demo)" // b2bx demo never touches the keyring
			}
			state = st.OK.Render(st.Marks.OK + " " + where)
		case session.StateEnv:
			state = st.OK.Render(st.Marks.OK + " " + string(k.State))
		case session.StateLocked, session.StateTimeout:
			state = st.Warn.Render(st.Marks.Warn + " " + string(k.State))
		default:
			state = st.Error.Render(st.Marks.Fail + " " + string(k.State))
		}
		parts = append(parts, k.Uses+" key "+k.KeyID+": "+state)
	}
	return strings.Join(parts, " · ")
}

// figureLines are a row's figures: what is due in its mailbox (page 1)
// with the backlog's age, then what this machine's files say; each says
// what it is based on.
func (m Model) figureLines(r Row) []string {
	st := m.c.Styles
	fs, ok := m.figs[r.Name]
	switch {
	case !ok:
		return []string{st.Muted.Render(st.Marks.Wait + " reading the mailbox's first page and this machine's files…"), ""}
	case fs.err != "":
		return []string{st.Warn.Render(st.Marks.Warn + " figures not available: " + fs.err), ""}
	}
	f, now := fs.fig, m.now()
	due := f.DueText()
	if o := f.OldestText(now); o != "" {
		due += " · " + o
	}
	if c := f.Chart(); c != "" {
		due += " · " + c
	}
	if f.MailboxErr != "" {
		due = st.Warn.Render(st.Marks.Warn+" ") + due
	}
	store := f.StoreText()
	switch {
	case f.NeedsAction > 0:
		store = st.Error.Render(st.Marks.Fail+" ") + store
	case f.Overdue > 0 || f.Refused > 0:
		store = st.Warn.Render(st.Marks.Warn+" ") + store
	}
	return []string{due + st.Muted.Render("  (read "+fs.at.Format("15:04:05")+")"), store}
}
