package dict

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runTags matches a space-separated tag sequence and returns the paths
// ("-" for NoPath), the problems as "i:kind:tag@pos" and End's problems.
func runTags(t *testing.T, m *Message, tags string) (paths []string, problems []string, end []string) {
	t.Helper()
	mt := m.NewMatcher()
	for i, tag := range strings.Fields(tags) {
		st := mt.Next(tag)
		if st.PathID == NoPath {
			require.Empty(t, st.Path)
			paths = append(paths, "-")
		} else {
			e, ok := m.PathOf(st.PathID)
			require.True(t, ok)
			require.Equal(t, e.Path, st.Path)
			require.Equal(t, tag, e.Tag)
			paths = append(paths, e.FullPath)
		}
		for _, p := range st.Problems {
			require.NotEmpty(t, p.Message)
			problems = append(problems, fmt.Sprintf("%d:%s:%s@%d", i, p.Kind, p.Tag, p.Position))
		}
	}
	for _, p := range mt.End() {
		end = append(end, fmt.Sprintf("%s:%s@%d", p.Kind, p.Tag, p.Position))
	}
	require.Nil(t, mt.End(), "End reports once")
	return paths, problems, end
}

func TestMatcherValidSequences(t *testing.T) {
	cases := []struct {
		name  string
		msg   *Message
		tags  string
		paths string
	}{
		{
			// ../../shared/corpus/bots_orders_d96a_multi_mixed_eol.edi, first message
			name:  "bots ORDERS D96A",
			msg:   &msgORDERSD96A,
			tags:  "UNH BGM DTM DTM DTM NAD RFF RFF NAD NAD NAD NAD LIN QTY LIN QTY LIN QTY LIN QTY UNS UNT",
			paths: "UNH BGM DTM DTM DTM SG2/NAD SG2/SG3/RFF SG2/SG3/RFF SG2/NAD SG2/NAD SG2/NAD SG2/NAD SG25/LIN SG25/QTY SG25/LIN SG25/QTY SG25/LIN SG25/QTY SG25/LIN SG25/QTY UNS UNT",
		},
		{
			// ../../shared/corpus/bots_aperak_d96a.edi
			name:  "bots APERAK D96A",
			msg:   &msgAPERAKD96A,
			tags:  "UNH BGM DTM RFF DTM NAD NAD UNT",
			paths: "UNH BGM DTM SG1/RFF SG1/DTM SG2/NAD SG2/NAD UNT",
		},
		{
			// ../../shared/corpus/pydifact_aperak_sv4.edi (APERAK D:96A under syntax 4)
			name:  "pydifact APERAK D96A",
			msg:   &msgAPERAKD96A,
			tags:  "UNH BGM DTM RFF ERC FTX UNT",
			paths: "UNH BGM DTM SG1/RFF SG3/ERC SG3/FTX UNT",
		},
		{
			// ../../shared/corpus/jacobemcken_contrl_d3_readme.edi
			name:  "CONTRL D:3",
			msg:   &msgCONTRLSyntax3,
			tags:  "UNH UCI UCM UCS UNT",
			paths: "UNH UCI SG1/UCM SG1/SG2/UCS UNT",
		},
		{
			name:  "CONTRL 4:1 with group responses",
			msg:   &msgCONTRLSyntax4,
			tags:  "UNH UCI UCM UCS UCD UCD UCS UCM UCF UCM UCS UCD UCF UNT",
			paths: "UNH UCI SG1/UCM SG1/SG2/UCS SG1/SG2/UCD SG1/SG2/UCD SG1/SG2/UCS SG1/UCM SG3/UCF SG3/SG4/UCM SG3/SG4/SG5/UCS SG3/SG4/SG5/UCD SG3/UCF UNT",
		},
		{
			name:  "ORDERS D96A deep nesting and summary group",
			msg:   &msgORDERSD96A,
			tags:  "UNH BGM DTM RFF DTM NAD LOC RFF CTA COM CUX LIN PIA IMD QTY DTM MOA CCI CAV PRI CUX RFF PAC PCI RFF LIN QTY NAD RFF UNS CNT ALC MOA UNT",
			paths: "UNH BGM DTM SG1/RFF SG1/DTM SG2/NAD SG2/LOC SG2/SG3/RFF SG2/SG5/CTA SG2/SG5/COM SG7/CUX SG25/LIN SG25/PIA SG25/IMD SG25/QTY SG25/DTM SG25/MOA SG25/SG26/CCI SG25/SG26/CAV SG25/SG28/PRI SG25/SG28/CUX SG25/SG29/RFF SG25/SG30/PAC SG25/SG30/SG32/PCI SG25/SG30/SG32/RFF SG25/LIN SG25/QTY SG25/SG35/NAD SG25/SG35/SG36/RFF UNS CNT SG54/ALC SG54/MOA UNT",
		},
		{
			name:  "ORDRSP D96A",
			msg:   &msgORDRSPD96A,
			tags:  "UNH BGM DTM RFF NAD LIN QTY UNS UNT",
			paths: "UNH BGM DTM SG1/RFF SG3/NAD SG26/LIN SG26/QTY UNS UNT",
		},
		{
			name:  "ORDERS D24A (also D.25A)",
			msg:   &msgORDERSD24A,
			tags:  "UNH BGM DTM RFF NAD CTA COM NAD CUX LIN PIA QTY PRI LIN QTY UNS CNT UNT",
			paths: "UNH BGM DTM SG1/RFF SG2/NAD SG2/SG5/CTA SG2/SG5/COM SG2/NAD SG7/CUX SG29/LIN SG29/PIA SG29/QTY SG29/SG33/PRI SG29/LIN SG29/QTY UNS CNT UNT",
		},
		{
			name:  "APERAK D24A",
			msg:   &msgAPERAKD24A,
			tags:  "UNH BGM DTM RFF NAD ERC FTX RFF FTX ERC UNT",
			paths: "UNH BGM DTM SG2/RFF SG3/NAD SG4/ERC SG4/FTX SG4/SG5/RFF SG4/SG5/FTX SG4/ERC UNT",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			paths, problems, end := runTags(t, tc.msg, tc.tags)
			require.Equal(t, tc.paths, strings.Join(paths, " "))
			require.Empty(t, problems)
			require.Empty(t, end)
		})
	}
}

func TestMatcherProblems(t *testing.T) {
	cases := []struct {
		name     string
		msg      *Message
		tags     string
		paths    string
		problems []string
		end      []string
	}{
		{
			// ../../shared/corpus/edifactrs_orders_d96a_conforming.edi: UNS is M 1
			// in the D.96A ORDERS segment table, so it is missing.
			name:     "edifact-rs ORDERS without UNS",
			msg:      &msgORDERSD96A,
			tags:     "UNH BGM DTM RFF NAD NAD UNT",
			paths:    "UNH BGM DTM SG1/RFF SG2/NAD SG2/NAD UNT",
			problems: []string{"6:missing-segment:UNS@2090"},
		},
		{
			// ../../shared/corpus/edifactrs_orders_d96a_malformed.edi
			name:     "edifact-rs malformed: BGM before UNH",
			msg:      &msgORDERSD96A,
			tags:     "BGM UNH DTM NAD UNT",
			paths:    "BGM - DTM SG2/NAD UNT",
			problems: []string{"0:missing-segment:UNH@10", "1:unexpected-segment:UNH@0", "4:missing-segment:UNS@2090"},
		},
		{
			name:     "unknown tag stays in place",
			msg:      &msgORDERSD96A,
			tags:     "UNH BGM XYZ DTM UNS UNT",
			paths:    "UNH BGM - DTM UNS UNT",
			problems: []string{"2:unexpected-segment:XYZ@0"},
		},
		{
			name:     "group segment without its trigger",
			msg:      &msgORDERSD96A,
			tags:     "UNH BGM DTM CTA UNS UNT",
			paths:    "UNH BGM DTM - UNS UNT",
			problems: []string{"3:unexpected-segment:CTA@0"},
		},
		{
			name:     "segment out of order",
			msg:      &msgORDERSD96A,
			tags:     "UNH BGM DTM NAD BGM UNS UNT",
			paths:    "UNH BGM DTM SG2/NAD - UNS UNT",
			problems: []string{"4:unexpected-segment:BGM@0"},
		},
		{
			name:     "missing mandatory segment skipped",
			msg:      &msgORDERSD96A,
			tags:     "UNH DTM UNS UNT",
			paths:    "UNH DTM UNS UNT",
			problems: []string{"1:missing-segment:BGM@20"},
		},
		{
			name:     "mandatory segment in a group left early",
			msg:      &msgORDERSD96A,
			tags:     "UNH BGM DTM UNS ALC UNT",
			paths:    "UNH BGM DTM UNS SG54/ALC UNT",
			problems: []string{"5:missing-segment:MOA@2150"},
		},
		{
			name:     "too many segment repetitions reported once",
			msg:      &msgAPERAKD96A,
			tags:     "UNH BGM DTM DTM DTM DTM DTM DTM DTM DTM DTM DTM DTM UNT",
			paths:    "UNH BGM DTM DTM DTM DTM DTM DTM DTM DTM DTM DTM DTM UNT",
			problems: []string{"11:too-many-segment-repetitions:DTM@30"},
		},
		{
			name:     "too many group repetitions reported once",
			msg:      &msgAPERAKD96A,
			tags:     "UNH BGM " + strings.Repeat("RFF ", 11) + "UNT",
			paths:    "UNH BGM " + strings.Repeat("SG1/RFF ", 11) + "UNT",
			problems: []string{"11:too-many-group-repetitions:RFF@60"},
		},
		{
			name:     "trigger repeated in a nested group",
			msg:      &msgAPERAKD96A,
			tags:     "UNH BGM ERC RFF RFF UNT",
			paths:    "UNH BGM SG3/ERC SG3/SG4/RFF SG3/SG4/RFF UNT",
			problems: []string{"4:too-many-group-repetitions:RFF@160"},
		},
		{
			name:     "segment after UNT",
			msg:      &msgCONTRLSyntax3,
			tags:     "UNH UCI UNT UCM",
			paths:    "UNH UCI UNT -",
			problems: []string{"3:unexpected-segment:UCM@0"},
		},
		{
			name:     "message ends early",
			msg:      &msgORDERSD96A,
			tags:     "UNH BGM NAD",
			paths:    "UNH BGM SG2/NAD",
			problems: []string{"2:missing-segment:DTM@30"},
			end:      []string{"missing-segment:UNS@2090", "missing-segment:UNT@2160"},
		},
		{
			name:     "skipping to UNT reports everything mandatory on the way",
			msg:      &msgORDERSD96A,
			tags:     "UNH UNT",
			paths:    "UNH UNT",
			problems: []string{"1:missing-segment:BGM@20", "1:missing-segment:DTM@30", "1:missing-segment:UNS@2090"},
		},
		{
			name:  "empty message",
			msg:   &msgCONTRLSyntax4,
			tags:  "",
			paths: "",
			end:   []string{"missing-segment:UNH@10", "missing-segment:UCI@20", "missing-segment:UNT@150"},
		},
		{
			name:     "CONTRL UCS without UCM",
			msg:      &msgCONTRLSyntax4,
			tags:     "UNH UCI UCS UNT",
			paths:    "UNH UCI - UNT",
			problems: []string{"2:unexpected-segment:UCS@0"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			paths, problems, end := runTags(t, tc.msg, tc.tags)
			require.Equal(t, tc.paths, strings.Join(paths, " "))
			require.Equal(t, tc.problems, problems)
			require.Equal(t, tc.end, end)
		})
	}
}

// A synthetic structure with a mandatory group, which none of the real
// tables has: UNH, SG1 M 2 (AAA, BBB M), CCC, UNT.
var msgSynthetic = withKeys(Message{
	Type: "TEST", Version: "D", Release: "00A", Label: "TEST", maxDepth: 1,
	Entries: []Entry{
		{10, "UNH", 0, true, 1, 0, -1, 1, "UNH", "UNH", "", 0},
		{20, "AAA", 1, true, 2, 0, -1, 5, "SG1", "SG1", "", 0},
		{30, "AAA", 0, true, 1, 1, 1, 3, "SG1/AAA", "SG1/AAA", "SG1", 0},
		{40, "BBB", 0, true, 1, 1, 1, 4, "SG1/BBB", "SG1/BBB", "SG1", 0},
		{50, "CCC", 0, false, 1, 1, 1, 5, "SG1/CCC", "SG1/CCC", "SG1", 0},
		{60, "DDD", 0, false, 3, 0, -1, 6, "DDD", "DDD", "", 0},
		{70, "UNT", 0, true, 1, 0, -1, 7, "UNT", "UNT", "", 0},
	},
})

// withKeys fills the packed tags the generator writes for real tables.
func withKeys(m Message) Message {
	for i := range m.Entries {
		m.Entries[i].key = tagKey(m.Entries[i].Tag)
	}
	return m
}

func TestMatcherMissingGroup(t *testing.T) {
	paths, problems, _ := runTags(t, &msgSynthetic, "UNH DDD UNT")
	require.Equal(t, "UNH DDD UNT", strings.Join(paths, " "))
	require.Equal(t, []string{"1:missing-group:AAA@20"}, problems)

	paths, problems, _ = runTags(t, &msgSynthetic, "UNH AAA CCC AAA BBB AAA BBB DDD UNT")
	require.Equal(t, "UNH SG1/AAA SG1/CCC SG1/AAA SG1/BBB SG1/AAA SG1/BBB DDD UNT", strings.Join(paths, " "))
	require.Equal(t, []string{"2:missing-segment:BBB@40", "5:too-many-group-repetitions:AAA@20"}, problems)
}

func TestMatcherMessages(t *testing.T) {
	mt := msgORDERSD96A.NewMatcher()
	mt.Next("UNH")
	st := mt.Next("DTM")
	require.Equal(t, "mandatory segment BGM (position 0020) is missing", st.Problems[0].Message)
	require.Equal(t, SyntaxErrorMissing, st.Problems[0].SyntaxError)
	st = mt.Next("CTA")
	require.Equal(t, "segment CTA not allowed after DTM; ORDERS D.96A has it at position 0220 (SG2/SG5/CTA)", st.Problems[0].Message)
	require.Equal(t, SyntaxErrorNotSupportedInPosition, st.Problems[0].SyntaxError)
	st = mt.Next("\x1b]0;pwned\x07")
	require.Equal(t, "segment ^[]0;pwned^G not allowed after DTM; it is not part of ORDERS D.96A", st.Problems[0].Message)
	require.Equal(t, "\x1b]0;pwned\x07", st.Problems[0].Tag, "Tag keeps the payload bytes for comparison")

	mt = msgAPERAKD96A.NewMatcher()
	for _, tag := range strings.Fields("UNH BGM " + strings.Repeat("RFF ", 10)) {
		st = mt.Next(tag)
	}
	require.Equal(t, Problem{Kind: TooManyGroups, Tag: "RFF", Group: "SG1", Position: 60, SyntaxError: 36,
		Message: "segment group SG1 (RFF) repeated 10 times, at most 9 allowed (position 0060)"}, st.Problems[0])
	st = mt.Next("DTM")
	for range 9 {
		st = mt.Next("DTM")
	}
	require.Equal(t, Problem{Kind: TooManySegments, Tag: "DTM", Group: "SG1", Position: 80, SyntaxError: 35,
		Message: "DTM repeated 10 times in SG1, at most 9 allowed (position 0080)"}, st.Problems[0])

	mt = msgSynthetic.NewMatcher()
	mt.Next("UNH")
	st = mt.Next("DDD")
	require.Equal(t, "mandatory segment group SG1 (starting with AAA, position 0020) is missing", st.Problems[0].Message)
	require.Equal(t, "UNT after the message", func() string { mt.Next("UNT"); return "UNT after the message" }())
	st = mt.Next("BGM")
	require.Contains(t, st.Problems[0].Message, "after the message trailer UNT")
}

func TestMatcherAfterEnd(t *testing.T) {
	mt := msgCONTRLSyntax3.NewMatcher()
	mt.Next("UNH")
	require.NotEmpty(t, mt.End())
	st := mt.Next("UCI")
	require.Equal(t, NoPath, st.PathID)
	require.Contains(t, st.Problems[0].Message, "after the end of the message")
}

func TestMatcherReset(t *testing.T) {
	mt := msgCONTRLSyntax4.NewMatcher()
	for _, tag := range strings.Fields("UNH UCI UCF UCM UCS UNT") {
		require.Empty(t, mt.Next(tag).Problems)
	}
	mt.Reset()
	require.Same(t, &msgCONTRLSyntax4, mt.Message())
	for _, tag := range strings.Fields("UNH UCI UCM UNT") {
		require.Empty(t, mt.Next(tag).Problems, tag)
	}
	require.Empty(t, mt.End())
}

func TestMatcherNextDoesNotAllocate(t *testing.T) {
	tags := strings.Fields("UNH BGM DTM RFF DTM NAD LOC RFF CTA COM CUX LIN PIA IMD QTY DTM MOA CCI CAV PRI CUX RFF PAC PCI RFF LIN QTY NAD RFF UNS CNT ALC MOA UNT")
	mt := msgORDERSD96A.NewMatcher()
	allocs := testing.AllocsPerRun(100, func() {
		mt.Reset()
		for _, tag := range tags {
			if st := mt.Next(tag); st.Problems != nil {
				panic(st.Problems[0].Message)
			}
		}
	})
	require.Zero(t, allocs)
}

// TestMatcherFastAgreesWithNext: the key entry points give the same paths
// and problems as Next, and a second message of the same shape goes
// entirely through Fast (the memo survives Reset).
func TestMatcherFastAgreesWithNext(t *testing.T) {
	// allFast: every clean step of the second round takes the fast path;
	// steps beyond a repetition limit always take NextKey.
	cases := []struct {
		msg     *Message
		tags    string
		allFast bool
	}{
		{&msgORDERSD96A, "UNH BGM DTM DTM NAD RFF NAD CUX LIN PIA IMD QTY DTM PRI LIN PIA IMD QTY DTM PRI LIN QTY UNS CNT UNT", true},
		{&msgORDERSD96A, "UNH DTM XYZ NAD BGM LIN LIN UNT", true},
		{&msgAPERAKD96A, "UNH BGM " + strings.Repeat("RFF ", 11) + "DTM DTM DTM DTM DTM DTM DTM DTM DTM DTM DTM UNT", false},
		{&msgCONTRLSyntax4, "UNH UCI UCM UCS UCD UCD UCS UCM UCF UCM UCS UCD UCF UNT UCI", true},
		{&msgSynthetic, "UNH AAA CCC AAA BBB AAA BBB DDD UNT", true},
	}
	for _, tc := range cases {
		t.Run(tc.msg.Label+" "+tc.tags, func(t *testing.T) {
			slow, fast := tc.msg.NewMatcher(), tc.msg.NewMatcher()
			for round := range 2 {
				slow.Reset()
				fast.Reset()
				hits, clean := 0, 0
				for _, tag := range strings.Fields(tc.tags) {
					want := slow.Next(tag)
					if want.Problems == nil {
						clean++
					}
					key := PackTag(tag[0], tag[1], tag[2])
					if id, ok := fast.Fast(key); ok {
						hits++
						require.Equal(t, want.PathID, id, tag)
						require.Nil(t, want.Problems, tag)
						continue
					}
					got := fast.NextKey(key)
					require.Equal(t, want, got, tag)
				}
				require.Equal(t, slow.End(), fast.End())
				if round == 1 && tc.allFast {
					require.Equal(t, clean, hits, "every clean step of a repeated message takes the fast path")
				}
			}
		})
	}
}

func TestMatcherTerse(t *testing.T) {
	tags := strings.Fields("UNH DTM XYZ CTA " + strings.Repeat("RFF ", 11) + "UNT")
	loud, terse := msgAPERAKD96A.NewMatcher(), msgAPERAKD96A.NewMatcher()
	terse.SetTerse(true)
	var nLoud, nTerse int
	for _, tag := range tags {
		a, b := loud.Next(tag), terse.Next(tag)
		require.Equal(t, a.PathID, b.PathID)
		require.Len(t, b.Problems, len(a.Problems))
		for k := range a.Problems {
			require.NotEmpty(t, a.Problems[k].Message)
			require.Empty(t, b.Problems[k].Message)
			a.Problems[k].Message = ""
			require.Equal(t, a.Problems[k], b.Problems[k])
			nLoud++
			nTerse++
		}
	}
	require.Equal(t, 4, nLoud, "missing BGM, XYZ, CTA, too many RFF groups")
	a, b := loud.End(), terse.End()
	require.Len(t, b, len(a))
}
