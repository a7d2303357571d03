package apiclient_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
)

// TestSimPagingFaults: a listing that would never end stops with ErrPaging
// (endless fresh cursors after MaxPages pages, a repeated cursor at once,
// hasMore without a cursor at once), after yielding the pages it got.
func TestSimPagingFaults(t *testing.T) {
	tests := []struct {
		name  string
		fault partnersim.PagingFault
		pages int
		want  string
	}{
		{"endless", partnersim.PagingEndless, apiclient.MaxPages, "stopped after 1000 pages"},
		{"repeated cursor", partnersim.PagingRepeatCursor, 2, "already returned"},
		{"no cursor", partnersim.PagingNoCursor, 0, "no nextCursor"},
	}
	for _, m := range modes {
		for _, tt := range tests {
			t.Run(m.name+"/"+tt.name, func(t *testing.T) {
				e := newSimEnv(t, m.mode)
				c := e.client(simConn)
				for range 3 {
					e.add(payload(10), partnersim.PayloadFault{})
				}
				e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointList, Paging: tt.fault})
				pages, entries := 0, 0
				var last error
				for p, err := range c.Pages(t.Context(), 2) {
					if err != nil {
						last = err
						continue
					}
					pages++
					entries += len(p.Entries)
				}
				require.ErrorIs(t, last, apiclient.ErrPaging)
				require.ErrorContains(t, last, tt.want)
				require.Equal(t, tt.pages, pages)
				require.LessOrEqual(t, entries, 2*apiclient.MaxPages, "memory stays bounded")
				e.eventually(func() bool { return e.sim.RequestCount(partnersim.EndpointList, "") == max(tt.pages, 1) })
			})
		}
	}
}

// TestSimHostileEntriesAreSkipped: one entry with ID "..", one announcing
// 10^15 bytes, one without a size and one with a malformed hash do not
// hide the valid entries; each is reported with its reason.
func TestSimHostileEntriesAreSkipped(t *testing.T) {
	inEachMode(t, func(t *testing.T, e *simEnv, c *apiclient.Client) {
		good1 := e.add(payload(10), partnersim.PayloadFault{})
		_, err := e.sim.AddEntry(simConn, partnersim.Delivery{ID: "..", MessageType: "ORDRSP", Payload: payload(5)})
		require.NoError(t, err)
		e.add(payload(10), partnersim.PayloadFault{AnnounceSize: 1e15})
		e.add(payload(10), partnersim.PayloadFault{OmitListingSize: true})
		e.add(payload(10), partnersim.PayloadFault{MalformedListingHash: true})
		good2 := e.add(payload(10), partnersim.PayloadFault{})

		p, err := c.ListMailbox(t.Context(), 0, "")
		require.NoError(t, err)
		var ids []string
		for _, en := range p.Entries {
			ids = append(ids, en.DeliveryAttemptID)
		}
		require.Equal(t, []string{good1, good2}, ids)
		require.Len(t, p.Skipped, 4)
		for i, want := range []string{"not a valid ID", "exceeds the contract's 16 MiB limit", "payloadSize is missing", "not 64 hex digits"} {
			require.Equal(t, i+1, p.Skipped[i].Index)
			require.Contains(t, p.Skipped[i].Reason, want)
		}
		require.Equal(t, "..", p.Skipped[0].DeliveryAttemptID)
		// The valid ones can still be processed.
		claim, err := c.Claim(t.Context(), good2)
		require.NoError(t, err)
		_, err = c.Download(t.Context(), claim, p.Entries[1].Expect(), &bytes.Buffer{}, nil)
		require.NoError(t, err)
	})
}

// TestSimHostileSizeNeverFillsTheDisk: a payload header announcing 10^15
// bytes over an endless body is refused before a byte is written; an
// endless body under honest sizes is cut at the announced size.
func TestSimHostileSizeNeverFillsTheDisk(t *testing.T) {
	inEachMode(t, func(t *testing.T, e *simEnv, c *apiclient.Client) {
		body := payload(64 << 10)

		id := e.add(body, partnersim.PayloadFault{})
		en := e.entry(c, id)
		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointPayload, Entry: id,
			Payload: partnersim.PayloadFault{Endless: true, AnnounceSize: 1e15}})
		claim, err := c.Claim(t.Context(), id)
		require.NoError(t, err)
		disk := &limitedDisk{room: 2 * apiclient.MaxPayloadSize}
		rep, err := c.Download(t.Context(), claim, en.Expect(), disk, nil)
		require.ErrorIs(t, err, apiclient.ErrIntegrity)
		require.Zero(t, disk.n, "nothing written")
		require.ErrorContains(t, rep.ReadErr, "more than the contract's 16 MiB limit")

		id = e.add(body, partnersim.PayloadFault{Endless: true})
		en = e.entry(c, id)
		claim, err = c.Claim(t.Context(), id)
		require.NoError(t, err)
		disk = &limitedDisk{room: 2 * apiclient.MaxPayloadSize}
		rep, err = c.Download(t.Context(), claim, en.Expect(), disk, nil)
		require.ErrorIs(t, err, apiclient.ErrIntegrity)
		require.Equal(t, int64(len(body)), disk.n, "cut at the announced size")
		require.NoError(t, rep.SinkErr)
		require.ErrorContains(t, rep.ReadErr, "goes on past")
		require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
	})
}

// limitedDisk fails once more than room bytes arrive.
type limitedDisk struct{ n, room int64 }

func (d *limitedDisk) Write(p []byte) (int, error) {
	if d.n+int64(len(p)) > d.room {
		return 0, errors.New("disk full")
	}
	d.n += int64(len(p))
	return len(p), nil
}

// TestSimShortRetryAfter: a 503 with Retry-After: 1 on the mailbox is
// retried one second later, not after the schedule's 30 s.
func TestSimShortRetryAfter(t *testing.T) {
	inEachMode(t, func(t *testing.T, e *simEnv, c *apiclient.Client) {
		e.add(payload(10), partnersim.PayloadFault{})
		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointList, Times: 1, Status: 503, RetryAfter: time.Second})
		p, err := c.ListMailbox(t.Context(), 0, "")
		require.NoError(t, err)
		require.Len(t, p.Entries, 1)
		require.Equal(t, []time.Duration{time.Second}, e.waits.Waits())
	})
}

// TestSimRetryPastLeaseStops: the payload answers 503 with Retry-After:
// 3600 during a five-minute lease: no retry, ErrLeaseTooShort, nothing
// acknowledged, and the entry is due again once the lease ran out.
func TestSimRetryPastLeaseStops(t *testing.T) {
	inEachMode(t, func(t *testing.T, e *simEnv, c *apiclient.Client) {
		id := e.add(payload(100), partnersim.PayloadFault{})
		en := e.entry(c, id)
		claim, err := c.Claim(t.Context(), id)
		require.NoError(t, err)
		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointPayload, Status: 503, RetryAfter: time.Hour})
		var sink bytes.Buffer
		_, err = c.Download(t.Context(), claim, en.Expect(), &sink, nil)
		require.ErrorIs(t, err, apiclient.ErrLeaseTooShort)
		require.ErrorIs(t, err, apiclient.ErrUnavailable)
		require.ErrorContains(t, err, "becomes due again")
		require.NotContains(t, err.Error(), simToken)
		require.Empty(t, e.waits.Waits())
		require.Zero(t, sink.Len())
		e.eventually(func() bool { return e.sim.RequestCount(partnersim.EndpointPayload, id) == 1 })
		require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
		e.clock.Advance(partnersim.LeaseDuration)
		st, _ := e.sim.Entry(simConn, id)
		require.Equal(t, partnersim.StatusDue, st.Status)
	})
}
