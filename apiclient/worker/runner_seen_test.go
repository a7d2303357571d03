package worker

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// memJournal is a seen journal in memory.
type memJournal struct {
	mu   sync.Mutex
	recs []spool.SeenRecord
	fail error
}

func (j *memJournal) NoteSeen(rec spool.SeenRecord) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fail != nil {
		return j.fail
	}
	j.recs = append(j.recs, rec)
	return nil
}

func (j *memJournal) states() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for _, r := range j.recs {
		out = append(out, r.DeliveryAttemptID+" "+string(r.State)+" "+r.Step)
	}
	return out
}

// TestRunnerWritesTheSeenJournal: the runner, not a face, writes what it
// saw of entries it did not store and acknowledge — a payload refused by
// a check (with the checks), a claim that failed, a lease dropped before
// its download (written by FlushSeen: Drop does no I/O) — and nothing
// for an entry stored and acknowledged.
func TestRunnerWritesTheSeenJournal(t *testing.T) {
	e := newEnv(t, false)
	j := &memJournal{}
	r := NewRunner(e.w.Backend(), RunnerOptions{Journal: j, ConnectionID: testConn})

	good := e.add(t, payload(1000), partnersim.PayloadFault{})
	res, err := r.Process(t.Context(), good, ProcessOptions{Ack: true})
	require.NoError(t, err)
	require.True(t, res.Acknowledged)
	require.Empty(t, j.states(), "stored and acknowledged: the sidecar tells it")
	r.Clear()

	bad := e.add(t, payload(1000), partnersim.PayloadFault{WrongHashHeader: true})
	_, err = r.Process(t.Context(), bad, ProcessOptions{Ack: true})
	require.Error(t, err)
	require.Equal(t, []string{bad.DeliveryAttemptID + " refused verify"}, j.states())
	require.Contains(t, j.recs[0].Checks, "hashHeader")
	require.Equal(t, testConn, j.recs[0].ConnectionID)
	require.False(t, j.recs[0].LeaseExpiresAt.IsZero())
	r.Clear()

	big := good
	big.DeliveryAttemptID, big.PayloadSize = "too-big", 17<<20
	require.NoError(t, r.Begin(big))
	_, err = r.Claim(t.Context(), ClaimOptions{})
	require.ErrorIs(t, err, ErrTooLarge)
	require.Equal(t, "too-big failed claim", j.states()[1])
	r.Clear()

	left := e.add(t, payload(1000), partnersim.PayloadFault{})
	require.NoError(t, r.Begin(left))
	_, err = r.Claim(t.Context(), ClaimOptions{})
	require.NoError(t, err)
	r.Drop()
	require.Len(t, j.states(), 2, "Drop does no I/O")
	r.FlushSeen()
	require.Equal(t, left.DeliveryAttemptID+" claimed ", j.states()[2])
	require.False(t, j.recs[2].LeaseExpiresAt.IsZero())
	r.FlushSeen()
	require.Len(t, j.states(), 3, "each line once")

	// A journal that cannot be written is told, and the run goes on.
	var told error
	j2 := &memJournal{fail: errors.New("disk full")}
	r2 := NewRunner(e.w.Backend(), RunnerOptions{Journal: j2, ConnectionID: testConn, SeenError: func(err error) { told = err }})
	bad2 := e.add(t, payload(1000), partnersim.PayloadFault{WrongHashHeader: true})
	_, err = r2.Process(t.Context(), bad2, ProcessOptions{Ack: true})
	require.Error(t, err)
	require.EqualError(t, told, "disk full")
}

// TestRunnerHeadID: the head the runner knows is the first listed entry
// it does not pass over; a listing with none but more pages asks for a
// search, whose answer is then the head, and after the head is
// acknowledged the next entry of its page.
func TestRunnerHeadID(t *testing.T) {
	e := newEnv(t, false)
	e.addRaw(t, "da-huge", payload(100), partnersim.PayloadFault{AnnounceSize: 1 << 40})
	e.addRaw(t, "da-head", payload(100), partnersim.PayloadFault{})
	e.addRaw(t, "da-next", payload(100), partnersim.PayloadFault{})
	r := NewRunner(e.w.Backend(), RunnerOptions{PageSize: 1})
	_, ok := r.HeadID()
	require.False(t, ok, "nothing read yet")
	require.True(t, r.NoteListing(nil, true), "page 1 of refused entries: search")
	_, ok = r.HeadID()
	require.False(t, ok)
	c, err := r.Head(t.Context())
	require.NoError(t, err)
	id, ok := r.HeadID()
	require.True(t, ok)
	require.Equal(t, c.Entry.DeliveryAttemptID, id)
	res, err := r.Process(t.Context(), c.Entry, ProcessOptions{Ack: true})
	require.NoError(t, err, res)
	_, ok = r.HeadID()
	require.False(t, ok, "page size 1: the head's page has nothing after it")

	c2, err := r.Head(t.Context())
	require.NoError(t, err)
	require.Equal(t, "da-next", c2.Entry.DeliveryAttemptID)
	require.False(t, r.NoteListing([]apiclient.Entry{c.Entry, c2.Entry}, false), "the head is listed")
	id, _ = r.HeadID()
	require.Equal(t, "da-next", id, "the acknowledged one is passed over")
}
