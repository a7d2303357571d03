package worker

import (
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/apiclient"
)

var planListing = []apiclient.Entry{
	{DeliveryAttemptID: "d1", MessageType: "CONTRL", PayloadSize: 10},
	{DeliveryAttemptID: "d2", MessageType: "ORDRSP", PayloadSize: 20},
	{DeliveryAttemptID: "d3", MessageType: "APERAK", PayloadSize: 30},
	{DeliveryAttemptID: "d4", MessageType: "ORDRSP", PayloadSize: 40},
}

func TestPlanProcessWorkerOrder(t *testing.T) {
	done := func(id string) (string, bool) { return "r-" + id, id == "d2" }
	leased := func(id string) bool { return id == "d3" }
	p := PlanProcess(planListing, []string{"d4", "gone", "d1", "d2", "d3"}, PlanOptions{Done: done, PassesOver: leased})
	var order []string
	for _, s := range p.Steps {
		order = append(order, s.Entry.DeliveryAttemptID+":"+s.Skip)
	}
	want := []string{"d1:", "d2:already acknowledged (receipt r-d2)", "d3:a lease of ours on it may still run: it is taken once the lease is over", "d4:",
		"gone:no longer in the mailbox listing (claimed elsewhere or done): reload"}
	if strings.Join(order, "|") != strings.Join(want, "|") {
		t.Fatalf("order %q", order)
	}
	if runs := p.Runs(); len(runs) != 2 || runs[0].Position != 1 || runs[1].Position != 4 {
		t.Fatalf("runs %+v", runs)
	}
	pv := p.Preview()
	if !strings.HasPrefix(pv[0], "process 2 of 5 marked entries") || !strings.Contains(pv[1], "1. CONTRL d1") || !strings.Contains(pv[4], "2. ORDRSP d4 (40 bytes, listed #4)") {
		t.Fatalf("preview %q", pv)
	}
}

// The runner's own answers fit the plan's questions.

var _ = PlanOptions{Done: (*Runner)(nil).Acknowledged, PassesOver: (*Runner)(nil).PassesOver}
