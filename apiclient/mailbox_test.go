package apiclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
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
			require.ErrorIs(t, err, ErrPaging)
			require.ErrorContains(t, err, "already returned")
			require.NotErrorIs(t, err, ErrPageCap, "a looping cursor is not a cap")
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

// TestPagesStopsAfterMaxPages: a server that answers hasMore with a fresh
// cursor forever is stopped after MaxPages pages (or Config.MaxPages) with
// ErrPaging, after yielding those pages.
func TestPagesStopsAfterMaxPages(t *testing.T) {
	var n atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		writeJSON(w, 200, map[string]any{"data": []any{entryJSON(fmt.Sprint("d", i))}, "meta": map[string]any{"hasMore": true, "nextCursor": fmt.Sprint("c", i)}})
	})
	for _, tt := range []struct {
		name     string
		maxPages int
		want     int
	}{{"default", 0, MaxPages}, {"configured", 7, 7}} {
		t.Run(tt.name, func(t *testing.T) {
			n.Store(0)
			env := newEnv(t, h, func(c *Config) { c.MaxPages, c.Limiter = tt.maxPages, rate.NewLimiter(rate.Inf, 0) })
			var pages int
			var last error
			for p, err := range env.c.Pages(context.Background(), 100) {
				if err != nil {
					last = err
					continue
				}
				require.Len(t, p.Entries, 1)
				pages++
			}
			require.Equal(t, tt.want, pages)
			require.Equal(t, int64(tt.want), n.Load(), "no request after the limit")
			require.ErrorIs(t, last, ErrPaging)
			require.ErrorContains(t, last, fmt.Sprintf("stopped after %d pages", tt.want))
			require.ErrorIs(t, last, ErrPageCap, "the pages read are real: callers keep them")
		})
	}
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
	tests := []struct{ name, ctype, body, want string }{
		{"html", "text/html", "<html>", "not JSON"},
		{"truncated", "application/json", `{"data":[`, "malformed"},
		{"trailing data", "application/json", `{"data":[],"meta":{"hasMore":false}} {}`, "after the JSON"},
		{"no data", "application/json", `{"meta":{"hasMore":false}}`, "lacks data"},
		{"no meta", "application/json", `{"data":[]}`, "lacks data"},
		{"no hasMore", "application/json", `{"data":[],"meta":{}}`, "hasMore"},
		{"hasMore no cursor", "application/json", `{"data":[],"meta":{"hasMore":true}}`, "no nextCursor"},
		{"hasMore empty cursor", "application/json", `{"data":[],"meta":{"hasMore":true,"nextCursor":""}}`, "no nextCursor"},
		{"data not array", "application/json", `{"data":{},"meta":{"hasMore":false}}`, "malformed"},
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
			require.Equal(t, strings.Contains(tt.want, "nextCursor"), errors.Is(err, ErrPaging), "paging errors match ErrPaging")
		})
	}
}

// TestListMailboxSkipsUnusableEntries: one bad entry between two good ones
// is reported in Skipped (index, raw ID, reason) and the good ones are
// listed, in order; the page is not an error.
func TestListMailboxSkipsUnusableEntries(t *testing.T) {
	good := func(id string) string {
		return `{"deliveryAttemptId":"` + id + `","payloadSize":1,"payloadSha256":"` + okHash + `","createdAt":"2025-06-02T08:00:00Z"}`
	}
	bad := good("bad")
	tests := []struct{ name, entry, id, reason string }{
		{"no id", `{"payloadSize":1,"payloadSha256":"` + okHash + `"}`, "", "deliveryAttemptId is missing"},
		{"empty id", strings.Replace(bad, `"bad"`, `""`, 1), "", "deliveryAttemptId is empty"},
		{"dot id", strings.Replace(bad, `"bad"`, `"."`, 1), ".", "not a valid ID"},
		{"dotdot id", strings.Replace(bad, `"bad"`, `".."`, 1), "..", "not a valid ID"},
		{"numeric id", strings.Replace(bad, `"bad"`, `42`, 1), "", "not a JSON object with the contract's member types"},
		{"long id", strings.Replace(bad, `"bad"`, `"`+strings.Repeat("x", 257)+`"`, 1), strings.Repeat("x", 128) + "…", "longer than 256"},
		{"invalid utf8 id", strings.Replace(bad, `"bad"`, "\"a\xffb\"", 1), "a\uFFFDb", "invalid UTF-8"},
		{"duplicate id", good("d-1"), "d-1", "listed twice"},
		{"no size", `{"deliveryAttemptId":"bad","payloadSha256":"` + okHash + `"}`, "bad", "payloadSize is missing"},
		{"negative size", strings.Replace(bad, `"payloadSize":1`, `"payloadSize":-1`, 1), "bad", "payloadSize -1 is negative"},
		{"huge size", strings.Replace(bad, `"payloadSize":1`, `"payloadSize":1000000000000000`, 1), "bad", "exceeds the contract's 16 MiB limit"},
		{"fractional size", strings.Replace(bad, `"payloadSize":1`, `"payloadSize":1.5`, 1), "bad", "member types"},
		{"no hash", `{"deliveryAttemptId":"bad","payloadSize":1}`, "bad", "payloadSha256 is missing"},
		{"bad hash", strings.Replace(bad, okHash, "xyz", 1), "bad", "64 hex"},
		{"null entry", `null`, "", "not a JSON object"},
		{"string entry", `"d-9"`, "", "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"data":[` + good("d-1") + `,` + tt.entry + `,` + good("d-2") + `],"meta":{"hasMore":false}}`))
			}))
			p, err := env.c.ListMailbox(context.Background(), 0, "")
			require.NoError(t, err)
			require.Len(t, p.Entries, 2)
			require.Equal(t, "d-1", p.Entries[0].DeliveryAttemptID)
			require.Equal(t, "d-2", p.Entries[1].DeliveryAttemptID)
			require.Len(t, p.Skipped, 1)
			sk := p.Skipped[0]
			require.Equal(t, 1, sk.Index)
			require.Equal(t, tt.id, sk.DeliveryAttemptID)
			require.Contains(t, sk.Reason, tt.reason)
			require.Contains(t, env.logs.String(), `"msg":"mailbox entry skipped"`)
		})
	}
}

// TestListMailboxKeepsInformationalFields: a bad or missing createdAt and
// unknown message types or statuses do not make an entry unusable.
func TestListMailboxKeepsInformationalFields(t *testing.T) {
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[{"deliveryAttemptId":"d","payloadSize":0,"payloadSha256":"` + strings.ToUpper(okHash) +
			`","createdAt":"yesterday","messageType":"INVOIC","status":"weird"},{"deliveryAttemptId":"e\u001b]0;x\u0007\u202e","payloadSize":16777216,"payloadSha256":"` + okHash + `"}],"meta":{"hasMore":false}}`))
	}))
	p, err := env.c.ListMailbox(context.Background(), 0, "")
	require.NoError(t, err)
	require.Empty(t, p.Skipped)
	require.Len(t, p.Entries, 2)
	require.True(t, p.Entries[0].CreatedAt.IsZero())
	require.Equal(t, "INVOIC", p.Entries[0].MessageType)
	require.Equal(t, int64(MaxPayloadSize), p.Entries[1].PayloadSize, "exactly 16 MiB is allowed")
	require.Equal(t, "e\x1b]0;x\a\u202e", p.Entries[1].DeliveryAttemptID, "control characters are kept (sanitised on display)")
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
