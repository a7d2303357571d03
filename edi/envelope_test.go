package edi

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

const fixtureDir = "../testdata/edifact"

// fixture reads a canonical fixture (they are part of the repository).
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, name))
	require.NoError(t, err)
	return data
}

func mustParse(t testing.TB, data []byte) *Document {
	t.Helper()
	d, err := Parse(data)
	require.NoError(t, err)
	return d
}

// wantIssue describes one expected issue; the offset is where `at` first
// occurs in the file plus `plus` (at == "" means offset 0, at == "$" the
// end of the data).
type wantIssue struct {
	code Code
	sev  Severity
	syn  int
	seg  int
	at   string
	plus int
}

func (w wantIssue) offset(t *testing.T, data []byte) int {
	t.Helper()
	switch w.at {
	case "":
		return w.plus
	case "$":
		return len(data) + w.plus
	}
	k := bytes.Index(data, []byte(w.at))
	require.GreaterOrEqual(t, k, 0, "fixture lacks %q", w.at)
	return k + w.plus
}

const (
	E = SeverityError
	W = SeverityWarning
)

// envelopeIssues leaves out the message-structure issues (tested in
// msgcheck_test.go) and the element checks (elemcheck_test.go), so the
// envelope fixtures can stay minimal messages.
func envelopeIssues(d *Document) []Issue {
	var out []Issue
	for _, is := range d.Issues() {
		if !is.Code.IsStructure() && !is.Code.IsElement() {
			out = append(out, is)
		}
	}
	return out
}

// envelopeCodes is codes(d) without the structure codes.
func envelopeCodes(d *Document) []Code {
	var c []Code
	for _, is := range envelopeIssues(d) {
		c = append(c, is.Code)
	}
	return c
}

// TestEnvelopeRules checks every envelope rule on its own fixture: the
// exact list of issues with code, severity, 0085 code, segment and offset.
func TestEnvelopeRules(t *testing.T) {
	tests := []struct {
		file string
		want []wantIssue
	}{
		{"errors/unt_count.edi", []wantIssue{{CodeUNTCountMismatch, E, 29, 3, "UNT+4", 4}}},
		{"errors/unt_ref.edi", []wantIssue{{CodeUNTRefMismatch, E, 28, 3, "UNT+3+2", 6}}},
		{"errors/unt_missing.edi", []wantIssue{{CodeUNTMissing, E, 13, 2, "BGM+220+E-1", 0}}},
		{"errors/unt_unexpected.edi", []wantIssue{{CodeUNTUnexpected, E, 33, 4, "UNT+3+1'\nUNT", 9}}},
		{"errors/count_invalid.edi", []wantIssue{{CodeCountInvalid, E, 12, 3, "THREE", 0}}},
		{"errors/une_count.edi", []wantIssue{{CodeUNECountMismatch, E, 29, 5, "UNE+2", 4}}},
		{"errors/une_ref.edi", []wantIssue{{CodeUNERefMismatch, E, 28, 5, "G9", 0}}},
		{"errors/une_missing.edi", []wantIssue{{CodeUNEMissing, E, 13, 4, "UNT+3+1", 0}}},
		{"errors/une_unexpected.edi", []wantIssue{{CodeUNEUnexpected, E, 33, 4, "UNE+1", 0}}},
		{"errors/unz_count.edi", []wantIssue{{CodeUNZCountMismatch, E, 29, 4, "UNZ+2", 4}}},
		{"errors/unz_ref.edi", []wantIssue{{CodeUNZRefMismatch, E, 28, 4, "REF2", 0}}},
		{"errors/unz_unexpected.edi", []wantIssue{
			{CodeBareMessage, W, 0, 0, "UNH", 0},
			{CodeUNZUnexpected, E, 33, 3, "UNZ", 0},
		}},
		{"missing_unz.edi", []wantIssue{{CodeUNZMissing, E, 13, 5, "UNT+5+1", 0}}},
		{"errors/data_after_unz.edi", []wantIssue{{CodeDataAfterUNZ, E, 33, 5, "FTX", 0}}},
		{"errors/outside_message.edi", []wantIssue{{CodeOutsideMessage, E, 33, 1, "DTM", 0}}},
		{"errors/mixed_groups.edi", []wantIssue{{CodeMixedGroups, E, 30, 4, "UNG", 0}}},
		{"errors/empty_interchange.edi", []wantIssue{{CodeEmptyInterchange, W, 32, 0, "UNB", 0}}},
		{"errors/empty_group.edi", []wantIssue{{CodeEmptyGroup, W, 32, 1, "UNG", 0}}},
		{"errors/group_mismatch.edi", []wantIssue{{CodeGroupMismatch, W, 0, 2, "UNH", 0}}},
		{"errors/tag_invalid.edi", []wantIssue{
			{CodeTagInvalid, E, 0, 2, "bgm", 0},
			{CodeCharOutsideLevel, W, 21, 2, "bgm", 0},
		}},
		{"errors/segment_empty.edi", []wantIssue{{CodeSegmentEmpty, E, 0, 3, "'\n'", 2}}},
		{"errors/trailing_separator.edi", []wantIssue{{CodeTrailingSeparator, W, 0, 2, "9+'", 1}}},
		{"errors/una_invalid.edi", []wantIssue{{CodeUNAInvalid, E, 20, 0, "", 0}}},
		{"errors/syntax_unknown.edi", []wantIssue{{CodeSyntaxUnknown, W, 2, 0, "ABCD", 0}}},
		{"errors/syntax_version.edi", []wantIssue{{CodeSyntaxVersion, E, 2, 0, "UNOA", 0}}},
		{"errors/unb_missing.edi", []wantIssue{{CodeUNBElementMissing, E, 13, 0, ":14+RECEIVER", 0}}},
		{"errors/unh_missing.edi", []wantIssue{{CodeUNHElementMissing, E, 13, 1, "ORDERS", 0}}},
		{"errors/date_invalid.edi", []wantIssue{{CodeDateInvalid, W, 12, 0, "251332", 0}}},
		{"errors/unterminated.edi", []wantIssue{{CodeUnterminated, E, 0, 4, "$", 0}}},
		{"errors/release_dangling.edi", []wantIssue{{CodeDanglingRelease, E, 0, 4, "$", -1}}},
		{"errors/release_invalid.edi", []wantIssue{{CodeReleaseInvalid, W, 0, 2, "?-", 0}}},
		{"errors/char_outside_level.edi", []wantIssue{{CodeCharOutsideLevel, W, 21, 2, "e-1", 0}}},
		{"errors/control_char.edi", []wantIssue{{CodeControlChar, E, 21, 2, "\x07", 0}}},
		{"errors/eight_bit.edi", []wantIssue{{CodeEightBitInSevenBit, E, 21, 2, "\xc4", 0}}},
		{"errors/c1_control.edi", []wantIssue{{CodeC1Control, W, 21, 2, "\x80", 0}}},
		{"errors/looks_utf8.edi", []wantIssue{{CodeLooksUTF8, W, 21, 2, "\xc3", 0}}},
		{"errors/utf8_invalid.edi", []wantIssue{{CodeInvalidUTF8, E, 21, 2, "\xfc", 0}}},
		{"errors/trailing_data.edi", []wantIssue{{CodeTrailingData, W, 0, 4, "   ", 0}}},
		{"errors/empty.edi", []wantIssue{{CodeEmptyInput, E, 0, -1, "", 0}}},
		{"junk_before_unb.edi", []wantIssue{{CodeJunk, E, 0, -1, "", 0}}},
		{"bom.edi", []wantIssue{{CodeBOM, W, 0, -1, "", 0}}},
		{"hard_wrapped.edi", []wantIssue{{CodeLineBreakInSegment, W, 0, 1, "UNB", 0}}},
		{"bare_message.edi", []wantIssue{{CodeBareMessage, W, 0, 0, "UNH", 0}}},
		{"indented.edi", []wantIssue{{CodeIndented, W, 0, 1, "UNH", 0}}},
		{"errors/duplicate_refs.edi", []wantIssue{
			{CodeGroupRefDuplicate, E, 26, 8, "1030+G1+UN+D:96A'\nUNH+7+ORDERS:D:96A:UN'\nBGM+220+PO-2", 5},
			{CodeMessageRefDuplicate, E, 26, 9, "7+ORDERS:D:96A:UN'\nBGM+220+PO-2", 0},
			{CodeInterchangeRefDuplicate, E, 26, 16, "DUP1'\nUNH+7+ORDERS:D:96A:UN'\nBGM+220+PO-3", 0},
		}},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			seen[tt.file] = true
			data := fixture(t, tt.file)
			d := mustParse(t, data)
			var want []Issue
			for _, w := range tt.want {
				want = append(want, Issue{Severity: w.sev, Code: w.code, Segment: w.seg, Offset: w.offset(t, data), SyntaxError: w.syn})
			}
			got := envelopeIssues(d)
			require.Len(t, got, len(want), "issues: %v", got)
			for k := range got {
				require.NotEmpty(t, got[k].Message)
				got[k].Message = ""
			}
			require.Equal(t, want, got)
		})
	}
	// Every error fixture must be covered by the table.
	files, err := filepath.Glob(filepath.Join(fixtureDir, "errors", "*.edi"))
	require.NoError(t, err)
	for _, f := range files {
		require.True(t, seen["errors/"+filepath.Base(f)], "fixture %s has no expectation", f)
	}
}

// TestCleanFixtures: the feature fixtures that are meant to be correct
// produce no issue at all.
func TestCleanFixtures(t *testing.T) {
	for _, f := range []string{
		"orders_d96a.edi", "utf8_orders_d25a.edi", "ordrsp_d96a.edi", "aperak_d96a.edi",
		"contrl_22.edi", "contrl_41.edi", "unob_control.edi", "unob_printable.edi",
		"release_chains.edi", "repetition_sv4.edi", "groups_ung_une.edi", "crlf.edi",
	} {
		t.Run(f, func(t *testing.T) {
			d := mustParse(t, fixture(t, f))
			var got []string
			for _, is := range d.Issues() {
				got = append(got, fmt.Sprintf("%s %s seg %d", is.Severity, is.Code, is.Segment))
			}
			// Two fixtures were written for something else and break a
			// directory rule: the element checks say so, as warnings.
			switch f {
			case "aperak_d96a.edi": // 313 came to UNCL 1001 after D.96A
				require.Equal(t, []string{"warning CODE_NOT_IN_LIST seg 2"}, got)
			case "release_chains.edi": // text in FTX 3453 (language, an..3)
				require.Equal(t, []string{"warning ELEMENT_FORMAT seg 5", "warning ELEMENT_FORMAT seg 6"}, got)
			default:
				require.Empty(t, d.Issues())
			}
			require.False(t, d.HasErrors())
		})
	}
}

func TestIssueMessagesSayWhatToDo(t *testing.T) {
	d := mustParse(t, fixture(t, "errors/unt_count.edi"))
	require.Contains(t, envelopeIssues(d)[0].Message, "UNT control count is 4 but there are 3")
	require.Contains(t, envelopeIssues(d)[0].Message, "set UNT element 1 to 3")

	d = mustParse(t, fixture(t, "missing_unz.edi"))
	require.Contains(t, d.Issues()[0].Message, `expected UNZ+1+NOUNZ after segment 5`)

	d = mustParse(t, fixture(t, "junk_before_unb.edi"))
	require.Contains(t, d.Issues()[0].Message, "50 bytes at offset 0 are not EDIFACT")
	require.Contains(t, d.Issues()[0].String(), "error JUNK_BEFORE_INTERCHANGE at segment -1 (offset 0)")
}

func TestOutsideMessageRunsAggregate(t *testing.T) {
	data := []byte("UNB+UNOA:3+S+R+250312:1030+R1'DTM+1'DTM+2'DTM+3'UNH+1+ORDERS:D:96A:UN'UNT+2+1'FTX+X'UNZ+1+R1'")
	d := mustParse(t, data)
	var got []Issue
	for _, is := range d.Issues() {
		if is.Code == CodeOutsideMessage {
			got = append(got, is)
		}
	}
	require.Len(t, got, 2)
	require.Equal(t, 1, got[0].Segment)
	require.Contains(t, got[0].Message, "3 segments starting with DTM")
	require.Equal(t, 6, got[1].Segment)
}

func TestSortIssuesStable(t *testing.T) {
	d := mustParse(t, fixture(t, "errors/unt_count.edi"))
	d.issues = append(d.issues, Issue{Severity: SeverityWarning, Code: "LATER_X", Segment: 1, Offset: 51, Message: "later layer"})
	d.finish()
	require.Equal(t, Code("LATER_X"), d.Issues()[0].Code)
	require.Equal(t, []Code{"LATER_X", CodeSegmentMissing, CodeSegmentMissing, CodeUNTCountMismatch}, codes(d),
		"stable: the structure issues at UNT's start come before the count issue at its element 1")
}

// TestIssuesReadOnly: appending to what Issues returns never writes into
// the Document's own list.
func TestIssuesReadOnly(t *testing.T) {
	d := mustParse(t, fixture(t, "errors/unt_count.edi"))
	d.issues = append(make([]Issue, 0, len(d.issues)+8), d.issues...) // spare capacity
	before := slices.Clone(d.Issues())
	_ = append(d.Issues(), Issue{Code: "CALLER"})
	require.Equal(t, before, d.issues[:len(d.issues)+1][:len(before)])
	require.NotEqual(t, Code("CALLER"), d.issues[:len(d.issues)+1][len(before)].Code, "the caller's append did not land in the spare capacity")
}

// TestIndentedSegments: spaces and tabs after the line break between
// segments are layout with one warning; the messages keep their tags and
// structure, a tab there is no control character, and one inside a
// segment still is.
func TestIndentedSegments(t *testing.T) {
	d := mustParse(t, fixture(t, "indented.edi"))
	require.Len(t, d.Issues(), 1, "%v", d.Issues())
	require.Equal(t, CodeIndented, d.Issues()[0].Code)
	require.Contains(t, d.Issues()[0].Message, "5 segment(s) are indented")
	require.Len(t, d.Messages, 1)
	require.Equal(t, "UNH", d.Segment(1).Tag())
	require.Equal(t, "DTM", d.Segment(3).Tag())
	require.Equal(t, "ORDERS D.96A", d.Messages[0].Structure)
	require.Equal(t, 0, d.Messages[0].StructureProblems)
	require.True(t, bytes.Equal(fixture(t, "indented.edi"), reserialise(d)))

	d = mustParse(t, []byte("UNB+UNOA:3+A:14+B:14+250312:1030+R1'\n\tUNH+1+ORDERS:D:96A:UN'BGM+220+P\tO+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+R1'"))
	var codes []Code
	for _, is := range d.Issues() {
		codes = append(codes, is.Code)
	}
	require.Equal(t, []Code{CodeIndented, CodeControlChar}, codes)
	require.Contains(t, d.Issues()[1].Message, "1 control character(s) inside segments")

	// Spaces after a terminator without a line break are no layout: the
	// tag is bad, as before.
	d = mustParse(t, []byte("UNB+UNOA:3+A:14+B:14+250312:1030+R1'  UNH+1+ORDERS:D:96A:UN'UNT+2+1'UNZ+1+R1'"))
	require.False(t, d.Segment(1).TagValid())
	require.NotContains(t, fmt.Sprint(d.Issues()), string(CodeIndented))
}
