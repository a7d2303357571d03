package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
	_, err := s.sim.AddEntry(cliConn, partnersim.Delivery{ID: "da-\x1b]0;owned\a-\u202eevil", MessageType: "ORD\x1b[31mRSP", Payload: []byte("x")})
	require.NoError(t, err)
	for _, args := range [][]string{{"mailbox", "ls"}, {"mailbox", "ls", "--json"}} {
		code, out, errOut := s.run(t, "", args...)
		require.Equal(t, exitOK, code, errOut)
		for _, bad := range []string{"\x1b", "\a", "\u202e"} {
			require.NotContains(t, out, bad, args)
		}
	}
	_, out, _ := s.run(t, "", "mailbox", "ls", "--json")
	page := decodeJSON[mailboxJSON](t, out)
	require.Equal(t, "da-\x1b]0;owned\a-\u202eevil", page.Entries[0].DeliveryAttemptID, "JSON keeps the exact value, escaped")
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
