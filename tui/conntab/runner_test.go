package conntab

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/worker"
)

// TestProcessFindsTheHeadPastRefusedPages: when page 1 holds only
// entries the client refuses, P takes the head from the next page (the
// runner's head, as b2bx fetch --next does) and shows that page; before,
// the tab said "no due entries".
func TestProcessFindsTheHeadPastRefusedPages(t *testing.T) {
	m, be, _ := newTest(t, 30, 10)
	be.refused = map[string]bool{}
	for _, e := range testEntries(10) {
		be.refused[e.DeliveryAttemptID] = true
	}
	m, _ = press(t, m, "r")
	require.Zero(t, m.table.Len(), "page 1: only refused entries")
	m, notes := press(t, m, "P")
	require.NotContains(t, infoText(notes), "no due entries")
	require.Equal(t, []string{"da-00010"}, be.claimed())
	require.Equal(t, worker.PhaseAcked, m.run.Phase())
	require.Equal(t, 2, m.Status().Page, "the page the head is on is shown")
	require.Equal(t, 12, firstPos(m), "numbered after page 1's ten entries (da-00010 left the list)")
	m, _ = press(t, m, "p")
	require.Equal(t, 1, m.Status().Page, "and p goes back to page 1")
}

// TestWorkerModeNeverProcessesAnEntryTwice: a server that keeps listing
// an entry after its acknowledge does not make W claim, download and
// acknowledge it again and again; W says so and stops when nothing else
// is due.
func TestWorkerModeNeverProcessesAnEntryTwice(t *testing.T) {
	m, be, _ := newTest(t, 1, 50)
	be.relist = true
	m, notes := press(t, m, "W")
	require.Equal(t, []string{"da-00000"}, be.claimed(), "claimed once")
	require.Equal(t, 1, be.lastLease().ackCount())
	text := infoText(notes)
	require.Contains(t, text, "the server still lists da-00000, acknowledged in this session (receipt rcpt-da-00000): passed over, not processed again")
	require.Contains(t, text, "no due entries: worker mode stopped")
	require.False(t, m.ordering(), "worker mode is off: the runner holds no order")

	_, notes = press(t, m, "c")
	require.Contains(t, infoText(notes), "already acknowledged in this run")
	require.Len(t, be.claimed(), 1)

	// with more entries: each once, in order
	m2, be2, _ := newTest(t, 3, 50)
	be2.relist = true
	_, _ = press(t, m2, "W")
	require.Equal(t, []string{"da-00000", "da-00001", "da-00002"}, be2.claimed())
}

// TestNoAcknowledgeOfferAfterTheLeaseEnds: a verified, stored entry whose
// lease ran out is not offered for acknowledging, and a refuses.
func TestNoAcknowledgeOfferAfterTheLeaseEnds(t *testing.T) {
	m, be, clk := newTest(t, 3, 50)
	m, _ = press(t, m, "c")
	m, _ = press(t, m, "d")
	require.Contains(t, m.View(), "a acknowledges it")
	clk.Advance(5*time.Minute + time.Second)
	m, _ = m.Update(tickMsg{msgBase{testTab, m.tickGen}})
	v := m.View()
	require.NotContains(t, v, "a acknowledges it")
	require.Contains(t, v, "but not acknowledged: the lease has ended")
	m, notes := press(t, m, "a")
	require.Contains(t, infoText(notes), "not acknowledged")
	require.Zero(t, be.lastLease().ackCount())
}

// TestADownloadInFlightStopsAtTheLease: a download still running when
// the lease ends is stopped then (not a minute later by a stall
// watchdog); no check ran, nothing is acknowledged.
func TestADownloadInFlightStopsAtTheLease(t *testing.T) {
	m, be, clk := newTest(t, 3, 50)
	be.block = map[string]bool{"da-00000": true}
	m, _ = press(t, m, "c")
	clk.Advance(5*time.Minute - 20*time.Millisecond)
	m, notes := press(t, m, "d") // returns once the lease's end stopped it
	require.Equal(t, worker.PhaseFetchFailed, m.run.Phase())
	require.Contains(t, infoText(notes), "da-00000: not checked — the download was stopped here: the lease has expired")
	v := m.View()
	require.Contains(t, v, "no check ran: the download was stopped here: the lease has expired")
	require.Contains(t, v, "· size vs header    not run")
	require.NotContains(t, v, "NOT VERIFIED")
	require.Zero(t, be.lastLease().ackCount())
}

// TestALocalStopIsNotAFailedCheck: a download stopped here (esc, a full
// disk, a file size limit) shows every check "not run" and names the
// local cause, never FAILED as if the partner had sent bad bytes.
func TestALocalStopIsNotAFailedCheck(t *testing.T) {
	m, be, _ := newTest(t, 3, 50)
	be.local = map[string]error{"da-00000": errors.New("writing it failed: file too large")}
	m, notes := press(t, m, "P")
	v := m.View()
	require.Contains(t, v, "no check ran: the download was stopped here: writing it failed: file too large")
	require.NotContains(t, v, "✗ size vs header")
	require.NotContains(t, v, "NOT VERIFIED")
	require.Contains(t, v, "· hash vs header    not run")
	require.Equal(t, "download stopped here", m.Status().Transfer)
	require.Contains(t, infoText(notes), "not checked — the download was stopped here: writing it failed")

	// esc during the download
	m2, be2, _ := newTest(t, 3, 50)
	be2.block = map[string]bool{"da-00000": true}
	m2, _ = press(t, m2, "c")
	m2, fetch := m2.Update(keyMsg("d"))
	m2, _ = press(t, m2, "esc")
	m2, notes = settle(t, m2, fetch)
	require.Contains(t, infoText(notes), "download cancelled")
	v = m2.View()
	require.Contains(t, v, "the download was cancelled: no check ran")
	for _, c := range []string{"size vs", "hash vs", "trailer"} {
		require.NotContains(t, v, "✗ "+c)
	}
}

// TestAClaimLostToTheNetworkSaysTheTruth: a claim whose connection
// dropped is not retried and has no token to reuse; the footer says
// what happened instead of "retry with the same token".
func TestAClaimLostToTheNetworkSaysTheTruth(t *testing.T) {
	e := describe(&apiclient.NetworkError{Op: "claim", CorrelationID: "corr-c", Unclear: true, Err: errors.New("EOF")}, "")
	require.NotContains(t, e.action, "same token")
	require.Contains(t, e.action, "the claim is not repeated")
	require.Contains(t, e.action, "its token never arrived")
	e = describe(&apiclient.NetworkError{Op: "acknowledge", CorrelationID: "corr-a", Unclear: true, Err: errors.New("EOF")}, "")
	require.Contains(t, e.action, "the same token and correlation ID are reused", "an acknowledge is retried with its token")
	e = describe(&apiclient.NetworkError{Op: "list mailbox", Err: errors.New("EOF")}, "")
	require.NotContains(t, e.action, "token")
}

// TestTheClocksDisagreeNote: a lease the server's clock counts, when it
// disagrees with this machine's, says so on the panel and in the footer.
func TestTheClocksDisagreeNote(t *testing.T) {
	m, be, _ := newTest(t, 3, 50)
	be.skew = -10 * time.Minute
	m, notes := press(t, m, "c")
	require.Contains(t, infoText(notes), "the server's clock is 10m0s behind this machine's: the lease is counted on the server's clock")
	require.Contains(t, flat(m.View()), "the server's clock is 10m0s behind this machine's: counted on the server's")
}

// TestTheHeadMarkerIsTheRunnersHead: when page 1 holds only entries the
// client refuses, the head marker and enter are where P goes (the
// runner's head, on page 2), not "the first row of page 1"; enter on it
// processes it, as P would.
func TestTheHeadMarkerIsTheRunnersHead(t *testing.T) {
	m, be, _ := newTest(t, 30, 10)
	be.refused = map[string]bool{}
	for _, e := range testEntries(10) {
		be.refused[e.DeliveryAttemptID] = true
	}
	m, _ = press(t, m, "r")
	require.Zero(t, m.table.Len(), "page 1: only refused entries")
	head, ok := m.run.HeadID()
	require.True(t, ok, "the runner searched past page 1")
	require.Equal(t, "da-00010", head)
	require.Empty(t, be.claimed(), "the search claims nothing")
	require.Equal(t, 1, m.Status().Page, "and leaves page 1 shown")

	m, _ = press(t, m, "n")
	require.Equal(t, 2, m.Status().Page)
	id, _ := m.table.SelectedID()
	require.Equal(t, "da-00010", id)
	require.True(t, m.isHead(id))
	require.Contains(t, m.View(), "head of the mailbox: P or enter processes it")
	m, _ = press(t, m, "down")
	require.False(t, m.isHead("da-00011"))
	m, notes := press(t, m, "enter")
	require.Contains(t, infoText(notes), "enter processes the head entry")
	require.Empty(t, be.claimed(), "enter off the head claims nothing")
	m, _ = press(t, m, "up")
	m, _ = press(t, m, "enter")
	require.Equal(t, []string{"da-00010"}, be.claimed(), "enter on the marker takes P's head")
	require.Equal(t, worker.PhaseAcked, m.run.Phase())
	head, ok = m.run.HeadID()
	require.True(t, ok)
	require.Equal(t, "da-00011", head, "the next head, after the acknowledged one")
}
