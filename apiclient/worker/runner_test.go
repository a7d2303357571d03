package worker

import (
	"context"
	"iter"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
)

// addRaw puts an entry into the mailbox without reading the listing
// (refused entries cannot be found there).
func (e *env) addRaw(t *testing.T, id string, data []byte, f partnersim.PayloadFault) {
	t.Helper()
	_, err := e.sim.AddEntry(testConn, partnersim.Delivery{ID: id, MessageType: "ORDRSP", Payload: data, Fault: f})
	require.NoError(t, err)
	e.clock.Advance(time.Second) // listed in the order added
}

// TestRunnerHeadPagesPastRefusedEntries: a page made only of entries the
// client refuses does not hide the next page's head; the refused ones
// are reported, and the pages read are named so a face can show the one
// the head is on.
func TestRunnerHeadPagesPastRefusedEntries(t *testing.T) {
	e := newEnv(t, false)
	e.addRaw(t, "da-huge", payload(100), partnersim.PayloadFault{AnnounceSize: 1 << 40})
	e.addRaw(t, "da-badhash", payload(100), partnersim.PayloadFault{MalformedListingHash: true})
	e.addRaw(t, "da-head", payload(100), partnersim.PayloadFault{})
	e.addRaw(t, "da-next", payload(100), partnersim.PayloadFault{})

	r := NewRunner(e.w.Backend(), RunnerOptions{PageSize: 2})
	c, err := r.Head(t.Context())
	require.NoError(t, err)
	require.Equal(t, "da-head", c.Entry.DeliveryAttemptID)
	require.Len(t, c.Skipped, 2)
	require.Equal(t, "da-huge", c.Skipped[0].DeliveryAttemptID)
	require.Len(t, c.Pages, 2, "page 1 held only refused entries")
	require.Empty(t, c.Pages[0].Cursor)
	require.NotEmpty(t, c.Pages[1].Cursor)
	require.Equal(t, 2, c.Pages[0].Listed)
	require.Equal(t, "da-head", c.Page.Entries[0].DeliveryAttemptID)

	// The worker's own choice is the same head, at any page size.
	wc, err := e.runner().Head(t.Context())
	require.NoError(t, err)
	require.Equal(t, c.Entry, wc.Entry)
	require.Equal(t, c.Skipped, wc.Skipped)
}

// TestRunnerStepsHoldTheLeaseAfterTheStore: the worker order up to the
// durable store, then the lease waits for the operator: nothing is
// acknowledged until Ack, which sends the same token once; a failed
// download keeps a lease that cannot be acknowledged; an entry refused
// before claiming holds none. (These were ProcessHeld's rules.)
func TestRunnerStepsHoldTheLeaseAfterTheStore(t *testing.T) {
	e := newEnv(t, false)
	r := NewRunner(e.w.Backend(), RunnerOptions{})
	data := payload(32 << 10)
	entry := e.add(t, data, partnersim.PayloadFault{})
	require.NoError(t, r.Begin(entry))
	require.True(t, r.Active(), "active from Begin on")
	require.Equal(t, PhaseClaiming, r.Phase())
	l, err := r.Claim(t.Context(), ClaimOptions{})
	require.NoError(t, err)
	require.NotNil(t, l)
	res, err := r.Fetch(t.Context(), FetchOptions{})
	require.NoError(t, err)
	require.NotNil(t, res.Stored)
	require.False(t, res.Acknowledged, "held: nothing acknowledged before Ack")
	require.Equal(t, PhaseFetched, r.Phase())
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
	got, err := os.ReadFile(res.Stored.Path)
	require.NoError(t, err)
	require.Equal(t, data, got, "the operator can read the stored file before deciding")

	res, err = r.Ack(t.Context())
	require.NoError(t, err)
	require.True(t, res.Acknowledged)
	require.Equal(t, PhaseAcked, r.Phase())
	require.True(t, r.GoOn())
	require.False(t, r.Active())
	st, _ := e.sim.Entry(testConn, entry.DeliveryAttemptID)
	require.Equal(t, partnersim.StatusAcknowledged, st.Status)

	bad := e.add(t, payload(1000), partnersim.PayloadFault{WrongHashHeader: true})
	require.NoError(t, r.Begin(bad), "a finished claim is cleared by the next")
	_, err = r.Claim(t.Context(), ClaimOptions{})
	require.NoError(t, err)
	res, err = r.Fetch(t.Context(), FetchOptions{})
	require.Error(t, err)
	require.Nil(t, res.Stored)
	require.Equal(t, PhaseFetchFailed, r.Phase())
	require.ErrorIs(t, r.CanAck(), ErrNotVerified)
	_, err = r.Ack(t.Context())
	require.ErrorIs(t, err, ErrNotVerified)
	require.False(t, r.GoOn(), "a failed entry stops a run")
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, bad.DeliveryAttemptID))
	r.Clear()

	big := entry
	big.DeliveryAttemptID, big.PayloadSize = "too-big", 17<<20
	require.NoError(t, r.Begin(big))
	l, err = r.Claim(t.Context(), ClaimOptions{})
	require.ErrorIs(t, err, ErrTooLarge)
	require.Nil(t, l, "nothing claimed, no lease")
	require.Equal(t, PhaseClaimFailed, r.Phase())
	c, _ := r.Current()
	require.Equal(t, StepClaim, c.Result.FailedStep)
	require.NotEmpty(t, c.Result.CorrelationID)
}

// TestRunnerOneClaimAndOurLeases: one claim per connection; a refused or
// dropped lease of ours blocks its entry (Refuse, and Head passes over
// it) until it runs out, then it is the head again.
func TestRunnerOneClaimAndOurLeases(t *testing.T) {
	e := newEnv(t, false)
	clock := e.localClock()
	r := NewRunner(e.w.Backend(), RunnerOptions{Now: clock.Now})
	a := e.add(t, payload(1000), partnersim.PayloadFault{WrongHashHeader: true})
	e.clock.Advance(time.Second)
	b := e.add(t, payload(1000), partnersim.PayloadFault{})

	c, err := r.Head(t.Context())
	require.NoError(t, err)
	require.Equal(t, a.DeliveryAttemptID, c.Entry.DeliveryAttemptID)
	require.NoError(t, r.Begin(a))
	require.ErrorIs(t, r.Begin(b), ErrOneClaim)
	_, err = r.Claim(t.Context(), ClaimOptions{})
	require.NoError(t, err)
	require.ErrorIs(t, r.Refuse(b), ErrOneClaim)
	require.ErrorContains(t, r.Refuse(b), "one claim per connection: "+a.DeliveryAttemptID+" is claimed until")
	_, err = r.Fetch(t.Context(), FetchOptions{})
	require.Error(t, err)
	require.False(t, r.Active() && r.CanAck() == nil)

	// a's lease still runs: it is not the head, and the refused claim
	// still counts as the connection's one claim until it is dropped
	require.True(t, r.PassesOver(a.DeliveryAttemptID))
	require.True(t, r.Active())
	require.ErrorIs(t, r.Refuse(b), ErrOneClaim)
	r.Drop()
	require.Equal(t, PhaseReleased, r.Phase())
	require.ErrorIs(t, r.Refuse(a), ErrOwnLease, "a dropped lease still runs")
	require.ErrorContains(t, r.Refuse(a), "has a lease of ours until about")
	require.NoError(t, r.Refuse(b))
	head, ok := headAmong(r, a, b)
	require.True(t, ok)
	require.Equal(t, b.DeliveryAttemptID, head.DeliveryAttemptID)

	clock.Advance(LeaseDuration + time.Second)
	require.False(t, r.PassesOver(a.DeliveryAttemptID), "once the lease ran out it is due again")
	head, _ = headAmong(r, a, b)
	require.Equal(t, a.DeliveryAttemptID, head.DeliveryAttemptID)
}

// headAmong is the head among listed entries, as a face finds it: the
// first one the runner does not pass over.
func headAmong(r *Runner, entries ...apiclient.Entry) (apiclient.Entry, bool) {
	i := slices.IndexFunc(entries, func(e apiclient.Entry) bool { return !r.PassesOver(e.DeliveryAttemptID) })
	if i < 0 {
		return apiclient.Entry{}, false
	}
	return entries[i], true
}

// stuckListing is a server that keeps listing what it listed first,
// acknowledged or not (claims go to the real simulator).
type stuckListing struct {
	Backend
	pages []*apiclient.Page
	reads int
}

func (s *stuckListing) Pages(ctx context.Context, limit int) iter.Seq2[*apiclient.Page, error] {
	if s.pages == nil {
		for p, err := range s.Backend.Pages(ctx, limit) {
			if err != nil {
				return func(yield func(*apiclient.Page, error) bool) { yield(nil, err) }
			}
			s.pages = append(s.pages, p)
		}
	}
	s.reads++
	return func(yield func(*apiclient.Page, error) bool) {
		for _, p := range s.pages {
			if !yield(p, nil) {
				return
			}
		}
	}
}

// TestRunnerNeverProcessesAnIDTwice: a server that keeps listing an
// entry after its acknowledge does not make a run claim, download and
// acknowledge it again; the run ends and names it.
func TestRunnerNeverProcessesAnIDTwice(t *testing.T) {
	e := newEnv(t, false)
	a := e.add(t, payload(1000), partnersim.PayloadFault{})
	be := &stuckListing{Backend: e.w.Backend()}
	r := NewRunner(be, RunnerOptions{})
	var results []*Result
	var last Choice
	err := r.All(t.Context(), nil, func(c Choice, res *Result, err error) {
		last = c
		results = append(results, res)
		if res == nil {
			require.ErrorIs(t, err, ErrEmpty)
		}
	})
	require.NoError(t, err)
	require.Len(t, results, 2, "one entry, then the end of the mailbox")
	require.True(t, results[0].Acknowledged)
	require.Nil(t, results[1])
	require.Equal(t, []string{a.DeliveryAttemptID}, last.Relisted, "the server still lists it: said")
	require.Equal(t, 1, e.sim.RequestCount(partnersim.EndpointClaim, ""))
	require.Equal(t, 1, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
	require.ErrorIs(t, r.Refuse(a), ErrDone)
	require.Equal(t, 2, be.reads)
}

// TestRunnerAllStopsAtTheFirstFailure: entry by entry until one fails; it
// is not skipped and nothing after it is claimed.
func TestRunnerAllStopsAtTheFirstFailure(t *testing.T) {
	e := newEnv(t, false)
	ok1 := e.add(t, payload(1000), partnersim.PayloadFault{})
	e.clock.Advance(time.Second)
	bad := e.add(t, payload(1000), partnersim.PayloadFault{Trailer: partnersim.TrailerFailed})
	e.clock.Advance(time.Second)
	later := e.add(t, payload(1000), partnersim.PayloadFault{})
	r := NewRunner(e.w.Backend(), RunnerOptions{})
	var ids []string
	err := r.All(t.Context(), nil, func(c Choice, res *Result, _ error) {
		if res != nil {
			ids = append(ids, c.Entry.DeliveryAttemptID)
		}
	})
	require.Error(t, err)
	require.ErrorIs(t, err, apiclient.ErrIntegrity)
	require.Equal(t, []string{ok1.DeliveryAttemptID, bad.DeliveryAttemptID}, ids)
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointClaim, later.DeliveryAttemptID))
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, bad.DeliveryAttemptID))

	noAck := func(apiclient.Entry) ProcessOptions { return ProcessOptions{} }
	require.Error(t, NewRunner(e.w.Backend(), RunnerOptions{}).All(t.Context(), noAck, nil), "a run over the mailbox must acknowledge")
}

// clearing is a backend whose claim gives the claim up (the face
// cleared it) while the claim is on its way.
type clearing struct {
	Backend
	r    *Runner
	held Held
}

func (c *clearing) Claim(ctx context.Context, e apiclient.Entry, opts ClaimOptions) (Held, error) {
	c.r.Clear()
	h, err := c.Backend.Claim(ctx, e, opts)
	c.held = h
	return h, err
}

// TestRunnerClaimGivenUp: a claim answered after the face gave it up
// (Clear while it was on its way) has its token forgotten at once.
func TestRunnerClaimGivenUp(t *testing.T) {
	e := newEnv(t, false)
	a := e.add(t, payload(1000), partnersim.PayloadFault{})
	be := &clearing{Backend: e.w.Backend()}
	r := NewRunner(be, RunnerOptions{})
	be.r = r
	require.NoError(t, r.Begin(a))
	_, err := r.Claim(t.Context(), ClaimOptions{})
	require.ErrorContains(t, err, "given up while it was answered")
	require.NotNil(t, be.held, "the server made the claim")
	require.ErrorIs(t, be.held.CanAck(), ErrReleased, "its token is forgotten")
	require.False(t, r.Active())
	_, ok := r.Current()
	require.False(t, ok)
	require.ErrorIs(t, r.Refuse(a), ErrOwnLease, "its lease still runs on the server: not claimed again during it")
	require.True(t, r.PassesOver(a.DeliveryAttemptID))
}

// TestRunnerCanFetch: a lease is fetched once, within the lease, and
// only when claimed; the refusals say which.
func TestRunnerCanFetch(t *testing.T) {
	e := newEnv(t, false)
	clock := e.localClock()
	r := NewRunner(e.w.Backend(), RunnerOptions{Now: clock.Now})
	require.ErrorIs(t, r.CanFetch(), ErrNoClaim)
	a := e.add(t, payload(1000), partnersim.PayloadFault{})
	require.NoError(t, r.Begin(a))
	require.ErrorIs(t, r.CanFetch(), ErrNoClaim, "claiming, not claimed")
	_, err := r.Claim(t.Context(), ClaimOptions{})
	require.NoError(t, err)
	require.NoError(t, r.CanFetch())
	clock.Advance(LeaseDuration)
	require.ErrorIs(t, r.CanFetch(), ErrLeaseExpired)
	_, err = r.Fetch(t.Context(), FetchOptions{})
	require.ErrorIs(t, err, ErrLeaseExpired)
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointPayload, ""), "nothing downloaded on an ended lease")

	b := e.add(t, payload(1000), partnersim.PayloadFault{})
	r.Clear()
	require.NoError(t, r.Begin(b))
	_, err = r.Claim(t.Context(), ClaimOptions{})
	require.NoError(t, err)
	_, err = r.Fetch(t.Context(), FetchOptions{})
	require.NoError(t, err)
	require.ErrorIs(t, r.CanFetch(), ErrFetched)
	r.Drop()
	require.ErrorIs(t, r.CanFetch(), ErrNoClaim, "dropped")
}

// slowHeld is a lease whose acknowledge waits for its context: the
// answer never comes.
type slowHeld struct {
	Held
	left time.Duration
}

func (h *slowHeld) Remaining() time.Duration { return h.left }
func (h *slowHeld) Deadline() time.Time      { return time.Now().Add(h.left) }
func (h *slowHeld) CanAck() error            { return nil }
func (h *slowHeld) Ack(ctx context.Context) (*Result, error) {
	<-ctx.Done()
	return &Result{}, context.Cause(ctx)
}

type slowBackend struct {
	Backend
	held *slowHeld
}

func (b slowBackend) Claim(context.Context, apiclient.Entry, ClaimOptions) (Held, error) {
	return b.held, nil
}

// TestRunnerAckInFlightEndsWithTheLease: an acknowledge still waiting
// when the lease ends is given up then, with the lease as the cause; the
// entry is not counted as acknowledged.
func TestRunnerAckInFlightEndsWithTheLease(t *testing.T) {
	h := &slowHeld{left: 30 * time.Millisecond}
	r := NewRunner(slowBackend{held: h}, RunnerOptions{})
	e := apiclient.Entry{DeliveryAttemptID: "da-slow"}
	require.NoError(t, r.Begin(e))
	_, err := r.Claim(t.Context(), ClaimOptions{})
	require.NoError(t, err)
	r.mu.Lock()
	r.cur.phase = PhaseFetched // as after a passed fetch
	r.mu.Unlock()
	_, err = r.Ack(t.Context())
	require.ErrorIs(t, err, ErrLeaseExpired)
	require.Equal(t, PhaseAckFailed, r.Phase())
	require.False(t, r.GoOn())
	_, acked := r.Acknowledged("da-slow")
	require.False(t, acked)
}

// Moved from the Worker tests: Worker.Select/Choose/Next/Find are the
// runner's Head and Find now.

func TestRunnerHeadAndFind(t *testing.T) {
	e := newEnv(t, false)
	_, err := e.head(t.Context())
	require.ErrorIs(t, err, ErrEmpty)
	big, err := e.sim.AddEntry(testConn, partnersim.Delivery{MessageType: "ORDRSP", Payload: make([]byte, apiclient.MaxPayloadSize+1)})
	require.NoError(t, err)
	noSize, err := e.sim.AddEntry(testConn, partnersim.Delivery{MessageType: "ORDRSP", Payload: []byte("x"), Fault: partnersim.PayloadFault{OmitListingSize: true}})
	require.NoError(t, err)
	c, err := e.runner().Head(t.Context())
	require.ErrorIs(t, err, ErrEmpty, "entries the client would refuse are passed over")
	require.Len(t, c.Skipped, 2)

	ok := e.add(t, payload(100), partnersim.PayloadFault{})
	_, err = e.sim.AddEntry(testConn, partnersim.Delivery{MessageType: "ORDRSP", Payload: []byte("x"), Fault: partnersim.PayloadFault{MalformedListingHash: true}})
	require.NoError(t, err)
	c, err = e.runner().Head(t.Context())
	require.NoError(t, err)
	require.Equal(t, ok.DeliveryAttemptID, c.Entry.DeliveryAttemptID, "the next processable entry, despite the bad ones before it")
	require.Equal(t, []string{big, noSize}, []string{c.Skipped[0].DeliveryAttemptID, c.Skipped[1].DeliveryAttemptID}, "only those before it")
	require.Len(t, c.Skipped, 2)
	require.Contains(t, c.Skipped[0].Reason, "16 MiB")

	got, err := e.find(t.Context(), ok.DeliveryAttemptID)
	require.NoError(t, err)
	require.Equal(t, ok, got)
	_, err = e.find(t.Context(), "nope")
	require.ErrorIs(t, err, ErrNotListed)
	_, err = e.find(t.Context(), big)
	require.ErrorIs(t, err, ErrUnusable, "listed but refused: said so, not 'not listed'")
	require.ErrorContains(t, err, "16 MiB")
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointClaim, ""))
}

func TestRunnerHeadAndFindPaging(t *testing.T) {
	e := newEnv(t, false)
	_, err := e.head(t.Context())
	require.ErrorIs(t, err, ErrEmpty)
	var ids []string
	for range 230 {
		id, err := e.sim.AddEntry(testConn, partnersim.Delivery{MessageType: "CONTRL", Payload: []byte("x")})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	first, err := e.head(t.Context())
	require.NoError(t, err)
	require.Equal(t, ids[0], first.DeliveryAttemptID)
	last, err := e.find(t.Context(), ids[229])
	require.NoError(t, err, "found on the third page")
	require.Equal(t, ids[229], last.DeliveryAttemptID)
	_, err = e.find(t.Context(), "no-such-id\x1b[2J")
	require.ErrorIs(t, err, ErrNotListed)
	require.NotContains(t, err.Error(), "\x1b")
}
