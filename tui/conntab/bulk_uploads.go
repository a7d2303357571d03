package conntab

import (
	"context"
	"fmt"
	"maps"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// toggleMark is space on the uploads screen: mark the selected upload.
func (a answersScreen) toggleMark() answersScreen {
	r, ok := a.selected()
	if !ok || r.kind != rowUpload {
		return a
	}
	next := maps.Clone(a.marks)
	if next == nil {
		next = map[string]bool{}
	}
	if next[r.id] {
		delete(next, r.id)
	} else {
		next[r.id] = true
	}
	a.marks = next
	return a.key(tea.KeyMsg{Type: tea.KeyDown})
}

// markAll is *: every upload, or none when all are marked.
func (a answersScreen) markAll() (answersScreen, tea.Cmd) {
	next := map[string]bool{}
	all := true
	for _, r := range a.rows {
		if r.kind == rowUpload {
			all = all && a.marks[r.id]
			next[r.id] = true
		}
	}
	if all {
		a.marks = nil
		return a, infoCmd("marks cleared")
	}
	a.marks = next
	return a, infoCmd(fmt.Sprintf("%d uploads marked: R previews replaying them, S resending them", len(next)))
}

// marked are the marked upload records, oldest first.
func (a answersScreen) marked() []spool.UploadRecord {
	var out []spool.UploadRecord
	if a.linked == nil {
		return nil
	}
	for _, r := range a.rows {
		if r.kind == rowUpload && a.marks[r.id] {
			out = append(out, a.linked.Uploads[r.upload])
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 { // rows are newest first
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// clearMarksMsg tells the uploads screen its marks were acted on.
type clearMarksMsg struct{}

// bulkUploadReq is y on the uploads preview: send the steps in order.
type bulkUploadReq struct {
	msgBase
	steps []up.UploadStep
}

// previewUploads is R (replay) and S (resend as new orders) with marked
// uploads: each one's key and the answer expected, refused ones with
// the reason (a rejected upload is fixed with E, never resent as it is).
func (a answersScreen) previewUploads(asNew bool) tea.Cmd {
	marked := a.marked()
	if len(marked) == 0 {
		return infoCmd("mark uploads first: space marks one, * all of them")
	}
	l := a.linked
	rejected := map[string]bool{}
	for _, r := range up.Rejections(l) {
		rejected[strings.ToLower(r.Upload.SHA256)] = true
	}
	store, conn, tab, c := a.store, marked[0].ConnectionID, a.tab, a.c
	mode, title := up.Replay, "Replay the marked uploads"
	if asNew {
		mode, title = up.Resend, "Resend the marked uploads as new orders"
	}
	return func() tea.Msg { // the history is read here, off Update
		hist, err := up.History(store, conn)
		if err != nil {
			return common.Info{Text: "the upload history cannot be read: " + capText(termsafe.String(err.Error())), Err: true}
		}
		steps := up.UploadPlan(marked, up.UploadInput{History: hist,
			Rejected: func(sha string) bool { return rejected[strings.ToLower(sha)] }}, mode)
		var yes tea.Msg // nil: every step is refused, nothing to send
		for _, st := range steps {
			if st.Key != "" {
				yes = bulkUploadReq{msgBase: msgBase{tab: tab}, steps: steps}
				break
			}
		}
		return common.Opened{Tab: tab, Screen: common.NewPreview(c.Styles, title, up.UploadPreview(steps), yes, nothingRun)}
	}
}

// runBulkUploads sends the steps one at a time in the background and
// stops at the first that is not accepted; the result is a screen
// listing each answer. esc stops it (the step on its way may arrive: a
// retry reuses its key).
func (m Model) runBulkUploads(req bulkUploadReq) (Model, tea.Cmd) {
	if m.conn == nil {
		return m, infoErrCmd("this tab has no connection to upload on")
	}
	m.stack.Update(clearMarksMsg{}) // the uploads screen: its marks are used up
	reqID, ctx := m.stack.Prepare(context.Background(), "sending the marked uploads")
	conn, tab, c := m.conn, m.id, m.c
	return m, func() tea.Msg {
		lines := sendSteps(ctx, req.steps, func(ctx context.Context, st up.UploadStep) (*up.Outcome, error) {
			return up.SendStep(ctx, conn.Spool, conn.Client, conn.Target.ConnectionID, st)
		})
		return common.Opened{Tab: tab, Req: reqID, Screen: common.NewPreview(c.Styles, "Marked uploads sent", lines, nil, reloadReq{msgBase{tab: tab}})} // leaving it links the answers again
	}
}

// sendSteps runs the steps in order, refused ones skipped, until the
// first that fails, and says what each got.
func sendSteps(ctx context.Context, steps []up.UploadStep, send func(context.Context, up.UploadStep) (*up.Outcome, error)) []string {
	var lines []string
	for i, st := range steps {
		what := fmt.Sprintf("%d. %s", i+1, termsafe.String(st.Record.BusinessID))
		if st.Key == "" {
			lines = append(lines, what+": not sent, "+st.Why)
			continue
		}
		o, err := send(ctx, st)
		switch {
		case err != nil:
			lines = append(lines, what+": not sent: "+capText(termsafe.String(err.Error())), "stopped at the first failure; the rest was not sent")
			return lines
		case !o.Accepted():
			lines = append(lines, what+": "+o.Headline()+" (key "+termsafe.String(o.Record.Key)+")", "stopped at the first failure; the rest was not sent")
			return lines
		}
		lines = append(lines, fmt.Sprintf("%s: %s under key %s (expected %s)", what, o.Headline(), termsafe.String(o.Record.Key), st.Expect))
	}
	return lines
}
