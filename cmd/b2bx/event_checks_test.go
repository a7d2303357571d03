package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEventInspectFromStart: --from-start counts every stream from
// sequence 1, so a set starting at 3 misses 1-2.
func TestEventInspectFromStart(t *testing.T) {
	ev := newEventEnv(t)
	var evs []string
	for _, seq := range []string{"3", "4"} {
		evs = append(evs, `{"specversion":"2.0","id":"evt-`+seq+`","type":"nutrab2b.orders.confirmed.v2","source":"s","subject":"PO-1","time":"2025-03-12T10:30:00Z",`+
			`"sender":"4012345000009","receiver":"4000001000005","correlationid":"c","idempotencykey":"4012345000009:PO-1:confirmed:`+seq+`","sequence":`+seq+`,"env":"prod","data":{}}`)
	}
	p := writeTemp(t, "late.json", "["+strings.Join(evs, ",")+"]")
	code, out, errOut := ev.run(t, "", "event", "inspect", p)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "PO-1: processed up to 4\n")
	code, out, _ = ev.run(t, "", "event", "inspect", p, "--from-start")
	require.Equal(t, exitFileError, code)
	require.Contains(t, out, "PO-1: processed up to 0; parked 3, 4 (NB-E006); the sender must replay 1-2")
}

// TestEventInspectHeartbeat: the fixture's HEARTBEAT reports sequence 4
// of a stream processed up to 2; text and JSON say what to replay.
func TestEventInspectHeartbeat(t *testing.T) {
	ev := newEventEnv(t)
	code, out, errOut := ev.run(t, "", "event", "inspect", evTestdata+"heartbeat_gap.json")
	require.Equal(t, exitFileError, code, errOut)
	require.Contains(t, out, "4012345000009  PO-4711: processed up to 2; HEARTBEAT reports 4; the sender must replay 3-4\n")
	require.Contains(t, out, "error   SEQUENCE_MISSING  #2 hb-0001 data.last_sequences: sender 4012345000009, subject PO-4711: processed up to sequence 2; HEARTBEAT #2 reports last sequence 4")
	code, out, _ = ev.run(t, "", "event", "inspect", evTestdata+"heartbeat_gap.json", "--json")
	require.Equal(t, exitFileError, code)
	var doc struct {
		Streams []struct {
			Subject   string   `json:"subject"`
			Heartbeat int64    `json:"heartbeat"`
			Missing   []string `json:"missing"`
		} `json:"streams"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Equal(t, "PO-4711", doc.Streams[0].Subject)
	require.Equal(t, int64(4), doc.Streams[0].Heartbeat)
	require.Equal(t, []string{"3-4"}, doc.Streams[0].Missing)
}

// TestEventInspectSanitisesMessages: a finding message quoting a sender
// and a subject raw (the gap) reaches the terminal escaped.
func TestEventInspectSanitisesMessages(t *testing.T) {
	ev := newEventEnv(t)
	mk := func(seq string) string {
		return `{"specversion":"2.0","id":"e` + seq + `","type":"nutrab2b.orders.confirmed.v2","source":"s","subject":"PO\r\u001b[2J\u202e1","time":"2025-03-12T10:30:00Z",` +
			`"sender":"4012345000009\u001b]0;x\u0007","receiver":"4000001000005","correlationid":"c","idempotencykey":"k` + seq + `","sequence":` + seq + `,"env":"prod","data":{}}`
	}
	p := writeTemp(t, "gap.json", "["+mk("1")+","+mk("3")+"]")
	code, out, errOut := ev.run(t, "", "event", "inspect", p)
	require.Equal(t, exitFileError, code, errOut)
	require.Contains(t, out, "SEQUENCE_GAP NB-E006")
	for _, bad := range []string{"\x1b", "\x07", "\r", "\u202e"} {
		require.NotContains(t, out, bad)
	}
	require.Contains(t, out, "sender 4012345000009^[]0;x^G, subject PO^M^[[2J<U+202E>1: processed up to sequence 1")
}

// TestEventVerifyHostileHeader: control bytes in --header are refused
// without echoing them.
func TestEventVerifyHostileHeader(t *testing.T) {
	ev := newEventEnv(t)
	b := writeTemp(t, "body.json", vecBody)
	for _, h := range []string{"t=1700000000\x1b]52;c;QUJD\x07,v1=" + strings.Repeat("0", 64), "X-NB2B-Signature: " + vecSig + "\u202e", "\x1b[2J: t=1"} {
		code, out, errOut := ev.run(t, vecKey, "event", "verify", "--body", b, "--secret-stdin", "--header", h, "--now", "1700000000")
		require.Equal(t, exitFileError, code, errOut)
		require.Contains(t, out, "invalid (NB-E008): malformed X-NB2B-Signature header")
		for _, bad := range []string{"\x1b", "\x07", "\u202e"} {
			require.NotContains(t, out+errOut, bad)
		}
	}
}
