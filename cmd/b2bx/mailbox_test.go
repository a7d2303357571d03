package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
)

func TestMailboxLs(t *testing.T) {
	s := newSimEnv(t)
	var ids []string
	for i := range 7 {
		ids = append(ids, s.add(t, []string{"ORDRSP", "CONTRL", "APERAK"}[i%3], []byte(fmt.Sprintf("payload %d", i)), partnersim.PayloadFault{}))
	}

	code, out, errOut := s.run(t, "", "mailbox", "ls")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Equal(t, []string{"ID", "TYPE", "SIZE", "SHA256", "STATUS", "CREATED"}, strings.Fields(lines[0]))
	require.Len(t, lines, 1+7+1)
	require.Contains(t, lines[1], ids[0])
	require.Contains(t, lines[1], "ORDRSP")
	require.Contains(t, lines[1], "9 B")
	require.Contains(t, lines[1], "due")
	require.Equal(t, "7 deliveries", lines[8])

	code, out, _ = s.run(t, "", "mailbox", "ls", "--limit", "3", "--json")
	require.Equal(t, exitOK, code)
	page := decodeJSON[mailboxJSON](t, out)
	require.Len(t, page.Entries, 3)
	require.True(t, page.HasMore)
	require.NotEmpty(t, page.NextCursor)
	require.Equal(t, ids[0], page.Entries[0].DeliveryAttemptID)
	require.Len(t, page.Entries[0].PayloadSHA256, 64)

	code, out, _ = s.run(t, "", "mailbox", "ls", "--limit", "3", "--cursor", page.NextCursor, "--json")
	require.Equal(t, exitOK, code)
	page2 := decodeJSON[mailboxJSON](t, out)
	require.Equal(t, ids[3], page2.Entries[0].DeliveryAttemptID)

	code, out, _ = s.run(t, "", "mailbox", "ls", "--limit", "2", "--all", "--json")
	require.Equal(t, exitOK, code)
	all := decodeJSON[mailboxJSON](t, out)
	require.Len(t, all.Entries, 7)
	require.False(t, all.HasMore)
	require.Equal(t, ids[6], all.Entries[6].DeliveryAttemptID)

	code, out, _ = s.run(t, "", "mailbox", "ls", "--limit", "2")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "more are due: use --all")
}

func TestMailboxLsSanitisesServerText(t *testing.T) {
	s := newSimEnv(t)
	_, err := s.sim.AddEntry(cliConn, partnersim.Delivery{ID: "da-\x1b]0;owned\a-\u202eevil\x7f", MessageType: "ORD\x1b[31mRSP\x7f", Payload: []byte("x")})
	require.NoError(t, err)
	for _, args := range [][]string{{"mailbox", "ls"}, {"mailbox", "ls", "--json"}} {
		code, out, errOut := s.run(t, "", args...)
		require.Equal(t, exitOK, code, errOut)
		for _, bad := range []string{"\x1b", "\a", "\u202e", "\x7f"} {
			require.NotContains(t, out, bad, args)
		}
	}
	_, out, _ := s.run(t, "", "mailbox", "ls", "--json")
	require.Contains(t, out, `evil\u007f"`, "DEL is escaped like every other control")
	require.Contains(t, out, `RSP\u007f"`)
	page := decodeJSON[mailboxJSON](t, out)
	require.Equal(t, "da-\x1b]0;owned\a-\u202eevil\x7f", page.Entries[0].DeliveryAttemptID, "JSON keeps the exact value, escaped")
	require.Equal(t, "ORD\x1b[31mRSP\x7f", page.Entries[0].MessageType)
}

// TestMailboxLsStopsEndlessPaging: a server whose paging never ends (a
// fresh cursor on every page, or one it already returned) stops mailbox
// ls --all with a clear message instead of growing without bound.
func TestMailboxLsStopsEndlessPaging(t *testing.T) {
	for _, tc := range []struct {
		fault partnersim.PagingFault
		want  string
		lists int
	}{
		{partnersim.PagingEndless, "stopped after 1000 pages and the server still says hasMore", apiclient.MaxPages},
		{partnersim.PagingRepeatCursor, "returned a cursor the server had already returned", 2},
		{partnersim.PagingNoCursor, "hasMore but gives no nextCursor", 1},
	} {
		t.Run(tc.want, func(t *testing.T) {
			s := newSimEnv(t)
			unlimited(t)
			s.add(t, "ORDRSP", []byte("payload 0"), partnersim.PayloadFault{})
			s.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointList, Paging: tc.fault})
			for _, json := range []bool{false, true} {
				args := []string{"mailbox", "ls", "--all", "--limit", "1"}
				if json {
					args = append(args, "--json")
				}
				before := s.sim.RequestCount(partnersim.EndpointList, "")
				code, out, errOut := s.run(t, "", args...)
				require.Equal(t, exitAPI, code, errOut)
				require.Contains(t, errOut, "mailbox paging does not end")
				require.Contains(t, errOut, tc.want)
				require.Equal(t, tc.lists, s.sim.RequestCount(partnersim.EndpointList, "")-before, "no request after the limit")
				if json {
					require.Contains(t, decodeJSON[errorJSON](t, out).Error, tc.want)
				}
			}
		})
	}
}

// TestMailboxLsShortRetryAfter: with the contract's schedule (first retry
// after 30 s), a 503 with Retry-After: 1 is retried one second later. The
// --timeout of 20 s proves it: a 30 s wait would be refused at once.
func TestMailboxLsShortRetryAfter(t *testing.T) {
	s := newSimEnv(t)
	cliRetry = apiclient.RetryPolicy{} // the contract schedule, not the tests' short one
	id := s.add(t, "ORDRSP", []byte("payload 0"), partnersim.PayloadFault{})
	s.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointList, Times: 1, Status: 503, RetryAfter: time.Second})
	code, out, errOut := s.run(t, "", "mailbox", "ls", "--timeout", "20s")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, id)
	require.Contains(t, errOut, "(retry after 1s)")
	require.Contains(t, errOut, "(in 1s); Ctrl-C to give up", "the wait is the server's Retry-After")
	require.Equal(t, 2, s.sim.RequestCount(partnersim.EndpointList, ""))
}

func TestMailboxLsErrors(t *testing.T) {
	s := newSimEnv(t)
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		code int
		msg  string
	}{
		{"limit too large", []string{"--limit", "101"}, nil, exitUsage, "between 1 and 100"},
		{"stray argument", []string{"extra"}, nil, exitUsage, "unexpected argument"},
		{"all with cursor", []string{"--all", "--cursor", "x"}, nil, exitUsage, "drop --cursor"},
		{"no key", nil, map[string]string{envAPIKey: ""}, exitUsage, envAPIKey},
		{"wrong secret", nil, map[string]string{envAPIKey: "key-cli:wrong"}, exitAPI, "ERR_B2B_EXCHANGE_NOT_FOUND"},
		{"cursor the server never issued", []string{"--cursor", "forged"}, nil, exitAPI, "ERR_B2B_EXCHANGE_INVALID_REQUEST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := map[string]string{}
			for k, v := range tc.env {
				saved[k] = s.env[k]
				s.env[k] = v
			}
			defer func() {
				for k, v := range saved {
					s.env[k] = v
				}
			}()
			code, _, errOut := s.run(t, "", append([]string{"mailbox", "ls"}, tc.args...)...)
			require.Equal(t, tc.code, code, errOut)
			require.Contains(t, errOut, tc.msg)
			require.NotContains(t, errOut, cliCanarySecret)
		})
	}
	code, _, errOut := runCmd(t, "", nil, "mailbox", "ls")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "no connection chosen")
}

func TestMailboxLsReportsSkippedEntries(t *testing.T) {
	s := newSimEnv(t)
	first := s.add(t, "ORDRSP", []byte("payload 0"), partnersim.PayloadFault{})
	bad, err := s.sim.AddEntry(cliConn, partnersim.Delivery{MessageType: "ORDRSP", Payload: []byte("x"), Fault: partnersim.PayloadFault{MalformedListingHash: true}})
	require.NoError(t, err)
	_, err = s.sim.AddEntry(cliConn, partnersim.Delivery{ID: "..", MessageType: "ORDRSP", Payload: []byte("x")})
	require.NoError(t, err)
	last := s.add(t, "CONTRL", []byte("payload 3"), partnersim.PayloadFault{})

	for _, args := range [][]string{{"mailbox", "ls"}, {"mailbox", "ls", "--all", "--limit", "2"}} {
		code, out, errOut := s.run(t, "", args...)
		require.Equal(t, exitOK, code, errOut)
		require.Contains(t, out, first)
		require.Contains(t, out, last)
		require.Contains(t, out, "2 deliveries", "the valid entries are listed")
		require.NotContains(t, out, bad)
		require.Contains(t, errOut, "2 listed deliveries cannot be processed safely", args)
		require.Contains(t, errOut, bad+": ")
		require.Contains(t, errOut, "payloadSha256")
	}

	code, out, errOut := s.run(t, "", "mailbox", "ls", "--json")
	require.Equal(t, exitOK, code, errOut)
	page := decodeJSON[mailboxJSON](t, out)
	require.Len(t, page.Entries, 2)
	require.Len(t, page.Skipped, 2)
	require.Equal(t, bad, page.Skipped[0].DeliveryAttemptID)
	require.Equal(t, 1, page.Skipped[0].Index)
	require.Equal(t, "..", page.Skipped[1].DeliveryAttemptID)
	require.NotEmpty(t, page.Skipped[1].Reason)
	require.Contains(t, errOut, "cannot be processed safely", "stderr too, so a script sees it")
}
