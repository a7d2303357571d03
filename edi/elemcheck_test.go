package edi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// elementIssues lists the element-check issues as "severity CODE seg N
// [0085]".
func elementIssues(d *Document) []string {
	var out []string
	for _, is := range d.Issues() {
		if is.Code.IsElement() {
			out = append(out, fmt.Sprintf("%s %s seg %d [%d]", is.Severity, is.Code, is.Segment, is.SyntaxError))
		}
	}
	return out
}

func orders(body string) []byte {
	return []byte("UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'" + body + "UNT+9+1'UNZ+1+R'")
}

// TestServiceElementFormat: a service element that breaks its format is
// an error with the position and the rule.
func TestServiceElementFormat(t *testing.T) {
	d := mustParse(t, []byte("UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+IFCSUM:D:13131B:UN'BGM+1'UNT+3+1'UNZ+1+R'"))
	require.Equal(t, []string{"error SERVICE_ELEMENT_FORMAT seg 1 [39]"}, elementIssues(d))
	is := issuesWith(d, CodeServiceElementFormat)[0]
	require.Equal(t, `UNH element 020:3 (S009.0054 Message release number) "13131B" is 6 characters long; its format an..3 allows at most 3`, is.Message)
	require.Equal(t, at(t, d.Data(), "13131B"), is.Offset)

	// Codes of service segments: an error; 0007 "99" is no qualifier.
	d = mustParse(t, []byte("UNB+UNOC:3+A:99+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+1+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+R'"))
	require.Equal(t, []string{"error SERVICE_CODE_NOT_IN_LIST seg 0 [12]"}, elementIssues(d))
	require.Contains(t, d.Issues()[0].Message, `UNB element 020:2 (S002.0007 Partner identification code qualifier) "99" is not in the service syntax 3 code list of 0007`)

	// Syntax 4 dates are CCYYMMDD (n8).
	d = mustParse(t, []byte("UNB+UNOC:4+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+1+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+R'"))
	require.Equal(t, []string{"error SERVICE_ELEMENT_FORMAT seg 0 [40]"}, elementIssues(d))
	require.Contains(t, d.Issues()[0].Message, "its format n8 needs 8")
}

// TestMessageElementChecks: message elements get warnings for format and
// closed code lists, none for open lists or codes of another list.
func TestMessageElementChecks(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       []string
		phrase     string
	}{
		{"clean", "BGM+220+PO-1+9'DTM+137:20250312:102'LIN+1++4000862141404:EN'QTY+21:-1.5'UNS+S'", nil, ""},
		{"numeric", "BGM+220+PO-1+9'DTM+137:20250312:102'QTY+21:abc'UNS+S'",
			[]string{"warning ELEMENT_FORMAT seg 4 [37]"}, `QTY element 010:2 (C186.6060 Quantity) "abc" is not a number; its format n..15 is numeric`},
		{"decimal mark and sign do not count", "BGM+220+PO-1+9'DTM+137:20250312:102'QTY+21:-123456789012.345'UNS+S'", nil, ""},
		{"too many digits", "BGM+220+PO-1+9'DTM+137:20250312:102'QTY+21:1234567890123.456'UNS+S'",
			[]string{"warning ELEMENT_FORMAT seg 4 [39]"}, "is 16 characters long; its format n..15 allows at most 15"},
		{"closed list", "BGM+999+PO-1+9'DTM+137:20250312:102'UNS+S'",
			[]string{"warning CODE_NOT_IN_LIST seg 2 [12]"}, `BGM element 010:1 (C002.1001 Document/message name, coded) "999" is not in the D.96A code list of 1001`},
		{"another agency's list", "BGM+999::9+PO-1+9'DTM+137:20250312:102'UNS+S'", nil, ""},
		{"UN/ECE agency is still checked", "BGM+999::6+PO-1+9'DTM+137:20250312:102'UNS+S'",
			[]string{"warning CODE_NOT_IN_LIST seg 2 [12]"}, `"999"`},
		{"open list (7143: may be used with 1131/3055)", "BGM+220+PO-1+9'DTM+137:20250312:102'LIN+1++4000862141404:XX'UNS+S'", nil, ""},
		{"too long", "BGM+220+PO-1+9'DTM+137:20250312:102'FTX+AAI+++x+ENGL'UNS+S'",
			[]string{"warning ELEMENT_FORMAT seg 4 [39]"}, `FTX element 050 (3453 Language, coded) "ENGL" is 4 characters long; its format an..3 allows at most 3`},
		{"released characters count once", "BGM+220+PO-1+9'DTM+137:20250312:102'FTX+AAI+++x+E?+N'UNS+S'", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := mustParse(t, orders(tt.body))
			require.Equal(t, tt.want, elementIssues(d))
			if tt.phrase != "" {
				require.Contains(t, elementMessages(d)[0], tt.phrase)
			}
		})
	}
	// UTF-8 counts characters, not bytes: 35 two-byte letters fit an..35.
	name := ""
	for range 35 {
		name += "Ł"
	}
	d := mustParse(t, []byte("UNB+UNOY:4+A:14+B:14+20250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+1+9'DTM+137:20250312:102'NAD+BY+++"+name+"'UNS+S'UNT+6+1'UNZ+1+R'"))
	require.Empty(t, elementIssues(d))
}

func elementMessages(d *Document) []string {
	var out []string
	for _, is := range d.Issues() {
		if is.Code.IsElement() {
			out = append(out, is.Message)
		}
	}
	return out
}

// TestContrlSummaryBadPosition: UCS+X+13 has 0096 (n..6) = "X": an error,
// and the summary keeps "X" instead of claiming segment 0.
func TestContrlSummaryBadPosition(t *testing.T) {
	d := mustParse(t, []byte("UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+CONTRL:2:2:UN'UCI+ICR1+B:14+A:14+4'UCM+1+ORDERS:D:96A:UN+4'UCS+X+13'UNT+5+1'UNZ+1+R'"))
	require.Equal(t, []string{"error SERVICE_ELEMENT_FORMAT seg 4 [37]"}, elementIssues(d))
	require.Contains(t, elementMessages(d)[0], `UCS element 010 (0096 Segment position in message) "X" is not a number`)
	sum := d.Messages[0].Summary()
	require.NotNil(t, sum)
	segs := sum.Contrl.Messages[0].Segments
	require.Len(t, segs, 1)
	require.Equal(t, 0, segs[0].Position)
	require.Equal(t, "X", segs[0].PositionInvalid)
}

// TestCleanSkipKnowsTheDialect: a segment is skipped as clean only when
// the last clean one had the same bytes in the same dialect. The same
// free text of 50 "é" is 50 characters in a UTF-8 interchange (UNOW,
// within an..70) and 100 in a UNOC one, whose bytes are characters:
// the second interchange's FTX is too long whichever comes first.
func TestCleanSkipKnowsTheDialect(t *testing.T) {
	ic := func(charset string) string {
		return "UNB+" + charset + ":3+S:14+R:14+250101:1200+X'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'FTX+AAI+++" +
			strings.Repeat("é", 50) + "'UNS+S'UNT+4+1'UNZ+1+X'"
	}
	for _, first := range []string{"UNOW", "UNOC"} {
		second := map[string]string{"UNOW": "UNOC", "UNOC": "UNOW"}[first]
		d := mustParse(t, []byte(ic(first)+ic(second)))
		var long []int
		for _, is := range d.Issues() {
			if is.Code == CodeElementFormat {
				long = append(long, is.Segment)
			}
		}
		want := 3 // the FTX of the first interchange (UNOC)
		if first == "UNOW" {
			want = 10 // the FTX of the second
		}
		require.Equal(t, []int{want}, long, "%s first", first)
	}
}
