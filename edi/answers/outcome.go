package answers

import (
	"strconv"

	"github.com/nutrab2b/b2bx/edi"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Outcome says in a few words what the answer says about the upload:
//
//	CONTRL: accepted
//	CONTRL: rejected (2 errors)
//	ORDRSP: 3 of 5 lines changed
//	ORDRSP: not accepted
//	APERAK: 2 errors (first: 12: Unknown article number)
//
// A CONTRL's "acknowledged" (UCI action 7 or 1) reads "accepted": the
// interchange passed the partner's syntax check.
func (a Answer) Outcome() string {
	switch a.Type {
	case "CONTRL":
		return "CONTRL: " + a.contrlOutcome()
	case "ORDRSP":
		return "ORDRSP: " + a.ordrspOutcome()
	case "APERAK":
		if a.Errors == 0 {
			return "APERAK: no errors"
		}
		s := "APERAK: " + count(a.Errors, "error")
		if a.FirstError != "" {
			s += " (first: " + termsafe.String(a.FirstError) + ")"
		}
		return s
	}
	return termsafe.String(a.Type)
}

func (a Answer) contrlOutcome() string {
	verdict := a.Verdict
	switch verdict {
	case "acknowledged":
		verdict = "accepted"
	case "":
		verdict = "action " + termsafe.String(a.Action.Code)
		if a.Action.Code == "" {
			verdict = "no action code"
		}
	}
	if a.Errors > 0 {
		verdict += " (" + count(a.Errors, "error") + ")"
	}
	return verdict
}

func (a Answer) ordrspOutcome() string {
	switch {
	case a.Status.Code == "27":
		return "not accepted"
	case a.ChangedLines > 0:
		return strconv.Itoa(a.ChangedLines) + " of " + count(a.Lines, "line") + " changed"
	case a.Lines == 0 && a.Status.Code == "29":
		return "accepted without amendment"
	case a.Lines == 0:
		return "no lines"
	}
	return "no lines changed (of " + strconv.Itoa(a.Lines) + ")"
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Rejects reports whether the answer rejects the upload it answers, the
// one rule every screen and command asks (H's "fix and resend", find's
// NEEDS ACTION, the dashboard, --overdue, the resend guard, the viewer's
// marks): a CONTRL whose UCI rejects the interchange (0083 = 4), partly
// rejects it (3) or acknowledges it with errors (2), or that reports any
// UCI/UCF/UCM/UCS/UCD error; an APERAK with at least one application
// error (ERC). An ORDRSP is a business answer, never a rejection of the
// upload (its "not accepted" is the partner's decision on the order).
func (a Answer) Rejects() bool {
	switch a.Type {
	case "CONTRL":
		switch a.Verdict {
		case "rejected", "partly rejected", "acknowledged with errors":
			return true
		}
		return a.Errors > 0
	case "APERAK":
		return a.Errors > 0
	}
	return false
}

// ContrlRejects is Rejects for a CONTRL message's summary.
func ContrlRejects(c *edi.ContrlSummary) bool {
	var a Answer
	a.Type = "CONTRL"
	fromContrl(&a, c)
	return a.Rejects()
}
