package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// repeatingPages serves pages cursor 0..last, each listing da-1 and da-2
// again (a server that repeats entries across pages).
func repeatingPages(t *testing.T, last int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 0
		_, _ = fmt.Sscan(r.URL.Query().Get("cursor"), &n)
		meta := map[string]any{"hasMore": n < last}
		if n < last {
			meta["nextCursor"] = fmt.Sprint(n + 1)
		}
		var data []any
		for _, id := range []string{"da-1", "da-2"} {
			data = append(data, map[string]any{"deliveryAttemptId": id, "messageType": "ORDRSP", "payloadSize": 4,
				"payloadSha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "status": "due"})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data, "meta": meta})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestMailboxLsAllCountsRepeatedOnce: `mailbox ls --all` against a server
// that lists the same two deliveries on six pages shows 2 deliveries, not
// 12, and says the server repeated them.
func TestMailboxLsAllCountsRepeatedOnce(t *testing.T) {
	unlimited(t)
	srv := repeatingPages(t, 5)
	env := map[string]string{envAPIKey: "key-cli:" + cliCanarySecret, "HOME": t.TempDir()}
	code, out, errOut := runCmd(t, "", env, "mailbox", "ls", "--all", "--limit", "2", "--url", srv.URL, "--connection", cliConn)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "2 deliveries")
	require.Contains(t, errOut, "the server listed 10 entries again on a later page (da-1, da-2, …); each delivery is counted once")

	code, out, errOut = runCmd(t, "", env, "mailbox", "ls", "--all", "--limit", "2", "--json", "--url", srv.URL, "--connection", cliConn)
	require.Equal(t, exitOK, code, errOut)
	got := decodeJSON[mailboxJSON](t, out)
	require.Len(t, got.Entries, 2)
	require.Equal(t, 10, got.Repeated)
}
