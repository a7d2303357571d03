package eventview

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// minDetailMsgLines is the least room the finding's message gets in the
// detail pane; beyond it the envelope fields come first.
const minDetailMsgLines = 2

// detailLines is the pane under the findings: the selected finding's
// whole message, then the envelope fields of its event (or its delivery),
// at most h lines.
func (m Model) detailLines(f findingRow, h int) []string {
	st := m.c.Styles
	w := max(m.width, 20)
	var fields []string
	switch {
	case f.event >= 0 && f.event < len(m.rep.raw.Events):
		fields = m.eventFields(m.rep.raw.Events[f.event])
	case f.delivery >= 0 && f.delivery < len(m.rep.raw.Deliveries):
		fields = m.deliveryFields(f.delivery)
	default:
		fields = []string{m.muted("about the whole set of captures, not one event")}
	}
	room := max(h-1-len(fields), minDetailMsgLines)
	msg := common.Wrap(f.msg, w) // at spaces only: an ID or key is never split
	if len(msg) > room {
		msg = msg[:room]
		msg[room-1] = ansi.Truncate(msg[room-1], w-1, "") + "…"
	}
	lines := append([]string{st.Header.Render("Finding " + f.code + " · " + f.where)}, msg...)
	lines = append(lines, fields...)
	if len(lines) > h {
		lines = lines[:h]
	}
	return lines
}

// eventFields are an event's envelope fields as sent (sanitised, long
// values clipped).
func (m Model) eventFields(ev events.Event) []string {
	st := m.c.Styles
	v := func(s string) string { return human.OrDash(termsafe.String(human.Clip(s, 120))) }
	label := func(s string) string { return st.Muted.Render(s) }
	where := fmt.Sprintf("event #%d · %d bytes · %s", ev.Index, ev.Bytes, m.deliveryName(ev.Delivery))
	if ev.Position >= 0 {
		where += fmt.Sprintf(", batch position %d", ev.Position)
	}
	seq := "-"
	if ev.Sequence > 0 {
		seq = fmt.Sprint(ev.Sequence)
	}
	return []string{
		label("outcome ") + outcomeText(ev.Outcome) + " · " + where,
		label("id ") + v(ev.ID) + " · " + label("type ") + v(ev.Type),
		label("sender ") + v(ev.Sender) + " → " + label("receiver ") + v(ev.Receiver) + " · " + label("subject ") + v(ev.Subject) + " · " + label("sequence ") + seq,
		label("idempotencykey ") + v(ev.IdempotencyKey),
		label("correlationid ") + v(ev.CorrelationID) + " · " + label("causationid ") + v(ev.CausationID),
		label("time ") + v(ev.Time) + " · " + label("env ") + v(ev.Env) + " · " + label("source ") + v(ev.Source),
	}
}

// outcomeText says what a receiver does with the event, with the
// platform code it answers.
func outcomeText(o events.Outcome) string {
	switch o {
	case events.OutcomeDuplicate:
		return "duplicate (answered DUPLICATE, " + events.NBDuplicate + ")"
	case events.OutcomeParked:
		return "parked (" + events.NBParked + ", waits for the gap)"
	case events.OutcomeReleased:
		return "released (parked, then processed)"
	case "":
		return "-"
	}
	return string(o)
}

// deliveryFields describe a delivery and its signature verdict.
func (m Model) deliveryFields(di int) []string {
	d := m.rep.raw.Deliveries[di]
	kind := "one event"
	if d.Batch {
		kind = "batch of " + countNoun(len(d.Events), "event", "events")
	}
	line := fmt.Sprintf("%s · %d bytes · %s", m.deliveryName(di), d.Bytes, kind)
	if d.Rejected {
		line += " · rejected as a whole"
	}
	lines := []string{line}
	for _, s := range m.rep.sigs {
		if s.delivery == di {
			lines = append(lines, s.line)
		}
	}
	return lines
}

// deliveryName is "delivery D1 002.http" (sanitised).
func (m Model) deliveryName(di int) string {
	if di < 0 || di >= len(m.rep.raw.Deliveries) {
		return "no delivery"
	}
	return fmt.Sprintf("delivery D%d %s", di, termsafe.String(human.Clip(baseName(m.rep.raw.Deliveries[di].Name), 80)))
}

func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
