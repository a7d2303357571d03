package fix

import (
	"context"
	"fmt"
	"github.com/nutrab2b/b2bx/edi/pin"
	"os/exec"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/clip"
	"github.com/nutrab2b/b2bx/internal/human"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// Backend is the domain calls the flow makes (a seam for tests).
type Backend interface {
	// Prepare reads the rejected upload and writes its work copy.
	Prepare(ctx context.Context, rec spool.UploadRecord) (*Source, string, error)
	// Review reviews the edited work copy (up.ReviewFix).
	Review(ctx context.Context, src *Source, rec spool.UploadRecord, path string) (*up.Review, error)
	// Send uploads the fix under the plan's key.
	Send(ctx context.Context, p *up.Plan) (*up.Outcome, error)
}

// domain runs the flow on an open connection.
type domain struct {
	conn     *session.Conn
	l        *up.Linked
	load     up.SelectLoader  // the partner history's answers (track.SelectLoader); nil: the store
	verdicts up.VerdictLoader // their verdicts (track.VerdictLoader); nil: from load
}

// NewBackend is the real backend over an open connection and its
// linked answers; load reads the answers of the partner history the
// review compares with (track.SelectLoader; nil reads the store), and
// verdicts their verdicts (track.VerdictLoader: kept in the index; nil:
// from load).
func NewBackend(conn *session.Conn, l *up.Linked, load up.SelectLoader, verdicts up.VerdictLoader) Backend {
	return domain{conn: conn, l: l, load: load, verdicts: verdicts}
}

func (d domain) Prepare(ctx context.Context, rec spool.UploadRecord) (*Source, string, error) {
	src, err := Load(ctx, d.conn.Spool, d.l, rec)
	if err != nil {
		return nil, "", err
	}
	path, err := up.NewWorkCopy(up.WorkDir(d.conn.Spool, rec.ConnectionID), rec, src.Sent)
	return src, path, err
}

func (d domain) Review(ctx context.Context, src *Source, rec spool.UploadRecord, path string) (*up.Review, error) {
	t := d.conn.Target
	opts, err := up.ConnectionOptions(t.Directory, t.MIG, false)
	if err != nil {
		return nil, fmt.Errorf("%w (fix the rules file or the profile's mig, then E to review again)", err)
	}
	if d.verdicts != nil {
		opts = opts.WithHistoryVerdicts(ctx, d.conn.Spool, t.ConnectionID, d.verdicts)
	} else {
		opts = opts.WithHistory(ctx, d.conn.Spool, t.ConnectionID, d.load)
	}
	return up.ReviewFix(ctx, d.conn.Spool, d.l, rec, src.Sent, path, src.Pins, opts)
}

func (d domain) Send(ctx context.Context, p *up.Plan) (*up.Outcome, error) {
	return up.Send(ctx, d.conn.Client, p)
}

// stage is where the flow is.
type stage int

const (
	stagePreparing stage = iota // writing the work copy
	stageEditing                // the editor has the terminal
	stageReviewing              // reading the edited file
	stageReview                 // the review: y sends, E edits again
	stageSending
	stageResult
)

// Model is the E flow for one rejected upload (a common.Screen).
type Model struct {
	common.Base
	c      *common.Common
	owner  common.TabID
	be     Backend
	rec    spool.UploadRecord
	getenv func(string) string
	ctx    context.Context
	stop   context.CancelFunc
	w, h   int

	stage  stage
	src    *Source
	path   string // the work copy
	review *up.Review
	out    *up.Outcome
	err    error // the last step's failure, shown; the flow may go on
}

// Messages of the flow's own commands (the stack addresses them).
type (
	preparedMsg struct {
		src  *Source
		path string
		err  error
	}
	editedMsg   struct{ err error }
	reviewedMsg struct {
		r   *up.Review
		err error
	}
	sentMsg struct {
		out *up.Outcome
		err error
	}
)

// New is the E flow for the rejected upload rec; getenv finds $VISUAL
// and $EDITOR (os.Getenv in the app).
func New(c *common.Common, owner common.TabID, be Backend, rec spool.UploadRecord, getenv func(string) string) Model {
	ctx, stop := context.WithCancel(context.Background())
	return Model{c: c, owner: owner, be: be, rec: rec, getenv: getenv, ctx: ctx, stop: stop, w: c.Width, h: c.Height}
}

// Init writes the work copy.
func (m Model) Init() tea.Cmd {
	be, ctx, rec := m.be, m.ctx, m.rec
	return func() tea.Msg {
		src, path, err := be.Prepare(ctx, rec)
		return preparedMsg{src, path, err}
	}
}

// Update runs the flow: the work copy → the editor → the review → y.
func (m Model) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case preparedMsg:
		if msg.err != nil {
			m.stage, m.err = stageResult, fmt.Errorf("no work copy: %w", msg.err)
			return m, nil
		}
		m.src, m.path = msg.src, msg.path
		return m.edit()
	case editedMsg:
		if msg.err != nil {
			m.stage, m.err = stageReview, fmt.Errorf("the editor failed: %w (E opens it again)", msg.err)
			return m, nil
		}
		return m.startReview()
	case reviewedMsg:
		m.stage, m.review, m.err = stageReview, msg.r, msg.err
		return m, nil
	case sentMsg:
		m.stage, m.out, m.err = stageResult, msg.out, msg.err
		return m, nil
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

// edit hands the terminal to the editor on the work copy.
func (m Model) edit() (Model, tea.Cmd) {
	// The file is about to change: an earlier review no longer describes
	// it, so nothing is sendable until it is reviewed again.
	m.stage, m.err, m.review = stageEditing, nil, nil
	args := up.EditorArgs(m.getenv, m.path)
	c := exec.Command(args[0], args[1:]...)
	return m, func() tea.Msg {
		// Stop ends the editor and what it started when the app is told
		// to end while it runs (the root runs it with RunContext).
		return common.Exec{Cmd: c, Stop: func() error { return up.StopEditor(c.Process) },
			Done: func(err error) tea.Msg { return editedMsg{err} }}
	}
}

func (m Model) startReview() (Model, tea.Cmd) {
	m.stage, m.err = stageReviewing, nil
	be, ctx, src, rec, path := m.be, m.ctx, m.src, m.rec, m.path
	return m, func() tea.Msg {
		r, err := be.Review(ctx, src, rec, path)
		return reviewedMsg{r, err}
	}
}

// Sendable is why the reviewed fix may not be sent, "" when y sends it.
func (m Model) Sendable() string {
	r := m.review
	switch {
	case m.stage != stageReview:
		return "not reviewed yet"
	case r == nil:
		return "the edited file could not be reviewed"
	case r.Preflight.Blocked():
		return "the pre-flight blocks it: " + termsafe.String(r.Preflight.Problem.Error())
	case r.Refused != nil:
		return termsafe.String(r.Refused.Error())
	case r.Plan == nil || r.Plan.Key == "" || r.Plan.NeedsChoice():
		return "these bytes were already accepted: u uploads them with the replay/new choice"
	}
	return ""
}

func (m Model) key(k tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case m.stage == stageResult && m.out != nil && key.Matches(k, common.CopyKey):
		r := m.out.Record
		var items []common.CopyItem
		for _, it := range clip.ForUpload(r) {
			items = append(items, common.CopyItem{Label: it.Label, Value: it.Value})
		}
		return m, common.CopyCmd(m.owner, items)
	case m.stage == stageReview && k.String() == "E" && m.path != "":
		return m.edit()
	case m.stage == stageReview && k.String() == "y":
		if why := m.Sendable(); why != "" {
			m.err = fmt.Errorf("not sent: %s", why)
			return m, nil
		}
		m.stage = stageSending
		be, ctx, p := m.be, m.ctx, m.review.Plan
		return m, func() tea.Msg {
			out, err := be.Send(ctx, p)
			return sentMsg{out, err}
		}
	}
	return m, nil
}

// Closes: q and esc close the flow except while the fix is being sent
// (the outcome would be unknown) or the editor runs.
func (m Model) Closes(k tea.KeyMsg) bool {
	if m.stage == stageSending || m.stage == stageEditing {
		return false
	}
	return key.Matches(k, common.CloseKey)
}

// Close stops the running step.
func (m Model) Close() { m.stop() }

// SetSize implements common.Screen.
func (m Model) SetSize(w, h int) common.Screen { m.w, m.h = w, h; return m }

// Title implements common.Screen.
func (m Model) Title() string { return "fix and resend" }

// Outcome is the send's result once there is one.
func (m Model) Outcome() *up.Outcome { return m.out }

// WorkPath is the work copy ("" before it exists).
func (m Model) WorkPath() string { return m.path }

var (
	sendKey = key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "send the fix (new key)"))
	editKey = key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "edit again"))
)

// ShortHelp implements help.KeyMap: y only while the review allows
// sending (the footer never offers what the review refuses).
func (m Model) ShortHelp() []key.Binding {
	if m.stage != stageReview {
		return nil
	}
	if m.Sendable() != "" {
		return []key.Binding{editKey}
	}
	return []key.Binding{sendKey, editKey}
}

// FullHelp implements help.KeyMap.
func (m Model) FullHelp() [][]key.Binding {
	if m.stage == stageReview && m.Sendable() == "" {
		return [][]key.Binding{{sendKey, editKey}}
	}
	return [][]key.Binding{{editKey}}
}

// View shows the step: the review (pre-flight, diff, key plan), the
// send's answer, or what runs.
func (m Model) View() string {
	s := m.c.Styles
	rec := m.rec
	lines := []string{s.Title.Render("Fix and resend") + "  " + s.Muted.Render("the rejected upload key "+termsafe.String(rec.Key)+" · upload "+termsafe.String(rec.UploadID))}
	if m.src != nil {
		a := m.src.Rejection.Answer
		lines = append(lines, s.Muted.Render("rejected by "+termsafe.String(a.Type)+" in delivery "+termsafe.String(a.ID)+": "+a.Outcome()))
		for _, p := range m.src.Pins {
			lines = append(lines, s.Error.Render("  "+s.Marks.Fail+" ")+p.Text)
		}
	}
	if m.path != "" {
		lines = append(lines, s.Muted.Render("work copy ")+termsafe.String(m.path))
	}
	lines = append(lines, "")
	switch m.stage {
	case stagePreparing:
		lines = append(lines, "writing the work copy…")
	case stageEditing:
		lines = append(lines, "the editor has the terminal; save and quit it to review the fix")
	case stageReviewing:
		lines = append(lines, "reading the edited file…")
	case stageReview:
		lines = append(lines, m.reviewLines()...)
	case stageSending:
		lines = append(lines, "sending the fix under key "+termsafe.String(m.review.Plan.Key)+"…")
	case stageResult:
		lines = append(lines, m.resultLines()...)
	}
	if m.err != nil {
		lines = append(lines, "", s.Error.Render(s.Marks.Fail+" "+termsafe.String(m.err.Error())))
	}
	var out []string
	for _, l := range lines {
		out = append(out, common.Wrap(l, max(m.w, 20))...)
	}
	return strings.Join(common.Fill(out, max(m.h, 1)), "\n")
}

func (m Model) reviewLines() []string {
	s, r := m.c.Styles, m.review
	if r == nil {
		return []string{s.Error.Render("cannot send: " + m.Sendable()), s.Key.Render("E") + " edit again · " + s.Key.Render("esc") + " leave (the work copy stays)"}
	}
	lines := []string{s.Header.Render("Pre-flight")}
	for _, c := range r.Preflight.Checks {
		mark := s.OK.Render(s.Marks.OK)
		switch c.Severity {
		case up.Warning:
			mark = s.Warn.Render(s.Marks.Warn)
		case up.Blocking:
			mark = s.Error.Render(s.Marks.Fail)
		}
		lines = append(lines, "  "+mark+" "+c.Text)
	}
	lines = append(lines, s.Header.Render("Against the rejected bytes"))
	switch {
	case r.Unchanged:
		lines = append(lines, s.Warn.Render("  unchanged: the edit left the rejected bytes as they were"))
	case len(r.Changes) == 0:
		lines = append(lines, s.Muted.Render("  no segment differs"))
	}
	for i, c := range r.Changes {
		if i == 12 {
			lines = append(lines, s.Muted.Render(fmt.Sprintf("  … %d more changes", len(r.Changes)-i)))
			break
		}
		lines = append(lines, "  "+c.String())
	}
	for i, p := range m.srcPins() {
		if i < len(r.Touched) {
			what := s.Warn.Render("  ! not touched: ")
			if r.Touched[i] {
				what = s.OK.Render("  " + s.Marks.OK + " edited: ")
			}
			lines = append(lines, what+p.Text)
		}
	}
	for _, n := range r.Notes {
		lines = append(lines, s.Warn.Render("note: ")+n)
	}
	if r.Plan != nil {
		lines = append(lines, s.Header.Render("Key plan"), "  Idempotency-Key "+termsafe.String(r.Plan.Key)+s.Muted.Render("  ("+termsafe.String(r.Plan.Explain())+")"),
			"  recorded as a resend of "+termsafe.String(r.Plan.Fixes))
	}
	if why := m.Sendable(); why != "" {
		return append(lines, "", s.Error.Render("cannot send: "+why), s.Key.Render("E")+" edit again · "+s.Key.Render("esc")+" leave (the work copy stays)")
	}
	lines = append(lines, "")
	if n := len(r.Preflight.Warnings()); n > 0 {
		// The partner's rules and what it accepted before warn, as on the
		// upload screen: y is the operator's confirmation.
		lines = append(lines, s.Warn.Render(s.Marks.Warn+" "+human.Count(n, "warning", "warnings")+" above (partner rules, what this partner accepted before): y sends the fix anyway"))
	}
	return append(lines, s.Key.Render("y")+" send the fix · "+s.Key.Render("E")+" edit again · "+s.Key.Render("esc")+" leave, nothing sent")
}

func (m Model) srcPins() []pin.Pin {
	if m.src == nil {
		return nil
	}
	return m.src.Pins
}

func (m Model) resultLines() []string {
	s, o := m.c.Styles, m.out
	if o == nil {
		return []string{s.Key.Render("esc") + " back"}
	}
	head := s.OK.Render(s.Marks.OK + " " + o.Headline())
	if !o.Accepted() {
		head = s.Error.Render(s.Marks.Fail + " " + o.Headline())
	}
	r := o.Record
	lines := []string{head,
		"  key         " + termsafe.String(r.Key),
		"  upload id   " + termsafe.String(r.UploadID),
		"  status      " + fmt.Sprint(r.HTTPStatus),
		"  resend of   " + termsafe.String(r.Fixes),
	}
	if r.CorrelationID != "" {
		lines = append(lines, "  correlation "+termsafe.String(r.CorrelationID))
	}
	if o.Err != nil {
		lines = append(lines, s.Error.Render(termsafe.String(o.Err.Error())))
	}
	return append(lines, "", s.Key.Render("y")+" copy the new key or an ID · "+s.Key.Render("esc")+" back to the uploads")
}

// Left is what the fix flow hands its owner when it leaves its stack
// (common.Resulter): a resend may have been made, so the owner links its
// answers again.
type Left struct{}

// Result implements common.Resulter.
func (m Model) Result() tea.Msg { return Left{} }
