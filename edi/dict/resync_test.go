package dict

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// feed runs tags through a matcher with NextKeyAhead (ahead = the
// following tags) or plain Next, and returns every problem.
func feed(m *Message, tags []string, ahead bool) []Problem {
	mt := m.NewMatcher()
	var out []Problem
	for i, tag := range tags {
		var st Step
		if ahead {
			var next []uint32
			for _, t := range tags[i+1 : min(len(tags), i+4)] {
				next = append(next, tagKey(t))
			}
			st = mt.NextKeyAhead(tagKey(tag), next)
		} else {
			st = mt.Next(tag)
		}
		out = append(out, st.Problems...)
	}
	return append(out, mt.End()...)
}

// TestResyncAfterMisplacedSegment: one MOA out of place in the header
// gives one finding, not a cascade over every line item.
func TestResyncAfterMisplacedSegment(t *testing.T) {
	tags := strings.Fields("UNH BGM DTM MOA NAD LIN PIA IMD QTY PRI LIN PIA IMD QTY PRI LIN QTY UNS CNT UNT")
	require.Greater(t, len(feed(&msgORDERSD96A, tags, false)), 10, "without resynchronisation it cascades")
	got := feed(&msgORDERSD96A, tags, true)
	require.Len(t, got, 1, "%v", got)
	require.Equal(t, UnexpectedSegment, got[0].Kind)
	require.Equal(t, "MOA", got[0].Tag)
	require.Contains(t, got[0].Message, "segment MOA not allowed after DTM; the next place ORDERS D.96A allows it is position 2100 (MOA), past mandatory UNS at 2090")

	// A mandatory segment that is really missing is still reported as
	// missing: what follows fits after the jump.
	tags = strings.Fields("UNH BGM DTM NAD LIN QTY MOA CNT UNT")
	got = feed(&msgORDERSD96A, tags, true)
	require.Len(t, got, 1, "%v", got)
	require.Equal(t, MissingSegment, got[0].Kind)
	require.Equal(t, "UNS", got[0].Tag)
}

// TestUnexpectedPointsAtNearestPosition: the hint names the entry in the
// group the matcher is in, not the first one in the message.
func TestUnexpectedPointsAtNearestPosition(t *testing.T) {
	tags := strings.Fields("UNH BGM DTM LIN QTY IMD")
	got := feed(&msgORDERSD96A, tags, true)
	var msg string
	for _, p := range got {
		if p.Kind == UnexpectedSegment {
			msg = p.Message
		}
	}
	require.Contains(t, msg, "segment IMD not allowed after SG25/QTY; ORDERS D.96A has it at position 0960 (SG25/IMD)")
}

// TestNextKeyAheadNoAllocs: resynchronisation reuses its state buffers.
func TestNextKeyAheadNoAllocs(t *testing.T) {
	mt := msgORDERSD96A.NewMatcher()
	mt.SetTerse(true)
	ahead := []uint32{tagKey("LIN"), tagKey("QTY"), tagKey("UNS")}
	allocs := testing.AllocsPerRun(100, func() {
		mt.Reset()
		mt.Next("UNH")
		mt.Next("BGM")
		mt.Next("DTM")
		mt.NextKeyAhead(tagKey("LIN"), ahead[1:]) // a clean move: no problems
	})
	require.Zero(t, allocs)
}
