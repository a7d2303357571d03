package worker

// The plan of "process the marked entries" (the app's P with marked
// rows), so a person sees what will happen before anything runs (the
// app previews the plan and runs it only on y, as the Runner's
// OrderMarked over Runs): the marked entries in the worker order (the
// order the mailbox listed them), one at a time — claim, download, check
// size, SHA-256 and trailer, store, acknowledge — stopping at the first
// failure, skipping entries already acknowledged or still under a lease
// of ours (the Runner's Acknowledged and PassesOver answer those;
// Runner.PlanMarked asks them). Planning is pure: no I/O, no clock. The
// plans for marked uploads are in internal/orders.

import (
	"fmt"
	"sort"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// ProcessStep is one entry of a process plan.
type ProcessStep struct {
	Entry apiclient.Entry
	// Position is the entry's 1-based place in the listing it was marked
	// in.
	Position int
	// Skip says why the entry is left out ("" when it is processed).
	Skip string
}

// ProcessPlan is the preview of "process the marked entries".
type ProcessPlan struct {
	Steps []ProcessStep
}

// PlanOptions are what the plan asks about each marked entry; nil
// fields ask nothing.
type PlanOptions struct {
	// Done says, for a delivery, whether it was acknowledged and with
	// which receipt: Runner.Acknowledged fits, or the store's sidecar.
	Done func(deliveryAttemptID string) (receipt string, acknowledged bool)
	// PassesOver reports an entry the worker must not take now: a lease
	// of ours on it may still run (Runner.PassesOver).
	PassesOver func(deliveryAttemptID string) bool
}

// PlanMarked is PlanProcess asking the runner: entries acknowledged in
// this run, and those under a lease of ours, are skipped with the reason.
func (r *Runner) PlanMarked(listing []apiclient.Entry, marked []string) ProcessPlan {
	return PlanProcess(listing, marked, PlanOptions{Done: r.Acknowledged, PassesOver: r.PassesOver})
}

// PlanProcess orders the marked entries (deliveryAttemptIds) as listing
// gives them: the worker order. An ID that is not in the listing any
// more (claimed elsewhere, or gone), an entry already acknowledged and
// one the worker passes over are skipped with the reason.
func PlanProcess(listing []apiclient.Entry, marked []string, o PlanOptions) ProcessPlan {
	want := map[string]bool{}
	for _, id := range marked {
		want[id] = true
	}
	var p ProcessPlan
	for i, e := range listing {
		if !want[e.DeliveryAttemptID] {
			continue
		}
		delete(want, e.DeliveryAttemptID)
		st := ProcessStep{Entry: e, Position: i + 1}
		if o.Done != nil {
			if receipt, ack := o.Done(e.DeliveryAttemptID); ack {
				st.Skip = "already acknowledged (receipt " + termsafe.String(receipt) + ")"
			}
		}
		if st.Skip == "" && o.PassesOver != nil && o.PassesOver(e.DeliveryAttemptID) {
			st.Skip = "a lease of ours on it may still run: it is taken once the lease is over"
		}
		p.Steps = append(p.Steps, st)
	}
	gone := make([]string, 0, len(want))
	for id := range want {
		gone = append(gone, id)
	}
	sort.Strings(gone)
	for _, id := range gone {
		p.Steps = append(p.Steps, ProcessStep{Entry: apiclient.Entry{DeliveryAttemptID: id}, Skip: "no longer in the mailbox listing (claimed elsewhere or done): reload"})
	}
	return p
}

// Runs are the steps that will run, in order.
func (p ProcessPlan) Runs() []ProcessStep {
	var out []ProcessStep
	for _, s := range p.Steps {
		if s.Skip == "" {
			out = append(out, s)
		}
	}
	return out
}

// Preview is the plan in lines for the confirmation prompt, the first
// line the headline. Terminal-safe.
func (p ProcessPlan) Preview() []string {
	runs := p.Runs()
	lines := []string{fmt.Sprintf("process %d of %d marked entries, one at a time in the mailbox's order; stop at the first failure", len(runs), len(p.Steps))}
	k := 0
	for _, s := range p.Steps {
		e := s.Entry
		if s.Skip != "" {
			lines = append(lines, fmt.Sprintf("  -  %s: skipped, %s", termsafe.String(e.DeliveryAttemptID), s.Skip))
			continue
		}
		k++
		lines = append(lines, fmt.Sprintf("  %d. %s %s (%d bytes, listed #%d): claim, download, check size, SHA-256 and trailer, store, acknowledge",
			k, termsafe.String(e.MessageType), termsafe.String(e.DeliveryAttemptID), e.PayloadSize, s.Position))
	}
	return lines
}
