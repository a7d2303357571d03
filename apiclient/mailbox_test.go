package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

const okHash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func entryJSON(id string) map[string]any {
	return map[string]any{"deliveryAttemptId": id, "interchangeId": "i-" + id, "messageType": "ORDRSP",
		"payloadSize": 4, "payloadSha256": okHash, "status": "due", "createdAt": "2025-06-02T08:00:00Z"}
}

func TestListMailboxLimitValidatedLocally(t *testing.T) {
	var n atomic.Int32
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		writeJSON(w, 200, map[string]any{"data": []any{}, "meta": map[string]any{"hasMore": false}})
	}))
	for _, bad := range []int{-1, 101, 1000} {
		_, err := env.c.ListMailbox(context.Background(), bad, "")
		require.ErrorIs(t, err, ErrInvalidRequest)
		require.ErrorContains(t, err, "1..100")
	}
	require.Zero(t, n.Load(), "an invalid limit is never sent")
	for _, ok := range []int{0, 1, 100} {
		_, err := env.c.ListMailbox(context.Background(), ok, "")
		require.NoError(t, err)
	}
}

// TestPagesFollowsCursorUnchanged serves three pages with cursors full of
// characters that need escaping and checks each comes back byte for byte.
func TestPagesFollowsCursorUnchanged(t *testing.T) {
	cursors := []string{"", "a+b/c==&limit=1 ü", "%2F..%00"}
	var seen []string
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		seen = append(seen, q.Get("cursor"))
		require.Equal(t, "2", q.Get("limit"))
		i := len(seen) - 1
		meta := map[string]any{"hasMore": i < 2}
		if i < 2 {
			meta["nextCursor"] = cursors[i+1]
		}
		writeJSON(w, 200, map[string]any{"data": []any{entryJSON(fmt.Sprint("d", 2*i)), entryJSON(fmt.Sprint("d", 2*i+1))}, "meta": meta})
	}))
	var ids []string
	for p, err := range env.c.Pages(context.Background(), 2) {
		require.NoError(t, err)
		for _, e := range p.Entries {
			ids = append(ids, e.DeliveryAttemptID)
		}
	}
	require.Equal(t, cursors, seen)
	require.Equal(t, []string{"d0", "d1", "d2", "d3", "d4", "d5"}, ids)
}

func TestPagesStopsOnRepeatedCursorAndErrors(t *testing.T) {
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"data": []any{}, "meta": map[string]any{"hasMore": true, "nextCursor": "same"}})
	}))
	var pages, errs int
	for p, err := range env.c.Pages(context.Background(), 0) {
		if err != nil {
			errs++
			require.ErrorIs(t, err, ErrUnexpected)
			require.Nil(t, p)
			continue
		}
		pages++
	}
	require.Equal(t, 2, pages)
	require.Equal(t, 1, errs)

	// Breaking out of the loop stops paging.
	var n int
	for range env.c.Pages(context.Background(), 0) {
		n++
		break
	}
	require.Equal(t, 1, n)
}

func TestListMailboxDecodesEntries(t *testing.T) {
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"data": []any{entryJSON("d-1")}, "meta": map[string]any{"hasMore": false, "nextCursor": ""}})
	}))
	p, err := env.c.ListMailbox(context.Background(), 0, "")
	require.NoError(t, err)
	require.False(t, p.HasMore)
	require.Len(t, p.Entries, 1)
	e := p.Entries[0]
	require.Equal(t, "d-1", e.DeliveryAttemptID)
	require.Equal(t, "i-d-1", e.InterchangeID)
	require.Equal(t, "ORDRSP", e.MessageType)
	require.Equal(t, int64(4), e.PayloadSize)
	require.Equal(t, Expect{Size: 4, SHA256: okHash}, e.Expect())
	require.Equal(t, "2025-06-02T08:00:00Z", e.CreatedAt.Format("2006-01-02T15:04:05Z07:00"))
}

// TestListMailboxNoticesGarbage: answers that break the contract are
// errors, never silently empty pages.
func TestListMailboxNoticesGarbage(t *testing.T) {
	good := `{"deliveryAttemptId":"d","payloadSize":1,"payloadSha256":"` + okHash + `","createdAt":"2025-06-02T08:00:00Z"}`
	tests := []struct{ name, ctype, body, want string }{
		{"html", "text/html", "<html>", "not JSON"},
		{"truncated", "application/json", `{"data":[`, "malformed"},
		{"trailing data", "application/json", `{"data":[],"meta":{"hasMore":false}} {}`, "after the JSON"},
		{"no data", "application/json", `{"meta":{"hasMore":false}}`, "lacks data"},
		{"no meta", "application/json", `{"data":[]}`, "lacks data"},
		{"no hasMore", "application/json", `{"data":[],"meta":{}}`, "hasMore"},
		{"hasMore no cursor", "application/json", `{"data":[],"meta":{"hasMore":true}}`, "no nextCursor"},
		{"data not array", "application/json", `{"data":{},"meta":{"hasMore":false}}`, "malformed"},
		{"entry no id", "application/json", `{"data":[{"payloadSize":1,"payloadSha256":"` + okHash + `"}],"meta":{"hasMore":false}}`, "deliveryAttemptId is empty"},
		{"entry dotdot id", "application/json", `{"data":[` + strings.Replace(good, `"d"`, `".."`, 1) + `],"meta":{"hasMore":false}}`, "not a valid ID"},
		{"entry no size", "application/json", `{"data":[{"deliveryAttemptId":"d","payloadSha256":"` + okHash + `"}],"meta":{"hasMore":false}}`, "payloadSize is missing"},
		{"entry negative size", "application/json", `{"data":[` + strings.Replace(good, `"payloadSize":1`, `"payloadSize":-1`, 1) + `],"meta":{"hasMore":false}}`, "negative"},
		{"entry bad hash", "application/json", `{"data":[` + strings.Replace(good, okHash, "xyz", 1) + `],"meta":{"hasMore":false}}`, "64 hex"},
		{"entry bad time", "application/json", `{"data":[` + strings.Replace(good, "2025-06-02T08:00:00Z", "yesterday", 1) + `],"meta":{"hasMore":false}}`, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ctype)
				_, _ = w.Write([]byte(tt.body))
			}))
			_, err := env.c.ListMailbox(context.Background(), 0, "")
			require.ErrorIs(t, err, ErrUnexpected)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestListQueryEncoding(t *testing.T) {
	var raw string
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw = r.URL.RawQuery
		writeJSON(w, 200, map[string]any{"data": []any{}, "meta": map[string]any{"hasMore": false}})
	}))
	_, err := env.c.ListMailbox(context.Background(), 0, "x&limit=5")
	require.NoError(t, err)
	q, err := url.ParseQuery(raw)
	require.NoError(t, err)
	require.Equal(t, url.Values{"cursor": {"x&limit=5"}}, q, "the cursor cannot inject a parameter")
}
