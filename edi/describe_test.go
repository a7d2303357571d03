package edi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// fieldAt finds the described value at element e, component c.
func fieldAt(t *testing.T, info SegmentInfo, e, c int) Field {
	t.Helper()
	for _, f := range info.Fields {
		if f.Element == e && f.Component == c && f.Repetition == 0 {
			return f
		}
	}
	t.Fatalf("%s has no value at %d:%d: %+v", info.Tag, e, c, info.Fields)
	return Field{}
}

func TestDescribeNamesAndCodes(t *testing.T) {
	d := mustParse(t, fixture(t, "orders_d96a.edi"))
	nad := d.Describe(6)
	require.Equal(t, "NAD", nad.Tag)
	require.Equal(t, "Name and address", nad.Name)
	require.Contains(t, nad.Function, "name/address")
	require.Equal(t, "SG2/NAD", nad.Path)
	require.Equal(t, "D.96A", nad.Directory)
	require.Equal(t, 5, nad.Number)
	require.Equal(t, Field{Element: 1, Position: "010", Ref: "3035", ID: "3035", Name: "Party qualifier", Mandatory: true,
		Repr: "an..3", Raw: "BY", Value: "BY", CodeName: "Buyer", CodeList: true}, fieldAt(t, nad, 1, 0))
	gln := fieldAt(t, nad, 2, 1)
	require.Equal(t, "020", gln.Position)
	require.Equal(t, "C082.3039", gln.Ref)
	require.Equal(t, "Party identification details", gln.Composite)
	require.Equal(t, "4012345000009", gln.Value)
	require.False(t, gln.CodeList)
	require.Equal(t, "EAN (International Article Numbering association)", fieldAt(t, nad, 2, 3).CodeName)
	require.Equal(t, "Müller Großhandel GmbH", fieldAt(t, nad, 4, 1).Value, "decoded from ISO 8859-1")
	require.Contains(t, string(d.Segment(6).Raw()), "M\xfcller Gro\xdfhandel GmbH", "the data is Latin-1")

	bgm := d.Describe(3)
	require.Equal(t, "Original", fieldAt(t, bgm, 3, 0).CodeName, `1225 "9"`)
	require.Equal(t, "Order", fieldAt(t, bgm, 1, 1).CodeName, `1001 "220"`)

	// Service segments use the service directory of the syntax version.
	unb := d.Describe(1)
	require.Equal(t, "Interchange header", unb.Name)
	require.Equal(t, "service syntax 3", unb.Directory)
	require.Equal(t, "", unb.Path, "UNB is outside the message")
	require.Equal(t, "Sender identification", fieldAt(t, unb, 2, 1).Name)
	require.Equal(t, "GS1", fieldAt(t, unb, 2, 2).CodeName)
	require.Equal(t, "UN/ECE level C", fieldAt(t, unb, 1, 1).CodeName)
	unb4 := mustParse(t, fixture(t, "contrl_41.edi")).Describe(0)
	require.Equal(t, "service syntax 4", unb4.Directory)
	require.Equal(t, "Interchange sender identification", fieldAt(t, unb4, 2, 1).Name)

	una := d.Describe(0)
	require.Equal(t, "Service string advice", una.Name)
	require.Empty(t, una.Fields)
}

func TestDescribeD25A(t *testing.T) {
	d := mustParse(t, fixture(t, "utf8_orders_d25a.edi"))
	bgm := d.Describe(3)
	require.Equal(t, "D.24A", bgm.Directory)
	require.Equal(t, "D.25A checked with the D.24A structure", bgm.Note)
	require.Equal(t, "C106.1004", fieldAt(t, bgm, 2, 1).Ref, "BGM element 2 is a composite in D.24A")
	require.Equal(t, "Original", fieldAt(t, bgm, 3, 0).CodeName)
	require.Equal(t, "Łódź Dostawca Sp. z o.o.", fieldAt(t, d.Describe(6), 4, 1).Value)
}

func TestDescribeUnknownAndExtra(t *testing.T) {
	d := mustParse(t, []byte("UNB+UNOC:3+S+R+250312:1030+X'UNH+1+ORDERS:D:96A:UN'BGM+220+E-1+9+AB+EXTRA:MORE'DTM+137:20250312:102'"+
		"NAD+QQ+1::9'XYZ+A:B'UNS+S'UNT+7+1'UNZ+1+X'"))
	bgm := d.Describe(2)
	extra := fieldAt(t, bgm, 5, 1)
	require.Equal(t, "", extra.Ref, "BGM has four elements in D.96A")
	require.Equal(t, "EXTRA", extra.Value)
	require.Equal(t, "050", extra.Position)
	require.Equal(t, "MORE", fieldAt(t, bgm, 5, 2).Value)

	nad := d.Describe(4)
	qq := fieldAt(t, nad, 1, 0)
	require.True(t, qq.CodeList)
	require.Equal(t, "", qq.CodeName, "QQ is not a 3035 code")

	xyz := d.Describe(5)
	require.Equal(t, "", xyz.Name)
	require.Equal(t, "", xyz.Directory)
	require.Equal(t, "", xyz.Path, "unexpected: no path")
	require.Equal(t, []string{"A", "B"}, []string{fieldAt(t, xyz, 1, 1).Value, fieldAt(t, xyz, 1, 2).Value})
	require.Equal(t, 1, len(structureIssues(d)))
}

func TestDescribeRepetitionsAndRelease(t *testing.T) {
	d := mustParse(t, fixture(t, "repetition_sv4.edi"))
	ftx := d.Describe(findSeg(t, d, "FTX", 0).Index())
	var reps []int
	for _, f := range ftx.Fields {
		if f.Element == 4 {
			reps = append(reps, f.Repetition)
		}
	}
	require.Equal(t, "D.24A", ftx.Directory, "D.01B is named from D.24A")
	require.Contains(t, reps, 1, "the syntax 4 repetition separator splits element 4")

	d = mustParse(t, fixture(t, "release_chains.edi"))
	f := fieldAt(t, d.Describe(findSeg(t, d, "FTX", 0).Index()), 4, 1)
	require.Equal(t, "It?'s here", f.Raw)
	require.Equal(t, "It's here", f.Value)
}

func TestDescribeDisplaySanitises(t *testing.T) {
	d := mustParse(t, []byte("UNB+UNOY:4+S+R+20250312:1030+X'UNH+1+ORDERS:D:96A:UN'FTX+AAI+++\x1b]0;x\x07\u202e'UNT+3+1'UNZ+1+X'"))
	f := fieldAt(t, d.Describe(2), 4, 1)
	require.Equal(t, "\x1b]0;x\x07\u202e", f.Value)
	require.Equal(t, "^[]0;x^G<U+202E>", f.Display())
}

func TestDescribeDoesNotAllocateMuchPerRow(t *testing.T) {
	d := mustParse(t, fixture(t, "orders_d96a.edi"))
	allocs := testing.AllocsPerRun(50, func() { _ = d.Describe(6) })
	require.LessOrEqual(t, allocs, 16.0, "NAD with 8 values: the fields slice, the Latin-1 texts, the component refs")
}
