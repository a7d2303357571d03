package edi

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/edi/dict"
	"github.com/stretchr/testify/require"
)

// structureIssues lists the message-structure issues as
// "CODE seg N @off [0085]".
func structureIssues(d *Document) []string {
	var out []string
	for _, is := range d.Issues() {
		if is.Code.IsStructure() || is.Code == CodeContrlVersion || is.Code == CodeContrlVersionUnknown {
			out = append(out, fmt.Sprintf("%s seg %d @%d [%d]", is.Code, is.Segment, is.Offset, is.SyntaxError))
		}
	}
	return out
}

// at is the offset of the first occurrence of s in data.
func at(t *testing.T, data []byte, s string) int {
	t.Helper()
	k := bytes.Index(data, []byte(s))
	require.GreaterOrEqual(t, k, 0, "fixture lacks %q", s)
	return k
}

// TestStructureFixtures: one fixture per kind of structure problem, with
// the exact issue, its place, its 0085 code and the text a support
// engineer reads.
func TestStructureFixtures(t *testing.T) {
	tests := []struct {
		file   string
		code   Code
		seg    int
		at     string
		syntax int
		sev    Severity
		phrase string
	}{
		{"structure/unexpected_segment.edi", CodeSegmentUnexpected, 5, "FTX+AAI", 15, E,
			`message "1" (ORDERS): segment FTX not allowed after SG2/NAD; ORDERS D.96A has it at position 0070 (FTX)`},
		{"structure/missing_segment.edi", CodeSegmentMissing, 2, "DTM+137", 13, E,
			`message "1" (ORDERS): mandatory segment BGM (position 0020) is missing; expected before DTM (segment 2)`},
		{"structure/segment_repeats.edi", CodeSegmentRepeats, 12, "DTM+171:20250310", 35, E,
			`message "A1" (APERAK): DTM repeated 10 times, at most 9 allowed (position 0030)`},
		{"structure/group_repeats.edi", CodeGroupRepeats, 13, "RFF+ON:PO-10", 36, E,
			`message "A1" (APERAK): segment group SG1 (RFF) repeated 10 times, at most 9 allowed (position 0060)`},
		{"structure/contrl_version_mismatch.edi", CodeContrlVersion, 1, "CONTRL:4:1", 0, E,
			"CONTRL 4:1 in a syntax version 3 interchange: CONTRL 2:2 (or D:3) belongs to syntax 3 and 4:1 to syntax 4"},
		{"structure/contrl_version_unknown.edi", CodeContrlVersionUnknown, 1, "CONTRL:D:96A", 0, W,
			"CONTRL version D:96A is none of 2:2, D:3 (syntax 3) and 4:1 (syntax 4); checked with the CONTRL structure of syntax 3"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := fixture(t, tt.file)
			d := mustParse(t, data)
			require.Equal(t, []string{fmt.Sprintf("%s seg %d @%d [%d]", tt.code, tt.seg, at(t, data, tt.at), tt.syntax)},
				structureIssues(d))
			is := d.Issues()[0]
			require.Len(t, d.Issues(), 1, "no other issue: %v", d.Issues())
			require.Equal(t, tt.sev, is.Severity)
			require.Contains(t, is.Message, tt.phrase)
		})
	}
}

// TestMissingSegmentAtTheEnd: mandatory entries skipped to reach UNT are
// reported at UNT; those of a message cut off before UNT at its last
// segment; a missing UNT itself is left to UNT_MISSING.
func TestMissingSegmentAtTheEnd(t *testing.T) {
	d := mustParse(t, []byte("UNB+UNOA:3+S+R+250312:1030+X'UNH+1+ORDERS:D:96A:UN'BGM+220+E-1+9'DTM+137:20250312:102'UNT+4+1'UNZ+1+X'"))
	require.Equal(t, []string{"SEGMENT_MISSING seg 4 @" + fmt.Sprint(d.Segment(4).Offset()) + " [13]"}, structureIssues(d))
	require.Contains(t, d.Issues()[0].Message, "mandatory segment UNS (position 2090) is missing; expected before UNT (segment 4)")

	d = mustParse(t, []byte("UNB+UNOA:3+S+R+250312:1030+X'UNH+1+ORDERS:D:96A:UN'BGM+220+E-1+9'DTM+137:20250312:102'UNS+S'UNZ+1+X'"))
	require.Equal(t, []Code{CodeUNTMissing}, envelopeCodes(d))
	require.Empty(t, structureIssues(d), "UNT_MISSING says it; no SEGMENT_MISSING UNT")

	d = mustParse(t, []byte("UNB+UNOA:3+S+R+250312:1030+X'UNH+1+ORDERS:D:96A:UN'BGM+220+E-1+9'DTM+137:20250312:102'UNZ+1+X'"))
	require.Equal(t, []string{"SEGMENT_MISSING seg 3 @" + fmt.Sprint(d.Segment(3).Offset()) + " [13]"}, structureIssues(d))
	for _, is := range d.Issues() {
		if is.Code == CodeSegmentMissing {
			require.Contains(t, is.Message, "mandatory segment UNS (position 2090) is missing; the message ends at segment 3")
		}
	}
}

// TestStructureIssuesCapped: a message of the wrong type does not bury
// the rest: 100 issues, then one that counts the others.
func TestStructureIssuesCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("UNB+UNOA:3+S+R+250312:1030+X'UNH+1+ORDERS:D:96A:UN'BGM+220+C-1+9'DTM+137:20250312:102'")
	for i := 0; i < 150; i++ {
		b.WriteString("XYZ+1'")
	}
	b.WriteString("UNS+S'UNT+155+1'UNZ+1+X'")
	d := mustParse(t, []byte(b.String()))
	got := structureIssues(d)
	require.Len(t, got, 101)
	last := d.Issues()[100]
	require.Equal(t, CodeStructureOmitted, last.Code)
	require.Equal(t, 104, last.Segment, "the first omitted problem")
	require.Contains(t, last.Message, "50 more structure problem(s) from segment 104 on are not listed (the first 100 are)")
	require.Equal(t, "UNS", d.Segment(154).Path(), "matching goes on after the cap")
}

func TestPathIDs(t *testing.T) {
	d := mustParse(t, fixture(t, "orders_d96a.edi"))
	var paths []string
	for i := 0; i < d.Len(); i++ {
		s := d.Segment(i)
		p := s.FullPath()
		if p == "" {
			p = "-"
		}
		paths = append(paths, s.Tag()+"="+p)
		if e, ok := s.Entry(); ok {
			require.Equal(t, s.Tag(), e.Tag)
			require.Equal(t, e.Path, s.Path())
			require.Equal(t, uint16(0), s.PathID()-1-uint16(indexOfEntry(d.Messages[0].structure, e)))
		}
	}
	require.Equal(t, "UNA=- UNB=- UNH=UNH BGM=BGM DTM=DTM DTM=DTM NAD=SG2/NAD NAD=SG2/NAD NAD=SG2/NAD "+
		"LIN=SG25/LIN QTY=SG25/QTY PRI=SG25/SG28/PRI LIN=SG25/LIN QTY=SG25/QTY UNS=UNS CNT=CNT UNT=UNT UNZ=-",
		strings.Join(paths, " "))
	require.Equal(t, "SG28/PRI", d.Segment(11).Path())

	// Every D.96A message has its structure: the INVOIC of the groups fixture too.
	d = mustParse(t, fixture(t, "groups_ung_une.edi"))
	inv := findSeg(t, d, "BGM", 2)
	require.Equal(t, "INVOIC", d.Messages[inv.Message()].Type)
	require.Equal(t, "BGM", inv.Path())
	require.Equal(t, "Beginning of message", inv.Name())

	// No structure (INVOIC D.01B): no path, but names still.
	d = mustParse(t, []byte("UNH+1+INVOIC:D:01B:UN'BGM+380+1+9'UNT+3+1'"))
	inv = findSeg(t, d, "BGM", 0)
	require.Equal(t, "", inv.Path())
	require.Equal(t, uint16(0), inv.PathID())
	require.Equal(t, "Beginning of message", inv.Name())
}

func indexOfEntry(m *dict.Message, e *dict.Entry) int {
	for i := range m.Entries {
		if &m.Entries[i] == e {
			return i
		}
	}
	return -1
}

// TestMessageDirectories: which structure each message was checked with,
// and the note people must see.
func TestMessageDirectories(t *testing.T) {
	tests := []struct {
		file, structure, directory, note string
	}{
		{"orders_d96a.edi", "ORDERS D.96A", "D96A", ""},
		{"utf8_orders_d25a.edi", "ORDERS D.24A", "D24A", "D.25A checked with the D.24A structure"},
		{"ordrsp_d25a.edi", "ORDRSP D.24A", "D24A", "D.25A checked with the D.24A structure"},
		{"aperak_d25a.edi", "APERAK D.24A", "D24A", "D.25A checked with the D.24A structure"},
		{"contrl_22.edi", "CONTRL 2:2 / D:3 (syntax 3)", "SYNTAX3", ""},
		{"contrl_d3.edi", "CONTRL 2:2 / D:3 (syntax 3)", "SYNTAX3", ""},
		{"contrl_41.edi", "CONTRL 4:1 (syntax 4)", "SYNTAX4", ""},
		{"structure/contrl_version_mismatch.edi", "CONTRL 4:1 (syntax 4)", "SYNTAX4", "CONTRL 4:1 under syntax version 3"},
		{"repetition_sv4.edi", "", "", "no directory structure for ORDERS D:01B (b2bx checks every D.96A message, ORDERS, ORDRSP, APERAK in D.24A/D.25A, and CONTRL); envelope checks only; segment names from D.24A"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			m := mustParse(t, fixture(t, tt.file)).Messages[0]
			require.Equal(t, tt.structure, m.Structure)
			require.Equal(t, tt.directory, m.Directory)
			if tt.note == "" {
				require.Empty(t, m.DirectoryNote)
			} else {
				require.Contains(t, m.DirectoryNote, tt.note)
			}
		})
	}
	d := mustParse(t, fixture(t, "groups_ung_une.edi"))
	require.Equal(t, "", d.Messages[2].DirectoryNote, "INVOIC D.96A is checked against its own structure")
	require.Equal(t, "INVOIC D.96A", d.Messages[2].Structure)
	require.Equal(t, "D96A", d.Messages[2].Directory)
	require.Nil(t, d.Messages[2].Summary())

	// A bare CONTRL 4:1 has no UNB to mismatch.
	d = mustParse(t, []byte("UNH+1+CONTRL:4:1:UN'UCI+R+S+T+7'UNT+3+1'"))
	require.Equal(t, "SYNTAX4", d.Messages[0].Directory)
	require.Empty(t, structureIssues(d))
}

// TestParallelMatchesSequential: the two-goroutine Parse of a large input
// finds the same issues, paths and summaries as the sequential one (run
// with -race: validate must not touch what the message layer writes).
func TestParallelMatchesSequential(t *testing.T) {
	data := generateOrders(1<<20, "\n")
	// A structure problem and an envelope problem, so both sides report.
	data = bytes.Replace(data, []byte("CUX+2:EUR:9'"), []byte("CUX+2:EUR:9'\nXYZ+1'"), 1)
	data = bytes.Replace(data, []byte("PO-BENCH"), []byte("po-bench\x7f"), 1)
	defer func(n int) { parallelMin = n }(parallelMin)
	parallelMin = 1
	par := mustParse(t, data)
	parallelMin = int(^uint(0) >> 1)
	seq := mustParse(t, data)
	require.Greater(t, par.Len(), 30000)
	require.Equal(t, seq.Issues(), par.Issues())
	require.Contains(t, codes(par), CodeSegmentUnexpected)
	require.Contains(t, codes(par), CodeControlChar)
	for i := 0; i < par.Len(); i++ {
		require.Equal(t, seq.Segment(i).PathID(), par.Segment(i).PathID(), "segment %d", i)
	}
	require.Equal(t, seq.Messages, par.Messages)
}

// TestEveryD96AMessageChecked: a DESADV, INVOIC or SLSRPT without its
// mandatory BGM is an error now, not "envelope checks only".
func TestEveryD96AMessageChecked(t *testing.T) {
	for _, typ := range []string{"DESADV", "INVOIC", "SLSRPT", "RECADV", "PRICAT", "IFTMIN"} {
		d := mustParse(t, []byte("UNB+UNOA:3+A:14+B:14+250312:1030+R1'UNH+1+"+typ+":D:96A:UN'DTM+137:20250312:102'UNT+3+1'UNZ+1+R1'"))
		m := d.Messages[0]
		require.Equal(t, typ+" D.96A", m.Structure, typ)
		require.Empty(t, m.DirectoryNote, typ)
		var missing []string
		for _, is := range d.Issues() {
			if is.Code == CodeSegmentMissing {
				missing = append(missing, is.Message)
			}
		}
		require.NotEmpty(t, missing, typ)
		require.Contains(t, missing[0], "mandatory segment BGM (position 0020) is missing", typ)
	}
}

// TestOneMisplacedSegmentOneFinding: a MOA in the header of an ORDERS
// gives one SEGMENT_UNEXPECTED that says where MOA would be allowed,
// not one for every later line item segment.
func TestOneMisplacedSegmentOneFinding(t *testing.T) {
	d := mustParse(t, fixture(t, "misplaced_moa.edi"))
	require.Equal(t, []string{"SEGMENT_UNEXPECTED seg 4 @93 [15]"}, structureIssues(d))
	require.Contains(t, d.Issues()[0].Message, "the next place ORDERS D.96A allows it is position 2100 (MOA)")
	require.Equal(t, "SG25/LIN", d.Segment(6).Path(), "the line items still get their paths")
}
