package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/worker"
)

// TestFetchAllAcknowledgesUntilEmpty: fetch --all --ack runs the worker
// order entry by entry, in the mailbox's order, until nothing is due.
func TestFetchAllAcknowledgesUntilEmpty(t *testing.T) {
	s := newSimEnv(t)
	var ids []string
	for range 3 {
		ids = append(ids, s.add(t, "ORDRSP", ediPayload(2048), partnersim.PayloadFault{}))
		s.clock.Advance(time.Second)
	}
	code, out, errOut := s.run(t, "", "fetch", "--all", "--ack", "--json")
	require.Equal(t, exitOK, code, errOut)
	j := decodeJSON[fetchAllJSON](t, out)
	require.True(t, j.Empty)
	require.Len(t, j.Results, 3)
	for i, r := range j.Results {
		require.Equal(t, ids[i], r.DeliveryAttemptID, "in the mailbox's order")
		require.True(t, r.Acknowledged)
	}
	require.Contains(t, errOut, "no more due deliveries; 3 acknowledged")
	for _, id := range ids {
		st, _ := s.sim.Entry(cliConn, id)
		require.Equal(t, partnersim.StatusAcknowledged, st.Status)
	}

	// the human output: one block per delivery
	s.add(t, "ORDRSP", ediPayload(2048), partnersim.PayloadFault{})
	code, out, errOut = s.run(t, "", "fetch", "--all", "--ack")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "acknowledged  receipt ")
	require.Contains(t, errOut, "1 acknowledged")
}

// TestFetchAllStopsAtTheFirstFailure: an entry that fails stops the run
// with fetch's exit code for it; it is not skipped and nothing after it
// is claimed.
func TestFetchAllStopsAtTheFirstFailure(t *testing.T) {
	s := newSimEnv(t)
	first := s.add(t, "ORDRSP", ediPayload(2048), partnersim.PayloadFault{})
	s.clock.Advance(time.Second)
	bad := s.add(t, "ORDRSP", ediPayload(2048), partnersim.PayloadFault{WrongHashHeader: true})
	s.clock.Advance(time.Second)
	later := s.add(t, "ORDRSP", ediPayload(2048), partnersim.PayloadFault{})
	code, out, errOut := s.run(t, "", "fetch", "--all", "--ack", "--json")
	require.Equal(t, exitIntegrity, code, errOut)
	j := decodeJSON[fetchAllJSON](t, out)
	require.False(t, j.Empty)
	require.Len(t, j.Results, 2)
	require.Equal(t, first, j.Results[0].DeliveryAttemptID)
	require.True(t, j.Results[0].Acknowledged)
	require.Equal(t, bad, j.Results[1].DeliveryAttemptID)
	require.False(t, j.Results[1].Acknowledged)
	require.Equal(t, worker.StateFailed, j.Results[1].CheckStates["hashHeader"])
	require.Contains(t, errOut, "stopped at "+bad+": it did not pass and is not skipped; 1 before it acknowledged")
	require.Zero(t, s.sim.RequestCount(partnersim.EndpointClaim, later))
	require.Zero(t, s.sim.RequestCount(partnersim.EndpointAcknowledge, bad))

	// an API failure stops it with exit 3
	s2 := newSimEnv(t)
	s2.add(t, "ORDRSP", ediPayload(2048), partnersim.PayloadFault{})
	s2.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointClaim, Status: 404})
	code, _, errOut = s2.run(t, "", "fetch", "--all", "--ack")
	require.Equal(t, exitAPI, code, errOut)
}

func TestFetchAllUsage(t *testing.T) {
	s := newSimEnv(t)
	code, _, errOut := s.run(t, "", "fetch", "--all")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "--all needs --ack")
	for _, args := range [][]string{{"fetch", "--all", "--next", "--ack"}, {"fetch", "x", "--all", "--ack"}} {
		code, _, errOut = s.run(t, "", args...)
		require.Equal(t, exitUsage, code, args)
		require.Contains(t, errOut, "or --all --ack for every due one")
	}
	require.Zero(t, s.sim.RequestCount(partnersim.EndpointList, ""))
}

// TestFetchStoppedByTheLeaseIsNotRun: a download the lease's end stopped
// (the server sent its bytes too slowly) ran no check: --json says "not
// run" for each and names the cause; nothing is acknowledged.
func TestFetchStoppedByTheLeaseIsNotRun(t *testing.T) {
	s := newSimEnv(t)
	id := s.add(t, "ORDRSP", ediPayload(200<<10), partnersim.PayloadFault{BytesPerSecond: 16 << 10})
	s.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointClaim, LeaseAnnounced: time.Second, Times: 1})
	code, out, errOut := s.run(t, "", "fetch", id, "--ack", "--json")
	require.Equal(t, exitAPI, code, errOut)
	j := decodeJSON[fetchJSON](t, out)
	for _, n := range []string{"sizeHeader", "sizeListing", "hashHeader", "hashListing", "trailer", "stored"} {
		require.Equal(t, worker.StateNotRun, j.CheckStates[n], n)
	}
	require.Empty(t, j.FailedChecks)
	require.Contains(t, j.NotRunBecause, "stopped here")
	require.Contains(t, j.NotRunBecause, "the lease has expired")
	require.False(t, j.Acknowledged)
	require.Zero(t, s.sim.RequestCount(partnersim.EndpointAcknowledge, ""))

	id2 := s.add(t, "ORDRSP", ediPayload(200<<10), partnersim.PayloadFault{BytesPerSecond: 16 << 10})
	s.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointClaim, LeaseAnnounced: time.Second, Times: 1})
	code, out, _ = s.run(t, "", "fetch", id2, "--ack")
	require.Equal(t, exitAPI, code)
	require.Contains(t, out, "checks        sizeHeader not run, sizeListing not run, hashHeader not run, hashListing not run, trailer not run, stored not run")
	require.Contains(t, out, "  not run: the download was stopped here")
}

// TestFetchSaysWhenTheClocksDisagree: the lease is counted on the
// server's clock; a server clock far off this machine's is said.
func TestFetchSaysWhenTheClocksDisagree(t *testing.T) {
	s := newSimEnv(t)
	id := s.add(t, "ORDRSP", ediPayload(2048), partnersim.PayloadFault{})
	s.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointClaim, DateSkew: -time.Hour, Times: 1})
	code, out, errOut := s.run(t, "", "fetch", id, "--ack", "--json")
	require.Equal(t, exitOK, code, errOut)
	require.Regexp(t, `b2bx fetch: the server's clock is 1h0m\ds behind this machine's; the lease is counted on the server's clock`, errOut)
	j := decodeJSON[fetchJSON](t, out)
	require.Regexp(t, `^the server's clock is 1h0m\ds behind this machine's$`, j.ClockSkew)
	require.True(t, j.Acknowledged)
}
