package common

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// Prompt is the app's one y/N question, a screen of a stack whose
// action travels with it (pug's prompts): y hands the owner Yes, every
// other way of leaving hands it No. The owner opens it with one Push and
// acts on the message it gets back; it never looks at the prompt.
//
// It comes in two forms. A question (NewPrompt) draws below the page,
// which stays in view (the root's footer, a tab's bottom pane): the next
// key answers it, so it captures every key. A preview (NewPreview) is a
// page of its own listing what y would do (a bulk run, the marked
// uploads): y runs it, N or esc runs nothing, q closes it like every
// screen, other keys stay the shell's.
type Prompt struct {
	Base
	question string   // terminal-safe
	lines    []string // a preview's body, terminal-safe; nil for a question
	page     bool
	yes, no  tea.Msg
	yesKey   key.Binding
	noKey    key.Binding
	st       *Styles
	w, h     int
	answered bool // left by y
	done     bool
}

// Keys of a question and a preview (a tab passes its own, configurable
// y/N with WithKeys).
var (
	promptYes  = key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes"))
	promptNo   = key.NewBinding(key.WithKeys("n", "N", "esc", "enter"), key.WithHelp("N", "no"))
	previewYes = key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "run it"))
	previewNo  = key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("N/esc", "run nothing"))
)

// NewPrompt is a y/N question (terminal-safe text): yes is handed to the
// owner on y, no (nil for nothing) on any other key.
func NewPrompt(question string, yes, no tea.Msg) Prompt {
	return Prompt{question: question, yes: yes, no: no, yesKey: promptYes, noKey: promptNo}
}

// NewPreview is a page titled title listing lines (terminal-safe) and
// asking whether to run it: yes is handed to the owner on y (nil: there
// is nothing to run, y does nothing), no on N, esc or q.
func NewPreview(st *Styles, title string, lines []string, yes, no tea.Msg) Prompt {
	return Prompt{question: title, lines: lines, page: true, yes: yes, no: no, yesKey: previewYes, noKey: previewNo, st: st}
}

// WithKeys is the prompt answered by yes and described with no (a tab's
// own bindings).
func (p Prompt) WithKeys(yes, no key.Binding) Prompt {
	p.yesKey, p.noKey = yes, no
	return p
}

// Yes is what y hands back; nil when there is nothing to confirm.
func (p Prompt) Yes() tea.Msg { return p.yes }

// Question is what the prompt asks (a preview's title).
func (p Prompt) Question() string { return p.question }

// Update implements Screen: a question takes the next key as its
// answer; a preview takes y (when there is something to run) and N/esc.
func (p Prompt) Update(msg tea.Msg) (Screen, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	switch {
	case !ok:
	case !p.page:
		p.answered, p.done = key.Matches(k, p.yesKey), true
	case p.yes != nil && key.Matches(k, p.yesKey):
		p.answered, p.done = true, true
	case key.Matches(k, p.noKey):
		p.done = true
	}
	return p, nil
}

// Result implements Resulter: Yes after y, else No (nil for nothing).
func (p Prompt) Result() tea.Msg {
	if p.answered {
		return p.yes
	}
	return p.no
}

// Done implements Finisher: answered.
func (p Prompt) Done() bool { return p.done }

// Capturing implements Screen: a question has every key (the next one
// answers it); a preview leaves the shell's keys alone.
func (p Prompt) Capturing() bool { return !p.page }

// Closes implements Screen: q closes a preview (its No is handed back);
// a question is only answered.
func (p Prompt) Closes(k tea.KeyMsg) bool { return p.page && k.String() == "q" }

// Title implements Screen.
func (p Prompt) Title() string {
	if p.page {
		return "preview"
	}
	return "prompt"
}

// SetSize implements Screen.
func (p Prompt) SetSize(w, h int) Screen { p.w, p.h = w, h; return p }

// ShortHelp implements help.KeyMap: its y and N.
func (p Prompt) ShortHelp() []key.Binding { return []key.Binding{p.yesKey, p.noKey} }

// FullHelp implements help.KeyMap.
func (p Prompt) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// View implements Screen: a preview's page; a question's text (it is
// drawn by InlineView below the page).
func (p Prompt) View() string {
	if !p.page {
		return p.question
	}
	s := p.st
	out := []string{s.Title.Render(p.question)}
	for _, l := range p.lines {
		out = append(out, Wrap("  "+l, max(p.w, 20))...)
	}
	help := s.Key.Render("y") + " run it · " + s.Key.Render("N/esc") + " run nothing"
	if p.yes == nil {
		help = s.Muted.Render("nothing to run") + " · " + s.Key.Render("esc") + " back"
	}
	out = append(out, "", help)
	return strings.Join(Fill(out, max(p.h, 1)), "\n")
}

// maxPromptLines bounds a question below the page.
const maxPromptLines = 3

// PromptLines is a question below the page: wrapped to w, at most three
// lines, with "[y/N]" always visible at its end.
func PromptLines(st *Styles, question string, w int) []string {
	const answer = " [y/N]"
	w = max(w, 20)
	lines := Wrap(st.Marks.Warn+" "+question, w)
	if len(lines) > maxPromptLines {
		lines = lines[:maxPromptLines]
		lines[maxPromptLines-1] += "…"
	}
	last := len(lines) - 1
	if ansi.StringWidth(lines[last])+len(answer) > w {
		lines[last] = ansi.Truncate(lines[last], w-len(answer)-1, "") + "…"
	}
	for i, l := range lines {
		lines[i] = st.Warn.Render(l)
	}
	lines[last] += st.Key.Render(answer)
	return lines
}

// Inline implements Inline: a question draws below the page, a preview
// is a page.
func (p Prompt) Inline() bool { return !p.page }

// InlineView implements Inline: the question's lines (PromptLines).
func (p Prompt) InlineView(st *Styles, w int) []string { return PromptLines(st, p.question, w) }
