package upload

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// View renders the screen, every line cut to the width.
func (m Model) View() string {
	var lines []string
	switch {
	case m.showHistory:
		lines = m.historyLines()
	case m.stage == stagePick:
		lines = m.pickLines()
	case m.stage == stagePlanning:
		lines = []string{m.title(), "", "checking " + m.fileName() + " …", "", m.muted("esc: back")}
	case m.stage == stageReport:
		lines = m.reportLines()
	case m.stage == stageSending:
		lines = m.sendingLines()
	default:
		lines = m.resultLines()
	}
	w, h := max(m.width, 20), max(m.height, 3)
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines, "\n")
}

func (m Model) title() string {
	t := "Upload ORDERS"
	if m.dest != "" {
		t += " " + m.dest
	}
	if m.path != "" && m.stage != stagePick {
		t += " — " + m.fileName()
	}
	return m.c.Styles.Title.Render(t)
}

// fileName is the chosen file's name, sanitised.
func (m Model) fileName() string { return termsafe.String(filepath.Base(m.path)) }

func (m Model) muted(s string) string { return m.c.Styles.Muted.Render(s) }

// pickLines: the directory, the picker's rows (sanitised line by line:
// it writes file names raw) with the cursor row highlighted, a note.
func (m Model) pickLines() []string {
	s := m.c.Styles
	lines := []string{m.title() + "  " + m.muted("choose a file · a all files · H history · esc close"),
		"dir " + termsafe.String(m.cwd())}
	lines = append(lines, common.PickerLines(m.picker, s)...)
	if len(lines) > m.height-1 {
		lines = lines[:max(m.height-1, 2)]
	}
	if m.note != "" {
		lines = append(lines, m.muted(m.note))
	}
	return lines
}

// mark is the state symbol of a check (colour is only a bonus).
func (m Model) mark(sev up.Severity) string {
	s := m.c.Styles
	switch sev {
	case up.OK:
		return s.OK.Render(s.Marks.OK)
	case up.Warning:
		return s.Warn.Render(s.Marks.Warn)
	case up.Blocking:
		return s.Error.Render(s.Marks.Fail)
	}
	return s.Muted.Render(s.Marks.Wait)
}

// reportLines: the pre-flight checks, then what the operator decides.
func (m Model) reportLines() []string {
	bottom := m.decisionLines()
	room := max(m.height-2-len(bottom), 1)
	lines := []string{m.title()}
	if m.planErr != nil {
		lines = append(lines, m.wrap(m.mark(up.Blocking)+" "+termsafe.String(m.planErr.Error()))...)
	} else {
		checks := m.plan.Preflight.Checks
		for i, c := range checks {
			if i == room-1 && len(checks) > room {
				lines = append(lines, m.muted(fmt.Sprintf("  … %d more lines", len(checks)-i)))
				break
			}
			lines = append(lines, m.mark(c.Severity)+" "+c.Text)
		}
	}
	return append(append(lines, ""), bottom...)
}

// decisionLines is the report's lower part: why it is blocked, the
// replay/new choice, the warning confirmation, or the key and send.
func (m Model) decisionLines() []string {
	s := m.c.Styles
	p := m.plan
	switch {
	case m.planErr != nil:
		return []string{s.Error.Render("cannot upload this file; nothing was sent"), m.muted("esc back")}
	case p.Preflight.Blocked():
		return append(m.wrap(s.Error.Render("blocked: "+termsafe.String(p.Preflight.Problem.Error()))), m.muted("esc back to the file list"))
	case p.NeedsChoice():
		prev := p.Decision.Previous
		return []string{
			s.Warn.Render("these bytes were already accepted under key " + termsafe.String(prev.Key)),
			m.muted("  upload " + termsafe.String(prev.UploadID) + ", " + stamp(prev.Time)),
			"  " + s.Key.Render("r") + " replay: key " + termsafe.String(p.ReplayKey) + "; the server answers replay, no new order",
			"  " + s.Key.Render("n") + " new upload: key " + termsafe.String(p.NewKey) + "; the partner receives the order again",
			"  " + s.Key.Render("N") + " abort (esc)",
		}
	case m.needsConfirm():
		return []string{s.Warn.Render(fmt.Sprintf("%d warning(s) above: send anyway?", len(p.Preflight.Warnings()))) +
			"  " + s.Key.Render("y") + " yes · " + s.Key.Render("N") + " no"}
	}
	lines := []string{s.Header.Render("Idempotency-Key") + "  " + termsafe.String(p.Key),
		m.muted("  " + termsafe.String(p.Explain()))}
	if m.editing {
		lines = append(lines, common.InputView(m.keyIn))
		if m.keyErr != "" {
			lines = append(lines, s.Error.Render(s.Marks.Fail+" "+m.keyErr))
		} else {
			lines = append(lines, s.OK.Render(s.Marks.OK+" valid"))
		}
		return append(lines, m.muted("enter use this key · esc keep the old one"))
	}
	return append(lines, s.Key.Render("y/enter")+" send · "+s.Key.Render("e")+" edit key · "+s.Key.Render("esc")+" back")
}

func (m Model) sendingLines() []string {
	return []string{m.title(), "",
		"sending " + m.fileName() + " under key " + termsafe.String(m.plan.Key) + " …", "",
		m.muted("esc cancels: the outcome is then unknown, and a retry reuses the key")}
}

// resultLines: the answer, the IDs, what to do.
func (m Model) resultLines() []string {
	s := m.c.Styles
	lines := []string{m.title()}
	if m.sendErr != nil {
		lines = append(lines, m.wrap(m.mark(up.Blocking)+" "+termsafe.String(m.sendErr.Error()))...)
		return append(lines, "", m.muted("enter/esc back to the file list"))
	}
	o := m.out
	r := o.Record
	head := m.mark(up.OK) + " " + s.OK.Render(o.Headline())
	if !o.Accepted() {
		head = m.mark(up.Blocking) + " " + s.Error.Render(o.Headline())
	}
	lines = append(lines, head)
	field := func(name, v string) {
		if v != "" {
			lines = append(lines, fmt.Sprintf("  %-13s %s", name, termsafe.String(v)))
		}
	}
	field("key", r.Key)
	field("upload id", r.UploadID)
	field("interchange", r.InterchangeID)
	field("status", r.Status)
	field("outcome", string(r.Outcome))
	field("correlation", r.CorrelationID)
	field("time", stamp(r.Time))
	if o.Err != nil {
		lines = append(append(lines, ""), m.wrap(s.Error.Render(termsafe.String(o.Err.Error())))...)
	}
	again := "press R to retry"
	if !o.Retry {
		again = "choose the file again"
	}
	if adv := o.Advice(again); adv != "" {
		lines = append(lines, m.wrap("what to do: "+adv)...)
	}
	if o.Accepted() {
		lines = append(lines, m.muted("sending these bytes again asks: replay (same key) or new upload (next key)"))
	}
	if o.RecordErr != nil {
		lines = append(lines, m.wrap(s.Error.Render("the result could not be recorded in the upload history: "+
			termsafe.String(o.RecordErr.Error())+"; the key numbering may repeat key "+termsafe.String(r.Key)))...)
	}
	help := s.Key.Render("enter/esc") + " back · " + s.Key.Render("H") + " history"
	if o.Retry {
		help = s.Key.Render("R") + " retry with the same key · " + help
	}
	return append(lines, "", help)
}

// historyLines: the connection's uploads, newest first.
func (m Model) historyLines() []string {
	s := m.c.Styles
	lines := []string{s.Title.Render("Upload history") + "  " + m.muted("newest first · H/esc close")}
	switch {
	case m.historyErr != nil:
		return append(lines, s.Error.Render(termsafe.String(m.historyErr.Error())))
	case m.history == nil:
		return append(lines, m.muted("loading …"))
	case len(m.history) == 0:
		return append(lines, m.muted("no uploads on this connection yet"))
	}
	lines = append(lines, s.Header.Render(fmt.Sprintf("%-19s  %-8s  %-4s  %s", "time", "status", "HTTP", "key")))
	w := max(m.width, 20)
	for i, r := range m.history {
		if len(lines) >= m.height-2 {
			lines = append(lines, m.muted(fmt.Sprintf("… %d more", len(m.history)-i)))
			break
		}
		status := string(r.Outcome)
		if r.Replay {
			status = "replay"
		}
		httpStatus := ""
		if r.HTTPStatus != 0 {
			httpStatus = fmt.Sprint(r.HTTPStatus)
		}
		lines = append(lines, fmt.Sprintf("%-19s  %-8s  %-4s  %s", stamp(r.Time), status, httpStatus, termsafe.String(r.Key)))
		// The IDs in full (people copy them): on one line when it fits.
		ids := []string{}
		if r.UploadID != "" {
			ids = append(ids, "  uploadId "+termsafe.String(r.UploadID))
		}
		if r.InterchangeID != "" {
			ids = append(ids, "  interchangeId "+termsafe.String(r.InterchangeID))
		}
		if one := strings.Join(ids, ""); len(ids) > 1 && ansi.StringWidth(one) <= w {
			ids = []string{one}
		}
		for _, l := range ids {
			lines = append(lines, m.muted(l))
		}
	}
	return lines
}

// stamp is a local time to the second, "" for the zero time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// maxWrap is how many screen lines one wrapped text may take.
const maxWrap = 5

// wrap breaks safe text at words to the width, at most maxWrap lines
// (the View cuts each line to the width anyway).
func (m Model) wrap(t string) []string {
	parts := common.Wrap(t, max(m.width, 20)) // keys and IDs are never split
	if len(parts) > maxWrap {
		parts = append(parts[:maxWrap-1], parts[maxWrap-1]+" …")
	}
	return parts
}
