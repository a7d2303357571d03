package explain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/edi"
)

func parseFixture(t *testing.T, name string) *edi.Document {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", name))
	if err != nil {
		t.Fatal(err)
	}
	return parseBytes(t, data)
}

func parseBytes(t *testing.T, data []byte) *edi.Document {
	t.Helper()
	d, err := edi.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestHeadlineFixtures(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"contrl_22_rejected.edi", "CONTRL for interchange ICR0009: REJECTED, 2 errors"},
		{"contrl_41_accepted.edi", "CONTRL for interchange ICR0002: ACKNOWLEDGED, no errors reported"},
		{"contrl_d3.edi", "CONTRL for interchange ICR0010: RECEIVED, no errors reported"},
		{"ordrsp_d25a.edi", "ORDRSP to order PO-2025-0815: 2 lines changed (of 3)"},
		{"ordrsp_d96a.edi", "ORDRSP to order PO-4711: 1 line changed (of 2)"},
		{"aperak_d96a.edi", "APERAK about PO-4711: error 12: Unknown article number 4000862141411"},
		{"aperak_d25a.edi", "APERAK about PO-2025-0815: error 12: Unknown article number 4000862141411 (and 1 more error)"},
		{"orders_d96a.edi", "ORDERS PO-4711: 2 lines"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			d := parseFixture(t, tc.file)
			if len(d.Messages) != 1 {
				t.Fatalf("%d messages", len(d.Messages))
			}
			if got := Headline(&d.Messages[0]); got != tc.want {
				t.Fatalf("Headline = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHeadlineOfIsHeadline(t *testing.T) {
	d := parseFixture(t, "contrl_22_rejected.edi")
	s := d.Messages[0].Summary()
	if HeadlineOf(&d.Messages[0], s) != Headline(&d.Messages[0]) {
		t.Fatal("HeadlineOf differs from Headline")
	}
}

func TestHeadlineWithoutSummary(t *testing.T) {
	d := parseFixture(t, "groups_ung_une.edi")
	m := d.Messages[len(d.Messages)-1]
	if got, want := Headline(&m), "INVOIC D:96A:UN message 3: 6 segments"; got != want {
		t.Fatalf("Headline = %q, want %q", got, want)
	}
}

func TestHeadlineOrdersCountMismatch(t *testing.T) {
	d := parseBytes(t, []byte("UNB+UNOA:3+A:14+B:14+250312:1030+R1'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'"+
		"LIN+1++4000862141404:EN'QTY+21:1'UNS+S'CNT+2:5'UNT+7+1'UNZ+1+R1'"))
	if got, want := Headline(&d.Messages[0]), "ORDERS PO-1: 1 line, but CNT says 5"; got != want {
		t.Fatalf("Headline = %q, want %q", got, want)
	}
}

// TestHeadlineSanitises: values from the data cannot carry terminal
// escapes into the headline.
func TestHeadlineSanitises(t *testing.T) {
	d := parseBytes(t, []byte("UNB+UNOW:4+A:14+B:14+20250312:1030+R1'UNH+1+ORDRSP:D:96A:UN'BGM+231+X+4'"+
		"RFF+ON:PO-\x1b]52;c;Y2FuYXJ5\x07\u009b2J\u202e'UNT+4+1'UNZ+1+R1'"))
	got := Headline(&d.Messages[0])
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e"} {
		if strings.Contains(got, bad) {
			t.Fatalf("Headline %q contains %q", got, bad)
		}
	}
	if want := "ORDRSP to order PO-^[]52;c;Y2FuYXJ5^G<U+009B>2J<U+202E>: no lines changed (of 0)"; got != want {
		t.Fatalf("Headline = %q, want %q", got, want)
	}
}

func TestContrlErrors(t *testing.T) {
	code := &edi.Coded{Code: "12"}
	for _, tc := range []struct {
		name string
		c    edi.ContrlSummary
		want int
	}{
		{"none", edi.ContrlSummary{}, 0},
		{"UCI error", edi.ContrlSummary{ContrlError: edi.ContrlError{ServiceSegment: "UNB"}}, 1},
		{"UCS with code and UCDs", edi.ContrlSummary{Messages: []edi.ContrlMessage{{Segments: []edi.ContrlSegmentError{
			{SyntaxError: code, Elements: []edi.ContrlElementError{{}, {}}}}}}}, 3},
		{"UCS leading to one UCD counts once", edi.ContrlSummary{Messages: []edi.ContrlMessage{{Segments: []edi.ContrlSegmentError{
			{Elements: []edi.ContrlElementError{{SyntaxError: code}}}}}}}, 1},
		{"bare UCS", edi.ContrlSummary{Messages: []edi.ContrlMessage{{Segments: []edi.ContrlSegmentError{{Position: 3}}}}}, 1},
		{"group and its messages", edi.ContrlSummary{Groups: []edi.ContrlGroup{{ContrlError: edi.ContrlError{SyntaxError: code},
			Messages: []edi.ContrlMessage{{ContrlError: edi.ContrlError{SyntaxError: code}}}}}}, 2},
	} {
		if got := ContrlErrors(&tc.c); got != tc.want {
			t.Errorf("%s: ContrlErrors = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		v    Verdict
		want string
	}{
		{Verdict{}, "VALID: no errors, no warnings"},
		{Verdict{Warnings: 1}, "VALID: no errors, 1 warning"},
		{Verdict{Errors: 2, Warnings: 3}, "INVALID: 2 errors, 3 warnings"},
		{Verdict{Errors: 1}, "INVALID: 1 error, no warnings"},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.v, got, tc.want)
		}
	}
	if v := VerdictOf(parseFixture(t, "missing_unz.edi")); v != (Verdict{Errors: 1}) || v.Valid() {
		t.Fatalf("missing_unz: %+v", v)
	}
	if v := VerdictOf(parseFixture(t, "bom.edi")); v != (Verdict{Warnings: 1}) || !v.Valid() {
		t.Fatalf("bom: %+v", v)
	}
}

func TestParty(t *testing.T) {
	got := Party(3, edi.Party{ID: "4012345000009", Qualifier: "14", Routing: "R\x1b"})
	if want := "4012345000009 (qualifier 14 GS1) routing R^["; got != want {
		t.Fatalf("Party = %q, want %q", got, want)
	}
	if got := PartyID(edi.PartyID{ID: "X", Qualifier: edi.Coded{Code: "14", Name: "GS1"}}); got != "X (14 GS1)" {
		t.Fatalf("PartyID = %q", got)
	}
}

func TestFields(t *testing.T) {
	d := parseFixture(t, "orders_d96a.edi")
	var nad edi.SegmentInfo
	for i := 0; i < d.Len(); i++ {
		if d.Segment(i).Tag() == "NAD" {
			nad = d.Describe(i)
			break
		}
	}
	if len(nad.Fields) < 2 {
		t.Fatalf("NAD fields: %+v", nad.Fields)
	}
	role, id := nad.Fields[0], nad.Fields[1]
	if FieldPosition(role) != "010" || FieldRef(role) != "3035" || FieldValue(role) != "BY = Buyer" {
		t.Fatalf("role: %q %q %q", FieldPosition(role), FieldRef(role), FieldValue(role))
	}
	if FieldPosition(id) != "020:1" || FieldRef(id) != "C082.3039" || FieldName(id) != "Party id. identification" {
		t.Fatalf("id: %q %q %q", FieldPosition(id), FieldRef(id), FieldName(id))
	}
	extra := edi.Field{Position: "990", Component: 2, Repetition: 1, Value: "ZZ", CodeList: true}
	if FieldPosition(extra) != "990:2*1" || FieldRef(extra) != "?" || FieldName(extra) != "(not in the directory's segment)" ||
		FieldValue(extra) != "ZZ (code not in the list)" {
		t.Fatalf("extra: %q %q %q %q", FieldPosition(extra), FieldRef(extra), FieldName(extra), FieldValue(extra))
	}
}
