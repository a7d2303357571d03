package worker

import (
	"errors"

	"github.com/nutrab2b/b2bx/apiclient"
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
		if errors.Is(res.Err, apiclient.ErrIntegrity) {
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
	Detail string // why it failed; "" when it passed or did not run
}

// Checks lists the five integrity checks and the durable store, in a fixed
// order, each passed, failed or not run, so every face shows the same
// words.
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
				cs.State = StateNotRun
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
