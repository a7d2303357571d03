package track

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi/answers"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/who"
)

// SLA is how long a partner has to answer an accepted upload.
type SLA struct {
	Contrl time.Duration `json:"contrl"` // sla.contrl: the CONTRL (syntax answer)
	Ordrsp time.Duration `json:"ordrsp"` // sla.ordrsp: the ORDRSP (business answer)
}

// DefaultSLA is used when a profile sets none.
var DefaultSLA = SLA{Contrl: 15 * time.Minute, Ordrsp: 24 * time.Hour}

// SLAFunc returns the SLA of a connection ID; nil means DefaultSLA for all.
type SLAFunc func(connectionID string) SLA

func (f SLAFunc) of(conn string) SLA {
	if f == nil {
		return DefaultSLA
	}
	s := f(conn)
	if s.Contrl <= 0 {
		s.Contrl = DefaultSLA.Contrl
	}
	if s.Ordrsp <= 0 {
		s.Ordrsp = DefaultSLA.Ordrsp
	}
	return s
}

// UploadState is where one accepted upload stands with its answers.
type UploadState struct {
	Conn   string    `json:"connection,omitempty"`
	Key    string    `json:"key,omitempty"`
	Orders []string  `json:"orders,omitempty"`
	At     time.Time `json:"at,omitzero"`
	// Answers are the outcomes of its answers in time order
	// ("CONTRL: accepted").
	Answers []string `json:"answers,omitempty"`
	// Overdue says which answer is late: "no CONTRL 32m after the upload
	// (sla.contrl 15m)".
	Overdue []string `json:"overdue,omitempty"`
	// NeedsAction says what rejected it: "CONTRL: rejected (2 errors)".
	NeedsAction []string `json:"needsAction,omitempty"`
	// Complete: both its CONTRL and its ORDRSP arrived.
	Complete bool `json:"complete,omitempty"`
	// ResentAs says which later upload sent its order again ("sent again
	// as upload … (key …)"); the upload is then history. Terminal-safe.
	ResentAs string `json:"resentAs,omitempty"`
	// The server's IDs of the upload, for tickets.
	UploadID      string `json:"uploadId,omitempty"`
	InterchangeID string `json:"interchangeId,omitempty"`
	// By is who sent it (a team store's upload); zero for this machine's.
	By who.Who `json:"by,omitzero"`
}

// IsOverdue reports whether an answer is late.
func (s UploadState) IsOverdue() bool { return len(s.Overdue) > 0 }

// IsNeedsAction reports whether an answer rejected the upload.
func (s UploadState) IsNeedsAction() bool { return len(s.NeedsAction) > 0 }

// Flag is the state in one word for tables: "needs action", "overdue",
// "resent" (a later upload sent its order again), "answered" (CONTRL and
// ORDRSP arrived), "awaiting" (an answer is still to come, within the
// SLA) or "" (no accepted upload).
func (s UploadState) Flag() string {
	switch {
	case s.ResentAs != "":
		return "resent"
	case s.IsNeedsAction():
		return "needs action"
	case s.IsOverdue():
		return "overdue"
	case s.Key == "":
		return ""
	case s.Complete:
		return "answered"
	}
	return "awaiting"
}

// Summary is the state in a line.
func (s UploadState) Summary() string {
	var parts []string
	parts = append(parts, s.NeedsAction...)
	parts = append(parts, s.Overdue...)
	if s.ResentAs != "" {
		return strings.Join(append(slices.Clone(s.Answers), s.ResentAs), "; ")
	}
	if len(parts) == 0 {
		if len(s.Answers) > 0 {
			return strings.Join(s.Answers, "; ")
		}
		if s.Key != "" {
			return "awaiting the CONTRL and the ORDRSP"
		}
	}
	return strings.Join(parts, "; ")
}

// Assess links the answers among items to the accepted uploads among them
// (the rules of package answers, per connection: linkItems) and says for
// each upload whether it is overdue or needs action at now.
func Assess(items []Item, sla SLAFunc, now time.Time) []UploadState {
	by, conns := linkItems(items)
	return assessLinks(by, conns, sla, now)
}

// assessLinks is Assess over items already linked (linkItems).
func assessLinks(by map[string]*connLinks, conns []string, sla SLAFunc, now time.Time) []UploadState {
	var out []UploadState
	for _, c := range conns {
		cl := by[c]
		lim := sla.of(c)
		for i := range cl.ups {
			st := StateOf(cl.x, i, lim, now)
			st.Conn = c
			if i < len(cl.items) && cl.items[i] != nil {
				st.By = cl.items[i].By
			}
			out = append(out, st)
		}
	}
	return out
}

// StateOf is where upload i of x stands at now under sla: its answers
// (linked by the rules of package answers), overdue, needs action. An
// upload sent again (answers.Index.ResentBy) is history: neither overdue
// nor needing action, its conversation follows the latest attempt. The
// uploads screen (H), find, the dashboard and --overdue share it.
func StateOf(x *answers.Index, i int, sla SLA, now time.Time) UploadState {
	lim := SLAFunc(func(string) SLA { return sla }).of("")
	u := x.Uploads[i]
	st := UploadState{Key: u.Key, Orders: u.BGMNumbers, At: u.At, UploadID: u.UploadID, InterchangeID: u.InterchangeID}
	var contrl, ordrsp bool
	for _, j := range x.AnswersOf(i) {
		a := x.Answers[j]
		st.Answers = append(st.Answers, a.Outcome())
		switch a.Type {
		case "CONTRL":
			contrl = true
		case "ORDRSP":
			ordrsp = true
		}
		if a.Rejects() {
			st.NeedsAction = append(st.NeedsAction, a.Outcome())
		}
	}
	st.Complete = contrl && ordrsp
	if k, ok := x.ResentBy(i); ok {
		r := x.Uploads[k]
		st.ResentAs = "sent again as upload " + termsafe.String(orDash(r.UploadID)) + " (key " + termsafe.String(r.Key) + ")"
		st.NeedsAction = nil
		return st
	}
	age := now.Sub(u.At)
	if !contrl && age > lim.Contrl {
		st.Overdue = append(st.Overdue, fmt.Sprintf("no CONTRL %s after the upload (sla.contrl %s)", Age(age), Age(lim.Contrl)))
	}
	if !ordrsp && len(st.NeedsAction) == 0 && age > lim.Ordrsp {
		st.Overdue = append(st.Overdue, fmt.Sprintf("no ORDRSP %s after the upload (sla.ordrsp %s)", Age(age), Age(lim.Ordrsp)))
	}
	return st
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// assessConversation is the state of a conversation's latest accepted
// upload.
func assessConversation(by map[string]*connLinks, conns []string, sla SLAFunc, now time.Time) UploadState {
	sts := assessLinks(by, conns, sla, now)
	if len(sts) == 0 {
		return UploadState{}
	}
	latest := sts[0]
	for _, s := range sts[1:] {
		if !s.At.Before(latest.At) {
			latest = s
		}
	}
	return latest
}

// UploadStates is where every accepted upload at or after since stands
// (on conn, or every connection for ""), oldest first: the answers of
// its conversations linked by linkItems, then StateOf. Overdue, the
// dashboard's figures and the bundle ask it.
func (x *Index) UploadStates(ctx context.Context, since time.Time, conn string, sla SLAFunc) ([]UploadState, error) {
	ups, err := x.b.ByKind(ctx, KindUpload, since)
	if err != nil {
		return nil, err
	}
	var convs []string
	seen := map[string]bool{}
	for _, u := range ups {
		if conn != "" && u.Conn != conn || u.State != string(spool.OutcomeAccepted) {
			continue
		}
		for _, k := range u.Keys {
			if k.Kind == KeyConv && !seen[k.Value] {
				seen[k.Value] = true
				convs = append(convs, k.Value)
			}
		}
	}
	if len(convs) == 0 {
		return nil, nil
	}
	items, err := x.b.ByConv(ctx, convs)
	if err != nil {
		return nil, err
	}
	var out []UploadState
	for _, s := range Assess(items, sla, x.opts.Now()) {
		if (conn == "" || s.Conn == conn) && !s.At.Before(since) {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, nil
}

// Overdue returns every accepted upload at or after since that is overdue
// or needs action, oldest first: one per conversation's latest attempt
// (an upload sent again is neither: StateOf).
func (x *Index) Overdue(ctx context.Context, since time.Time, conn string, sla SLAFunc) ([]UploadState, error) {
	states, err := x.UploadStates(ctx, since, conn, sla)
	if err != nil {
		return nil, err
	}
	var out []UploadState
	for _, s := range states {
		if s.IsOverdue() || s.IsNeedsAction() {
			out = append(out, s)
		}
	}
	return out, nil
}

// Age shows a duration the way people say it: "45s", "32m", "5h10m",
// "3d4h".
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%dm", h, m)
	}
	days, h := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour)
	if h == 0 {
		return fmt.Sprintf("%dd", days)
	}
	return fmt.Sprintf("%dd%dh", days, h)
}
