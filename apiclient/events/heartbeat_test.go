package events

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// heartbeat is a HEARTBEAT event (its own subject and sequence) whose
// data.last_sequences is ls.
func heartbeat(seq int, ls any) map[string]any {
	return newEvent(seq, set("type", "nutrab2b.system.HEARTBEAT.v2"), set("subject", "heartbeat"),
		set("id", fmt.Sprintf("hb-%d", seq)), set("idempotencykey", fmt.Sprintf("%s:heartbeat:HEARTBEAT:%d", tSender, seq)),
		set("data", map[string]any{"last_sequences": ls}))
}

func TestInspectHeartbeatTailGap(t *testing.T) {
	// 1 and 2 arrived; the HEARTBEAT says 4 was sent: 3-4 never arrived,
	// and nothing is parked, so only the heartbeat shows the gap.
	r := inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, newEvent(2)), body(t, heartbeat(1, map[string]any{"PO-1": 4})))
	require.Equal(t, []Outcome{OutcomeProcessed, OutcomeProcessed, OutcomeProcessed}, outcomes(r))
	st := r.Streams[0]
	require.Equal(t, "PO-1", st.Subject)
	require.Equal(t, int64(4), st.Heartbeat)
	require.Equal(t, []string{"3-4"}, st.Missing)
	require.Empty(t, st.Parked)
	f := finding(t, r, CodeSequenceMissing)
	require.Equal(t, SevError, f.Severity)
	require.Empty(t, f.Platform, "nothing is parked: not NB-E006")
	require.Equal(t, 2, f.Event, "the finding points at the HEARTBEAT")
	require.Equal(t, "data.last_sequences", f.Field)
	require.Contains(t, f.Message, "processed up to sequence 2; HEARTBEAT #2 reports last sequence 4")
	require.Contains(t, f.Message, "The sender must replay sequence 3-4 unchanged")
	require.NotContains(t, codes(r, -1, ""), CodeSequenceGap)

	// Up to date: no finding.
	r = inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, newEvent(2)), body(t, heartbeat(1, map[string]any{"PO-1": 2})))
	require.Empty(t, r.Findings)
	require.Empty(t, r.Streams[0].Missing)
}

func TestInspectHeartbeatWithParked(t *testing.T) {
	// The array form; 3 parked, 2 missing, and the heartbeat adds 4-5.
	ls := []any{map[string]any{"subject": "PO-1", "sequence": 5}, map[string]any{"subject": "PO-2", "last_sequence": 1}}
	r := inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, newEvent(3)), body(t, heartbeat(1, ls)))
	require.Equal(t, []Outcome{OutcomeProcessed, OutcomeParked, OutcomeProcessed}, outcomes(r))
	st := r.Streams[0]
	require.Equal(t, []string{"2", "4-5"}, st.Missing)
	require.Equal(t, []int64{3}, st.Parked)
	gap := finding(t, r, CodeSequenceGap)
	require.Equal(t, NBParked, gap.Platform)
	require.Equal(t, 1, gap.Event)
	require.Contains(t, gap.Message, "parked (NB-E006), waiting for the gap: 3 (event #1); HEARTBEAT #2 reports last sequence 5")
	require.Contains(t, gap.Message, "replay sequence 2, 4-5 unchanged")
	// PO-2 has no event in the set: only noted.
	note := finding(t, r, CodeHeartbeat)
	require.Equal(t, SevInfo, note.Severity)
	require.Equal(t, "data.last_sequences[1]", note.Field)
	require.Contains(t, note.Message, "last sequence 1 for subject PO-2, which has no event in this set")

	// From the start, that subject's sequences are all missing.
	r = inspectBodies(t, Options{StartAtOne: true}, body(t, newEvent(1)), body(t, heartbeat(1, map[string]any{"PO-2": 3})))
	var po2 *Stream
	for i := range r.Streams {
		if r.Streams[i].Subject == "PO-2" {
			po2 = &r.Streams[i]
		}
	}
	require.NotNil(t, po2)
	require.Equal(t, []string{"1-3"}, po2.Missing)
	require.Equal(t, []Code{CodeSequenceMissing}, codes(r, 1, SevError))
}

func TestInspectHeartbeatUnreadable(t *testing.T) {
	tests := []struct {
		name string
		ls   any
		want string
	}{
		{"missing", nil, "a HEARTBEAT without data.last_sequences"},
		{"a number", 7, "neither an object"},
		{"a string sequence", map[string]any{"PO-1": "4"}, `data.last_sequences.PO-1: "4" is not a sequence`},
		{"zero", map[string]any{"PO-1": 0}, "data.last_sequences.PO-1: 0 is not a sequence"},
		{"no subject", []any{map[string]any{"sequence": 4}}, "data.last_sequences[0]: no subject"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, heartbeat(1, tc.ls)))
			require.Zero(t, r.Errors, "%+v", r.Findings)
			require.Equal(t, []Code{CodeHeartbeat}, codes(r, 1, SevWarning))
			require.Contains(t, finding(t, r, CodeHeartbeat).Message, tc.want)
		})
	}
}

func TestInspectHeartbeatOnlyWhenProcessed(t *testing.T) {
	// A rejected HEARTBEAT (bad time) reports nothing; neither does an
	// ordinary event with last_sequences in its data.
	bad := heartbeat(1, map[string]any{"PO-1": 9})
	bad["time"] = "yesterday"
	r := inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, bad))
	require.Empty(t, r.Streams[0].Missing)
	require.Zero(t, r.Streams[0].Heartbeat)
	plain := newEvent(2, set("data", map[string]any{"last_sequences": map[string]any{"PO-1": 9}}))
	r = inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, plain))
	require.Empty(t, r.Findings)
	// The type's event part is matched in any case.
	r = inspectBodies(t, Options{}, body(t, newEvent(1)), body(t, withType(heartbeat(1, map[string]any{"PO-1": 2}), "nutrab2b.system.heartbeat.v2")))
	require.Equal(t, []string{"2"}, r.Streams[0].Missing)
}

func withType(e map[string]any, typ string) map[string]any {
	e["type"] = typ
	return e
}
