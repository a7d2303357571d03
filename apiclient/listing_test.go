package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// TestListMailboxSkipsOversizedFields: an entry whose informational
// fields are far too long for what they name (a 30 KB messageType) is
// skipped and reported like a bad ID, not held; the reason quotes no
// server value.
func TestListMailboxSkipsOversizedFields(t *testing.T) {
	entries := []any{entryJSON("ok-1")}
	for _, field := range []string{"interchangeId", "messageType", "status", "createdAt"} {
		e := entryJSON("big-" + field)
		e[field] = strings.Repeat("Z", 30000)
		entries = append(entries, e)
	}
	edge := entryJSON("edge")
	edge["messageType"] = strings.Repeat("M", MaxInfoField)
	entries = append(entries, edge)
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"data": entries, "meta": map[string]any{"hasMore": false}})
	}))
	p, err := env.c.ListMailbox(context.Background(), 0, "")
	require.NoError(t, err)
	require.Len(t, p.Entries, 2)
	require.Equal(t, "ok-1", p.Entries[0].DeliveryAttemptID)
	require.Equal(t, "edge", p.Entries[1].DeliveryAttemptID, "exactly MaxInfoField bytes is kept")
	require.Len(t, p.Skipped, 4)
	for i, field := range []string{"interchangeId", "messageType", "status", "createdAt"} {
		require.Equal(t, "big-"+field, p.Skipped[i].DeliveryAttemptID)
		require.Equal(t, i+1, p.Skipped[i].Index)
		require.Equal(t, fmt.Sprintf("%s is 30000 bytes long, more than %d", field, MaxInfoField), p.Skipped[i].Reason)
	}
}

// TestListMailboxRefusesOverfullPage: a page with more entries than the
// largest limit breaks the contract; its entries are not held.
func TestListMailboxRefusesOverfullPage(t *testing.T) {
	data := make([]any, MaxListLimit+1)
	for i := range data {
		data[i] = entryJSON(fmt.Sprint("d", i))
	}
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"data": data, "meta": map[string]any{"hasMore": false}})
	}))
	_, err := env.c.ListMailbox(context.Background(), 0, "")
	require.ErrorIs(t, err, ErrUnexpected)
	require.ErrorContains(t, err, "mailbox page holds 101 entries, more than the limit of 100")

	data = data[:MaxListLimit]
	p, err := env.c.ListMailbox(context.Background(), 0, "")
	require.NoError(t, err)
	require.Len(t, p.Entries, MaxListLimit)
}

// TestPagesCountsRepeatedIDsOnce: an ID listed again on a later page is
// left out of that page's Entries and named in its Repeated, so a walk
// counts each delivery once (it used to count "12 due entries" for 2).
func TestPagesCountsRepeatedIDsOnce(t *testing.T) {
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 0
		if c := r.URL.Query().Get("cursor"); c != "" {
			_, _ = fmt.Sscan(c, &n)
		}
		meta := map[string]any{"hasMore": n < 5}
		if n < 5 {
			meta["nextCursor"] = fmt.Sprint(n + 1)
		}
		data := []any{entryJSON("da-1"), entryJSON("da-2")}
		if n == 3 {
			data = append(data, entryJSON("da-3"))
		}
		writeJSON(w, 200, map[string]any{"data": data, "meta": meta})
	}), func(c *Config) { c.Limiter = rate.NewLimiter(rate.Inf, 0) })
	var ids, repeated []string
	for p, err := range env.c.Pages(context.Background(), 3) {
		require.NoError(t, err)
		for _, e := range p.Entries {
			ids = append(ids, e.DeliveryAttemptID)
		}
		repeated = append(repeated, p.Repeated...)
	}
	require.Equal(t, []string{"da-1", "da-2", "da-3"}, ids)
	require.Len(t, repeated, 10, "5 later pages repeat da-1 and da-2")
	require.Equal(t, []string{"da-1", "da-2"}, repeated[:2])

	// One page on its own is not deduplicated against anything.
	p, err := env.c.ListMailbox(context.Background(), 3, "2")
	require.NoError(t, err)
	require.Len(t, p.Entries, 2)
	require.Empty(t, p.Repeated)
}

func TestRepeatTallyNote(t *testing.T) {
	var none RepeatTally
	require.Empty(t, none.Note())
	var one RepeatTally
	one.Add([]string{"da-\x1b[31m1"})
	require.Equal(t, "the server listed 1 entry again on a later page (da-^[[31m1); each delivery is counted once", one.Note())
	var many RepeatTally
	for i := range 8 {
		many.Add([]string{fmt.Sprint("d", i), "d0"})
	}
	require.Equal(t, 16, many.N)
	require.Equal(t, []string{"d0", "d1", "d2", "d3", "d4"}, many.First, "the first 5 distinct IDs, bounded")
}
