package conntab

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// infoCmd and infoErrCmd put a short note into the shell's footer.
func infoCmd(text string) tea.Cmd {
	return func() tea.Msg { return common.Info{Text: text} }
}

func infoErrCmd(text string) tea.Cmd {
	return func() tea.Msg { return common.Info{Text: text, Err: true} }
}

// maxErrText caps an error's text in the footer.
const maxErrText = 400

// apiErrorMsg is an ErrorMsg without the tab, for errorMsgCmd.
type apiErrorMsg struct{ text, code, action, corr string }

func (m Model) errorMsgCmd(e apiErrorMsg) tea.Cmd {
	msg := common.ErrorMsg{Tab: m.id, Code: e.code, Action: e.action, CorrelationID: e.corr, Text: e.text}
	return func() tea.Msg { return msg }
}

// errorCmd reports err in the footer with its stable code, the client
// action and the correlation ID (corr when the error carries none).
func (m Model) errorCmd(err error, corr string) tea.Cmd {
	return m.errorMsgCmd(describe(err, corr))
}

// describe extracts what the footer shows from a domain error. Every
// string is sanitised: error texts can quote server values.
func describe(err error, corr string) apiErrorMsg {
	e := apiErrorMsg{text: capText(termsafe.String(err.Error())), corr: corr}
	var (
		ae *apiclient.APIError
		ne *apiclient.NetworkError
		ie *apiclient.IntegrityError
		se *worker.StepError
	)
	if errors.As(err, &ae) {
		e.code = termsafe.String(ae.Code)
		if e.code == "" && ae.HTTPStatus != 0 {
			e.code = "HTTP " + strconv.Itoa(ae.HTTPStatus)
		}
		e.action = ae.Action
		if ae.CorrelationID != "" {
			e.corr = ae.CorrelationID
		}
		e.text = ae.Op + ": HTTP " + strconv.Itoa(ae.HTTPStatus)
		if ae.Message != "" {
			e.text += ": " + capText(termsafe.String(ae.Message))
		}
	}
	if errors.As(err, &ne) {
		if ne.CorrelationID != "" {
			e.corr = ne.CorrelationID
		}
		e.action = networkAction(ne)
	}
	if errors.As(err, &ie) && ie.Report != nil {
		r := ie.Report
		if r.CorrelationID != "" {
			e.corr = r.CorrelationID
		}
		if r.LocalStop != nil {
			// Stopped here (esc, the lease's end, a full disk): no check
			// ran, the partner's bytes are not to blame.
			e.text = termsafe.String(r.DeliveryAttemptID) + ": not checked — the download was " + capText(termsafe.String(r.LocalStop.Error()))
			e.action = "nothing will be acknowledged; the lease runs out and the entry becomes due again"
			return e
		}
		e.text = termsafe.String(r.DeliveryAttemptID) + ": NOT VERIFIED"
		var failed []string
		for _, c := range r.Failed() {
			failed = append(failed, checkWords[c.Name])
		}
		if len(failed) > 0 {
			e.text += " — failed: " + strings.Join(failed, ", ")
		}
		if r.ReadErr != nil {
			e.text += "; the stream broke: " + capText(termsafe.String(r.ReadErr.Error()))
		}
		if r.SinkErr != nil {
			e.text += "; writing it failed: " + capText(termsafe.String(r.SinkErr.Error()))
		}
		e.action = "nothing will be acknowledged; the lease runs out and the entry becomes due again — tell the partner's operator with the correlation ID"
	}
	if errors.As(err, &se) && se.Step != "" && ae != nil {
		e.text = string(se.Step) + " " + termsafe.String(se.DeliveryAttemptID) + ": " + e.text
	}
	if errors.Is(err, apiclient.ErrLeaseTooShort) {
		e.action = "nothing was acknowledged; the entry becomes due again when the lease runs out: claim it again then"
	}
	// A retry that was not made: the same sentence as the CLI's (the wait,
	// and when to try again), not just the answer that was not retried.
	var rr *apiclient.RetryRefusedError
	if errors.As(err, &rr) {
		if ae != nil { // the text is the answer's alone: add the refusal
			e.text = capText(e.text + " — " + termsafe.String(rr.Refusal()))
		}
		if errors.Is(err, apiclient.ErrRetryTooLong) && !errors.Is(err, context.DeadlineExceeded) {
			e.action = "try again after " + rr.NextAt.Local().Format("2006-01-02 15:04") + " (the server's Retry-After)"
		}
	}
	return e
}

// networkAction is what to do after a network failure of op: only the
// payload read and the acknowledge are repeated with the same token; a
// claim never is (its answer, and so its token, may be lost while the
// server made it), nor is a listing a token matter.
func networkAction(ne *apiclient.NetworkError) string {
	switch ne.Op {
	case "claim":
		if ne.Unclear {
			return "the claim is not repeated: the server may have made it, and its token never arrived, so nobody can use that lease — refresh (r): if the entry is not listed, its lease runs out in about 5 minutes; claim it again then"
		}
		return "check the network and the base URL; nothing was claimed: claim it again"
	case "download", "acknowledge":
		return "check the network and the base URL; retry (the same token and correlation ID are reused)"
	}
	return "check the network and the base URL; try again (the same correlation ID is reused)"
}

func capText(s string) string {
	if utf8.RuneCountInString(s) <= maxErrText {
		return s
	}
	r := []rune(s)
	return string(r[:maxErrText]) + "…"
}

// countdown and plural are human's, named for the tab's many uses.
var (
	countdown = human.Countdown
	plural    = human.Word
)

// clock shows a time on the local clock, to the second.
func clock(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.Local().Format("15:04:05")
}
