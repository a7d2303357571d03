package worker

import (
	"errors"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Class is the kind of failure of a Result, for exit codes and colours:
// both faces derive it here so they agree.
type Class string

// The classes. The CLI maps them to exit codes 0, 4, 5 and 3.
const (
	ClassOK        Class = "ok"        // every requested step passed
	ClassIntegrity Class = "integrity" // the payload failed a check or broke off mid-stream; nothing acknowledged
	ClassStorage   Class = "storage"   // the spool, the export or the receipt record failed
	ClassAPI       Class = "api"       // an API answer, a network failure, or an entry refused before claiming
)

// Classify tells which kind of failure res is.
func Classify(res *Result) Class {
	if res == nil {
		return ClassAPI
	}
	switch res.FailedStep {
	case "":
		return ClassOK
	case StepStore, StepExport, StepRecord:
		return ClassStorage
	case StepVerify:
		return ClassIntegrity
	case StepDownload:
		// A download stopped here (cancelled, the lease ran out) ran no
		// check, so no check failed: not an integrity failure.
		if errors.Is(res.Err, apiclient.ErrIntegrity) && (res.Report == nil || res.Report.LocalStop == nil) {
			return ClassIntegrity
		}
	}
	return ClassAPI
}

// State is the outcome of one check.
type State string

// The check states. StateNotRun means the check never ran (nothing was
// downloaded, or an earlier step failed), which is not a failure of it.
const (
	StatePassed State = "passed"
	StateFailed State = "failed"
	StateNotRun State = "not run"
)

// Label is the word both faces show for the state: "ok", "FAILED" (upper
// case, so it stands out in a line of oks) or "not run".
func (s State) Label() string {
	switch s {
	case StatePassed:
		return "ok"
	case StateFailed:
		return "FAILED"
	}
	return "not run"
}

// Check names beyond apiclient's five integrity checks.
const (
	CheckStored = "stored" // the durable write into the spool
)

// CheckState is one check of a Result.
type CheckState struct {
	Name   string // apiclient.CheckSizeHeader … apiclient.CheckTrailer, CheckStored
	State  State
	Detail string // why it failed, or why it did not run when that is known (a local stop); "" when it passed
}

// Checks lists the five integrity checks and the durable store, in a fixed
// order, each passed, failed or not run, so every face shows the same
// words.
//
// A download stopped on this side (esc, Ctrl-C, the lease ran out, a
// full disk, a file size limit) ran no check: each is "not run" with the
// cause in Detail (NotRunCause), never "failed" as if the partner had
// sent bad bytes.
func (r *Result) Checks() []CheckState {
	names := []string{apiclient.CheckSizeHeader, apiclient.CheckSizeListing, apiclient.CheckHashHeader, apiclient.CheckHashListing, apiclient.CheckTrailer}
	out := make([]CheckState, 0, len(names)+1)
	if r.Report == nil {
		for _, n := range names {
			out = append(out, CheckState{Name: n, State: StateNotRun})
		}
	} else {
		for _, c := range r.Report.Checks() {
			cs := CheckState{Name: c.Name, State: StatePassed}
			switch {
			case c.NotRun:
				cs.State, cs.Detail = StateNotRun, c.Detail
			case !c.OK:
				cs.State, cs.Detail = StateFailed, c.Detail
			}
			out = append(out, cs)
		}
	}
	st := CheckState{Name: CheckStored, State: StateNotRun}
	switch {
	case r.Stored != nil:
		st.State = StatePassed
	case r.FailedStep == StepStore:
		st.State = StateFailed
		if r.Err != nil {
			st.Detail = r.Err.Error()
		}
	}
	return append(out, st)
}

// NotRunCause is why the download was stopped on this side before any
// check could run (esc, Ctrl-C, the lease ran out, a write that failed),
// terminal-safe; "" when it was not.
func (r *Result) NotRunCause() string {
	if r == nil || r.Report == nil || r.Report.LocalStop == nil {
		return ""
	}
	return termsafe.String(r.Report.LocalStop.Error())
}
