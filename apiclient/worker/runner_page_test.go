package worker

import (
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
)

// All reads the mailbox again only when the page it read has no entry
// left: 120 deliveries on pages of 50 take 4 listings (three heads and
// the empty mailbox at the end), not one per delivery (121). Every
// delivery is claimed once.
func TestAllListsOncePerPage(t *testing.T) {
	r, be := drainEnv(t, 120, rate.NewLimiter(rate.Inf, 1))
	r.SetPageSize(50)
	var order []string
	var ends []error
	err := r.All(t.Context(), nil, func(c Choice, res *Result, err error) {
		if res == nil {
			ends = append(ends, err)
			return
		}
		require.NoError(t, err)
		order = append(order, c.Entry.DeliveryAttemptID)
	})
	require.NoError(t, err)
	require.Len(t, ends, 1)
	require.ErrorIs(t, ends[0], ErrEmpty)
	require.Len(t, order, 120)
	require.Equal(t, 120, be.claims, "one claim per delivery")
	require.Equal(t, 4, be.pages, "mailbox pages read")
	seen := map[string]bool{}
	for _, id := range order {
		require.False(t, seen[id], "claimed twice: %s", id)
		seen[id] = true
	}
}

// An entry taken from a page read earlier may have been claimed by
// another client since: its claim's 409 is not the run's failure, the
// mailbox is read again and the run goes on without it.
func TestAllReadsAgainWhenAPageEntryWasClaimedElsewhere(t *testing.T) {
	r, be, w := drainEnvWorker(t, 5, rate.NewLimiter(rate.Inf, 1))
	var done []string
	var other *Lease
	var taken apiclient.Entry
	err := r.All(t.Context(), nil, func(c Choice, res *Result, err error) {
		if res == nil {
			require.ErrorIs(t, err, ErrEmpty)
			return
		}
		require.NoError(t, err)
		done = append(done, c.Entry.DeliveryAttemptID)
		if len(done) == 1 {
			// Another client claims the next entry on the page.
			taken = c.Page.Entries[1]
			var cerr error
			other, cerr = w.Claim(t.Context(), taken, ClaimOptions{})
			require.NoError(t, cerr)
		}
	})
	require.NoError(t, err)
	require.NotNil(t, other)
	defer other.Release()
	require.Len(t, done, 4, "the other four")
	require.NotContains(t, done, taken.DeliveryAttemptID)
	require.Equal(t, 5, be.claims, "four claims of ours passed, one was answered 409")
	require.Equal(t, 3, be.pages, "the first head, again after the 409, the empty end")
}
