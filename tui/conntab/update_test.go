package conntab

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/tui/common"
)

func firstPos(m Model) int { return m.table.Rows()[0].Pos }

func TestPagingUsesACursorStack(t *testing.T) {
	m, _, _ := newTest(t, 250, 100)
	require.Equal(t, 1, m.Status().Page)
	require.True(t, m.Status().HasMore)
	require.Contains(t, m.View(), "page 1 · #1–100 · 100 entries · more after this page (n)")

	m, _ = press(t, m, "n")
	require.Equal(t, 2, m.Status().Page)
	require.Equal(t, 101, firstPos(m))
	m, _ = press(t, m, "n")
	require.Equal(t, 3, m.Status().Page)
	require.Equal(t, 201, firstPos(m))
	require.Equal(t, 50, m.table.Len())
	require.Contains(t, m.View(), "page 3 · #201–250 · 50 entries · last page")

	m, notes := press(t, m, "n")
	require.Contains(t, infoText(notes), "this is the last page")
	require.Equal(t, 3, m.Status().Page)

	m, _ = press(t, m, "p")
	require.Equal(t, 2, m.Status().Page)
	require.Equal(t, 101, firstPos(m), "p goes back to the cursor the page was read with")
	m, _ = press(t, m, "p")
	require.Equal(t, 1, m.Status().Page)
	require.Equal(t, 1, firstPos(m))
	m, notes = press(t, m, "p")
	require.Contains(t, infoText(notes), "this is the first page")

	// page size: + to 100 stays (already the largest), - to 50 reloads page 1
	m, notes = press(t, m, "+")
	require.Contains(t, infoText(notes), "page size stays 100")
	m, _ = press(t, m, "-")
	require.Equal(t, 50, m.PageSize())
	require.Equal(t, 50, m.table.Len())
	m, _ = m.SetPageSize(101)
	require.Equal(t, 50, m.PageSize())
}

func TestStaleResultsAreDropped(t *testing.T) {
	m, be, _ := newTest(t, 250, 100)
	m, loadA := m.Update(keyMsg("r"))
	m, loadB := m.Update(keyMsg("n")) // replaces the refresh
	before := m.table.Rows()[0].Pos

	_ = loadA // its job was cancelled; answer as if it had finished anyway
	late := pageMsg{msgBase{testTab, m.req - 1}, firstPage(), thenNothing, &apiclient.Page{Entries: testEntries(3)}, nil, nil}
	m, _ = m.Update(late)
	require.NotNil(t, m.list, "still waiting for the next page")
	require.Equal(t, before, firstPos(m))
	require.Equal(t, 100, m.table.Len())

	// an answer for another tab never applies
	other := pageMsg{msgBase{testTab + 1, m.list.req}, []pageRef{{first: 1}}, thenNothing, &apiclient.Page{}, nil, nil}
	m, _ = m.Update(other)
	require.NotNil(t, m.list)
	require.Equal(t, 100, m.table.Len())

	m, _ = settle(t, m, loadB)
	require.Equal(t, 101, firstPos(m))

	// a claim answer nobody waits for: its token is forgotten at once
	stale := &fakeLease{entry: testEntries(1)[0], clock: be.clock, expires: t0.Add(5 * time.Minute)}
	m, _ = m.Update(claimMsg{msgBase{testTab, 9999}, stale.entry, stale, nil})
	require.True(t, stale.released)
	require.Nil(t, m.claim)

	// another tab's claim: dropped once, at the tab's door, and let go of
	theirs := &fakeLease{entry: testEntries(1)[0], clock: be.clock, expires: t0.Add(5 * time.Minute)}
	m, _ = m.Update(claimMsg{msgBase{testTab + 1, m.req}, theirs.entry, theirs, nil})
	require.True(t, theirs.released)
	require.Nil(t, m.claim)
}

func TestFilterCapturesKeysAndNarrowsTheTable(t *testing.T) {
	m, _, _ := newTest(t, 30, 50)
	m, _ = press(t, m, "/")
	require.True(t, m.Capturing())
	for _, r := range "aperak" {
		m, _ = press(t, m, string(r))
	}
	m, _ = press(t, m, "n") // typed into the filter, not "next page"
	require.Equal(t, "aperakn", topOf[filterScreen](m).Value())
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	require.Equal(t, 10, m.table.Shown())
	m, _ = press(t, m, "enter")
	require.False(t, m.Capturing())
	require.Contains(t, m.View(), `filter "aperak": 10 of 30`)
	require.Contains(t, m.View(), "ic-00002")
	require.NotContains(t, m.View(), "ic-00000", "an ORDRSP")
	m, _ = press(t, m, "esc")
	require.Equal(t, 30, m.table.Shown())
	require.NotContains(t, m.View(), "filter")
}

func TestClaimAsksWhenTheEntryIsNotTheHead(t *testing.T) {
	m, be, _ := newTest(t, 30, 50)
	m, _ = press(t, m, "down")
	m, _ = press(t, m, "c")
	require.NotNil(t, topOf[common.Prompt](m))
	require.True(t, m.Capturing())
	require.Contains(t, m.View(), "da-00001 (#2) is not the head of the mailbox")
	require.Empty(t, be.claimed())

	m, _ = press(t, m, "n") // no
	require.Nil(t, topOf[common.Prompt](m))
	require.Empty(t, be.claimed())

	m, _ = press(t, m, "c")
	m, _ = press(t, m, "y")
	require.Equal(t, []string{"da-00001"}, be.claimed())
	require.Contains(t, m.View(), "✓ da-00001")
	require.Equal(t, "claim da-00001 lease 5:00", m.Status().Bar().Claim, "the status bar's words")
}

func TestClaimOnTheHeadNeedsNoConfirmation(t *testing.T) {
	m, be, _ := newTest(t, 30, 50)
	m, _ = press(t, m, "c")
	require.Nil(t, topOf[common.Prompt](m))
	require.Equal(t, []string{"da-00000"}, be.claimed())

	// on page 2 no entry is the head
	m2, be2, _ := newTest(t, 30, 10)
	m2, _ = press(t, m2, "n")
	m2, _ = press(t, m2, "c")
	require.NotNil(t, topOf[common.Prompt](m2))
	require.Empty(t, be2.claimed())
}

// TestTheHeadPassesOverOurLeases: an entry this tab claimed and was
// refused, or dropped, stays in the table but is not due on the server
// until its lease runs out; the next row is the head (c asks nothing,
// enter processes it) until then.
func TestTheHeadPassesOverOurLeases(t *testing.T) {
	m, be, clk := newTest(t, 30, 50)
	be.fetchErr = map[string]error{"da-00000": errors.New("hash vs header failed")}
	m, _ = press(t, m, "c")
	m, _ = press(t, m, "d")
	require.Equal(t, worker.PhaseFetchFailed, m.run.Phase())
	require.True(t, m.isHead("da-00001"), "the refused entry's lease still runs")
	require.False(t, m.isHead("da-00000"))
	m, _ = press(t, m, "x")
	m, _ = press(t, m, "y")
	require.Equal(t, worker.PhaseReleased, m.run.Phase())
	require.True(t, m.isHead("da-00001"), "a dropped lease still runs")
	m, _ = press(t, m, "down")
	m, _ = press(t, m, "c")
	require.Nil(t, topOf[common.Prompt](m), "no question for the real head")
	require.Equal(t, []string{"da-00000", "da-00001"}, be.claimed())

	clk.Advance(6 * time.Minute)
	require.True(t, m.isHead("da-00000"), "once the lease ran out it is due again")
}

func TestAtMostOneClaimPerConnection(t *testing.T) {
	m, be, _ := newTest(t, 30, 50)
	m, _ = press(t, m, "c")
	require.NotEmpty(t, m.Pending())
	m, _ = press(t, m, "down")
	m, notes := press(t, m, "c")
	require.Nil(t, topOf[common.Prompt](m), "refused before asking")
	require.Contains(t, infoText(notes), "one claim per connection: da-00000 is claimed until")
	m, notes = press(t, m, "P")
	require.Contains(t, infoText(notes), "finish the current claim first")
	require.Equal(t, []string{"da-00000"}, be.claimed())

	// dropping asks, then forgets the token; the entry stays blocked
	// during its lease, another one may be claimed
	m, _ = press(t, m, "x")
	require.NotNil(t, topOf[common.Prompt](m))
	require.Contains(t, m.View(), "Drop the claim on da-00000?")
	m, _ = press(t, m, "y")
	require.True(t, be.lastLease().released)
	require.Empty(t, m.Pending())

	m, _ = press(t, m, "g")
	m, notes = press(t, m, "c")
	require.Contains(t, infoText(notes), "da-00000 has a lease of ours until about")
	m, _ = press(t, m, "down")
	m, _ = press(t, m, "c")
	_, _ = press(t, m, "y")
	require.Equal(t, []string{"da-00000", "da-00001"}, be.claimed())
}

func TestLeaseCountdownWarnsThenExpires(t *testing.T) {
	m, _, clk := newTest(t, 5, 50)
	m, _ = press(t, m, "c")
	require.Equal(t, slowTick, m.wantTick(), "a lease countdown ticks once a second")
	require.Contains(t, m.View(), "lease 5:00 left (until ")
	require.NotContains(t, m.View(), "! lease")

	tick := func() {
		m, _ = m.Update(tickMsg{msgBase{testTab, m.tickGen}})
	}
	clk.Advance(4*time.Minute + 30*time.Second)
	tick()
	require.Contains(t, m.View(), "! lease 0:30 left")
	require.NotEmpty(t, m.Pending())

	clk.Advance(31 * time.Second)
	tick()
	require.Contains(t, m.View(), "lease expired at ")
	require.True(t, m.Status().LeaseExpired)
	require.Empty(t, m.Pending(), "an expired lease has nothing left to lose")
	require.Zero(t, m.wantTick(), "no countdown left: the tick stops")

	m, notes := press(t, m, "d")
	require.Contains(t, infoText(notes), "the lease has expired")
}

func TestAcknowledgeOnlyWhenCanAck(t *testing.T) {
	m, be, _ := newTest(t, 5, 50)
	m, _ = press(t, m, "c")
	m, notes := press(t, m, "a")
	require.Contains(t, infoText(notes), "not acknowledged: acknowledge da-00000: not every check passed")
	require.Zero(t, be.lastLease().ackCount())

	m, _ = press(t, m, "d")
	require.Equal(t, worker.PhaseFetched, m.run.Phase())
	require.Contains(t, m.View(), "verified and stored durably")
	m, _ = press(t, m, "a")
	require.Equal(t, 1, be.lastLease().ackCount())
	require.Equal(t, worker.PhaseAcked, m.run.Phase())
	v := m.View()
	require.Contains(t, v, "✓ acknowledged · receipt rcpt-da-00000 · at 2026-11-29")
	require.Contains(t, v, "replay no")
	require.NotContains(t, v, "ic-00000", "the acknowledged entry left the list")
	require.Empty(t, m.Pending())
}

func TestFailedDownloadIsNeverAcknowledged(t *testing.T) {
	m, be, _ := newTest(t, 5, 50)
	be.fetchErr = map[string]error{"da-00000": fmt.Errorf("payload not verified: %w", apiclient.ErrIntegrity)}
	m, _ = press(t, m, "c")
	m, notes := press(t, m, "d")
	require.Contains(t, infoText(notes), "payload not verified")
	require.Equal(t, worker.PhaseFetchFailed, m.run.Phase())
	v := m.View()
	require.Contains(t, v, "Nothing will be acknowledged; the lease expires at")
	require.Contains(t, lineOf(t, v, "ic-00000"), "refused")

	m, notes = press(t, m, "a")
	require.Contains(t, infoText(notes), "not acknowledged")
	require.Zero(t, be.lastLease().ackCount())
}

func TestRetryCountdownRetryNowAndGiveUp(t *testing.T) {
	m, _, clk := newTest(t, 5, 50)
	m, _ = m.Update(keyMsg("r")) // the load's answer is never delivered: it waits to retry
	j := m.list
	fail := &apiclient.APIError{Op: "list mailbox", HTTPStatus: 503, Code: apiclient.CodeUnavailable,
		Action: "retry with backoff; keep the correlation ID and time", CorrelationID: "corr-503"}
	ev := apiclient.RetryEvent{Op: "list mailbox", Attempt: 1, Err: fail, NextAt: clk.Now().Add(30 * time.Second), Wait: 30 * time.Second, CorrelationID: "corr-503"}
	m, _ = m.Update(retryMsg{msgBase{testTab, j.req}, ev})
	require.Contains(t, m.View(), "list mailbox: attempt 1 failed (ERR_B2B_EXCHANGE_UNAVAILABLE); next attempt in 0:30")
	require.Contains(t, m.View(), "R retry now   esc give up   correlation corr-503")
	require.Contains(t, m.View(), "retry with backoff; keep the correlation ID and time")
	require.Equal(t, slowTick, m.wantTick())

	clk.Advance(10 * time.Second)
	m, _ = m.Update(tickMsg{msgBase{testTab, m.tickGen}})
	require.Contains(t, m.View(), "next attempt in 0:20")

	m, _ = press(t, m, "R")
	require.Len(t, j.now, 1, "the job's wait is told to end now")
	require.Contains(t, m.View(), "retrying now…")

	ev.Attempt, ev.NextAt = 2, clk.Now().Add(2*time.Minute)
	m, _ = m.Update(retryMsg{msgBase{testTab, j.req}, ev})
	require.Contains(t, m.View(), "attempt 2 failed (ERR_B2B_EXCHANGE_UNAVAILABLE); next attempt in 2:00")

	m, _ = press(t, m, "esc")
	require.ErrorIs(t, j.ctx.Err(), context.Canceled, "esc gives up: the job's context is cancelled")
	m, notes := settle(t, m, func() tea.Msg {
		return pageMsg{msgBase{testTab, j.req}, j.stack, thenNothing, nil, fmt.Errorf("list mailbox: gave up waiting to retry: %w", context.Canceled), nil}
	})
	require.Equal(t, []tea.Msg{common.ErrorMsg{Tab: testTab, Code: apiclient.CodeUnavailable, Action: fail.Action, CorrelationID: "corr-503",
		Text: "page load given up after attempt 2: list mailbox: HTTP 503"}}, notes, "the footer keeps what was given up on")
	require.NotContains(t, m.View(), "retry now")
	require.Nil(t, m.list)
}

func TestBacklogTotalsAndCancel(t *testing.T) {
	m, _, _ := newTest(t, 250, 50)
	m, _ = press(t, m, "A")
	require.True(t, m.Status().Backlog)
	require.Equal(t, 250, m.table.Len())
	v := m.View()
	require.Contains(t, v, "backlog: 250 entries, 3 pages")
	require.Contains(t, v, "by type    ORDRSP 84 · APERAK 83 · CONTRL 83")
	require.Contains(t, v, "by status  due 250")
	require.Contains(t, v, "oldest     4h 10m ago")

	m, notes := press(t, m, "n")
	require.Contains(t, infoText(notes), "the backlog shows every page")
	m, _ = press(t, m, "G")
	sel, _ := m.table.Selected()
	require.Equal(t, 250, sel.Pos)

	m, _ = press(t, m, "A") // back to the page view
	require.False(t, m.Status().Backlog)
	require.Equal(t, 50, m.table.Len())

	// esc while loading cancels it and keeps the page view
	m, load := m.Update(keyMsg("A"))
	require.Equal(t, fastTick, m.wantTick(), "the load's progress is polled about 10 Hz")
	m, _ = press(t, m, "esc")
	m, notes = settle(t, m, load)
	require.Contains(t, infoText(notes), "backlog load cancelled after 0 pages")
	require.False(t, m.Status().Backlog)
	require.Equal(t, 50, m.table.Len())
}

func TestProcessTakesTheHeadFromPageOne(t *testing.T) {
	m, be, _ := newTest(t, 30, 10)
	m, _ = press(t, m, "n")
	m, _ = press(t, m, "P")
	require.Equal(t, []string{"da-00000"}, be.claimed(), "P reads page 1 first and takes its head")
	require.Equal(t, worker.PhaseAcked, m.run.Phase())
	require.Equal(t, 1, m.Status().Page)

	m, _ = press(t, m, "down")
	m, notes := press(t, m, "enter")
	require.Contains(t, infoText(notes), "enter processes the head entry")
	m, _ = press(t, m, "g")
	m, _ = press(t, m, "enter")
	require.Equal(t, []string{"da-00000", "da-00001"}, be.claimed())
}

func TestWorkerModeGoesOnUntilAFailure(t *testing.T) {
	m, be, _ := newTest(t, 6, 50)
	be.fetchErr = map[string]error{"da-00003": fmt.Errorf("payload not verified: %w", apiclient.ErrIntegrity)}
	m, notes := press(t, m, "W")
	require.Equal(t, []string{"da-00000", "da-00001", "da-00002", "da-00003"}, be.claimed())
	require.False(t, m.ordering(), "worker mode is off: the runner holds no order")
	require.Equal(t, worker.PhaseFetchFailed, m.run.Phase())
	require.Contains(t, infoText(notes), "worker mode stopped: this entry did not pass; it is not skipped")
	for _, l := range be.leases[:3] {
		require.Equal(t, 1, l.ackCount())
	}
	require.Zero(t, be.leases[3].ackCount())
}

func TestWorkerModeStopsWhenEmptyAndPauses(t *testing.T) {
	m, be, _ := newTest(t, 3, 50)
	m, notes := press(t, m, "W")
	require.Len(t, be.claimed(), 3)
	require.Contains(t, infoText(notes), "no due entries: worker mode stopped")
	require.False(t, m.ordering(), "worker mode is off: the runner holds no order")

	// W while an entry is in flight: pause after it
	m2, be2, _ := newTest(t, 3, 50)
	m2, cmd := m2.Update(keyMsg("W"))
	require.Equal(t, "on", m2.Status().Worker)
	m2, _ = m2.Update(keyMsg("W"))
	require.Equal(t, "pausing", m2.Status().Worker)
	m2, notes = settle(t, m2, cmd)
	require.Len(t, be2.claimed(), 1)
	require.Contains(t, infoText(notes), "worker mode paused")
	require.Empty(t, m2.Status().Worker)
}

func TestSelectedRowVisibleWithoutColour(t *testing.T) {
	m, _, _ := newTest(t, 5, 50)
	m, _ = press(t, m, "down")
	require.True(t, strings.HasPrefix(lineOf(t, m.View(), "ic-00001"), "> "))
	require.True(t, strings.HasPrefix(lineOf(t, m.View(), "ic-00000"), "  "))
}

func TestCloseReleasesTheLeaseAndCancelsWork(t *testing.T) {
	m, be, _ := newTest(t, 5, 50)
	m, _ = press(t, m, "c")
	m, _ = m.Update(keyMsg("r"))
	j := m.list
	m.Close()
	require.True(t, be.lastLease().released)
	require.Error(t, j.ctx.Err())
}

func lineOf(t *testing.T, v, s string) string {
	t.Helper()
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	t.Fatalf("no line contains %q in\n%s", s, v)
	return ""
}

func TestSkippedEntriesAreNamedAndTheirPlacesKept(t *testing.T) {
	m, _, _ := newTest(t, 5, 50)
	m, load := m.Update(keyMsg("r"))
	_ = load
	es := testEntries(3)
	page := &apiclient.Page{Entries: es, CorrelationID: "corr-skip",
		Skipped: []apiclient.SkippedEntry{{Index: 1, DeliveryAttemptID: "bad\x1b[2J", Reason: "payloadSha256 is not 64 hex digits"}}}
	m, notes := settle(t, m, func() tea.Msg { return pageMsg{msgBase{testTab, m.list.req}, firstPage(), thenNothing, page, nil, nil} })
	var pos []int
	for _, r := range m.table.Rows() {
		pos = append(pos, r.Pos)
	}
	require.Equal(t, []int{1, 3, 4}, pos, "the skipped entry keeps its place in the numbering")
	require.Contains(t, m.View(), "! 1 skipped")
	require.Len(t, notes, 1)
	e := notes[0].(common.ErrorMsg)
	require.Equal(t, "corr-skip", e.CorrelationID)
	require.Equal(t, "1 listed entry could not be used and is not shown, e.g. #2 bad^[[2J: payloadSha256 is not 64 hex digits", e.Text)
}

func TestAClaimAnsweredAfterCloseIsReleased(t *testing.T) {
	m, be, _ := newTest(t, 5, 50)
	m, claim := m.Update(keyMsg("c"))
	require.Equal(t, "a claim on da-00000 is being made: if it succeeds, its lease expires unused and uses a delivery attempt", m.Pending())
	m.Close() // the tab closes while the claim is on its way
	m, notes := settle(t, m, claim)
	require.Equal(t, []string{"da-00000"}, be.claimed(), "the server made the claim")
	require.True(t, be.lastLease().released, "nobody will use it: the token is forgotten at once")
	require.Contains(t, infoText(notes), "claim cancelled")
	require.Equal(t, worker.PhaseClaimFailed, m.run.Phase())
}

// TestWrapKeepsEveryWord: a long pane line wraps with indented
// continuation lines that still fit, so nothing in the middle is cut.
func TestWrapKeepsEveryWord(t *testing.T) {
	line := strings.Repeat("word ", 30) + "end"
	got := wrap(line, 60)
	require.Len(t, got, 3)
	for _, l := range got {
		require.LessOrEqual(t, len([]rune(l)), 60)
	}
	require.Equal(t, strings.Fields(line), strings.Fields(strings.Join(got, " ")), "every word is kept, none cut")
}
