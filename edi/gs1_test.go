package edi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGS1CheckDigit(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want byte
	}{{"409876500000", '3'}, {"401234500000", '9'}, {"400086214140", '4'}, {"9638507", '4'}, {"0000000000000", '0'}} {
		d, ok := GS1CheckDigit(tt.in)
		require.True(t, ok, tt.in)
		require.Equal(t, string(tt.want), string(d), tt.in)
	}
	_, ok := GS1CheckDigit("40987650000X")
	require.False(t, ok)
	require.True(t, ValidGLN("4098765000003"))
	require.False(t, ValidGLN("4098765000007"), "the supplier GLN the fixtures had")
	require.False(t, ValidGLN("409876500000"))
}

func gs1Issues(d *Document) []string {
	var out []string
	for _, is := range d.Issues() {
		if is.Code == CodeCheckDigit {
			out = append(out, is.Message)
		}
	}
	return out
}

// TestCheckDigitIssues: a GLN or GTIN with a wrong check digit is an
// error that says the digit it should be, where the data says it is one.
func TestCheckDigitIssues(t *testing.T) {
	for _, tt := range []struct {
		name, data string
		want       []string
	}{
		{"clean", "UNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'NAD+BY+4012345000009::9'LIN+1++4000862141404:SRS'PIA+1+4000862141411:EN'UNS+S'UNT+8+1'UNZ+1+R'", nil},
		{"NAD agency 9", "UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'NAD+SU+4098765000007::9'UNS+S'UNT+6+1'UNZ+1+R'",
			[]string{`NAD element 020:1 (C082.3039 Party id. identification) "4098765000007" is a GLN (agency 9, GS1) with a wrong check digit: it ends in 7, its GS1 check digit is 3 (4098765000003)`}},
		{"NAD other agency", "UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'NAD+SU+4098765000007::92'UNS+S'UNT+6+1'UNZ+1+R'", nil},
		{"UNB qualifier 14", "UNB+UNOC:3+4012345000009:14+4098765000007:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+R'",
			[]string{`UNB element 030:1 (S003.0010 Recipient identification) "4098765000007" is a GLN (qualifier 14, GS1) with a wrong check digit: it ends in 7, its GS1 check digit is 3 (4098765000003)`}},
		{"UNB qualifier ZZ", "UNB+UNOC:3+4012345000009:14+4098765000007:ZZ+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+R'", nil},
		{"GLN of 12 digits", "UNB+UNOC:3+401234500000:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+R'",
			[]string{`UNB element 020:1 (S002.0004 Sender identification) "401234500000" has 12 digits, so it is not a GLN (qualifier 14, GS1), which has 13 digits`}},
		{"LIN SRS", "UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'LIN+1++4000862141405:SRS'UNS+S'UNT+6+1'UNZ+1+R'",
			[]string{`LIN element 030:1 (C212.7140 Item number) "4000862141405" is a GTIN (7143 SRS) with a wrong check digit: it ends in 5, its GS1 check digit is 4 (4000862141404)`}},
		{"LIN supplier's number", "UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'LIN+1++4000862141405:SA'UNS+S'UNT+6+1'UNZ+1+R'", nil},
		{"PIA second number", "UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'LIN+1'PIA+1+X1:SA+96385075:EN'UNS+S'UNT+7+1'UNZ+1+R'",
			[]string{`PIA element 030:1 (C212.7140 Item number) "96385075" is a GTIN (7143 EN) with a wrong check digit: it ends in 5, its GS1 check digit is 4 (96385074)`}},
		{"PIA first number", "UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'LIN+1'PIA+1+96385075:SRS'UNS+S'UNT+7+1'UNZ+1+R'",
			[]string{`PIA element 020:1 (C212.7140 Item number) "96385075" is a GTIN (7143 SRS) with a wrong check digit: it ends in 5, its GS1 check digit is 4 (96385074)`}},
		{"GTIN-14 and 12", "UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'LIN+1++14000862141401:SRS'PIA+1+036000291452:EN'UNS+S'UNT+7+1'UNZ+1+R'", nil},
		{"not digits", "UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'NAD+BY+PARTNER1::9'UNS+S'UNT+6+1'UNZ+1+R'", nil},
		{"D.25A", "UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:25A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'NAD+BY+4012345000008::9'UNS+S'UNT+6+1'UNZ+1+R'",
			[]string{`NAD element 020:1 (C082.3039 Party identifier) "4012345000008" is a GLN (agency 9, GS1) with a wrong check digit: it ends in 8, its GS1 check digit is 9 (4012345000009)`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := mustParse(t, []byte(tt.data))
			require.Equal(t, tt.want, gs1Issues(d))
			for _, is := range d.Issues() {
				if is.Code == CodeCheckDigit {
					require.Equal(t, SeverityError, is.Severity)
					require.Equal(t, SyntaxInvalidValue, is.SyntaxError)
				}
			}
		})
	}
	// The issue sits on the value, so a pin or CONTRL names element 2:1.
	data := []byte("UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'NAD+SU+4098765000007::9'UNS+S'UNT+6+1'UNZ+1+R'")
	d := mustParse(t, data)
	require.Equal(t, at(t, data, "4098765000007"), issuesWith(d, CodeCheckDigit)[0].Offset)
	require.True(t, d.HasErrors())
}

// TestAgencyAndListCodes: 3055 and 1131 are checked against their own
// lists even where they make the composite's codes another list's.
func TestAgencyAndListCodes(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       []string
	}{
		{"FTX agency AA", "BGM+220+PO-1+9'DTM+137:20250312:102'FTX+AAI++X::AA'UNS+S'", []string{`FTX element 030:3 (C107.3055 Code list responsible agency, coded) "AA" is not in the D.96A code list of 3055`}},
		{"FTX agency 9", "BGM+220+PO-1+9'DTM+137:20250312:102'FTX+AAI++X::9'UNS+S'", nil},
		{"BGM list XX", "BGM+999:XX+PO-1+9'DTM+137:20250312:102'UNS+S'", []string{`BGM element 010:2 (C002.1131 Code list qualifier) "XX" is not in the D.96A code list of 1131`}},
		{"BGM list ZZZ names another list", "BGM+999:ZZZ+PO-1+9'DTM+137:20250312:102'UNS+S'", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, elementMessages(mustParse(t, orders(tt.body))))
		})
	}
	// D.25A (checked as D.24A) has a 3055 list.
	d := mustParse(t, []byte("UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:25A:UN'BGM+220+PO-1+9'DTM+137:20250312:102'FTX+AAI++X::AA'UNS+S'UNT+6+1'UNZ+1+R'"))
	require.Len(t, elementMessages(d), 1)
	require.Contains(t, elementMessages(d)[0], `"AA" is not in the D.24A code list of 3055`)
}
