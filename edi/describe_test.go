package edi

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/edi/dict"
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

// describeScan describes segment i of data and returns the bytes the part
// scanners looked at (see scanCount).
func describeScan(t *testing.T, d *Document, i int) (SegmentInfo, int64) {
	t.Helper()
	scanCount.bytes.Store(0)
	scanCount.on.Store(true)
	defer scanCount.on.Store(false)
	info := d.Describe(i)
	return info, scanCount.bytes.Load()
}

// TestDescribeLinear: describing a segment looks at each of its bytes a
// bounded number of times, however many elements, repetitions or
// components it has (it used to rescan from the segment start for every
// element: 20 s for one FTX with 80,000 separators).
func TestDescribeLinear(t *testing.T) {
	const n = 20000
	for name, body := range map[string]string{
		"empty elements":  strings.Repeat("+", n),
		"values":          strings.Repeat("+a", n),
		"components":      "+" + strings.Repeat("a:", n),
		"repetitions":     "+" + strings.Repeat("a*", n),
		"escaped":         strings.Repeat("+?+a", n),
		"escaped comps":   "+" + strings.Repeat("?:a:", n),
		"reps with comps": "+" + strings.Repeat("a:b*", n),
	} {
		t.Run(name, func(t *testing.T) {
			d := mustParse(t, []byte("UNA:+.?*'UNB+UNOC:4+S+R+20250312:1030+X'UNH+1+ORDERS:D:96A:UN'FTX"+body+"'UNT+3+1'UNZ+1+X'"))
			seg := d.Segment(3)
			require.Equal(t, "FTX", seg.Tag())
			_, bytes := describeScan(t, d, 3)
			require.LessOrEqual(t, bytes, int64(4*len(seg.Raw())), "bytes scanned for a %d-byte segment", len(seg.Raw()))
		})
	}
	// The counter sees the old walk's rescans: quadratic.
	d := mustParse(t, []byte("UNH+1+ORDERS:D:96A:UN'FTX"+strings.Repeat("+a", 2000)+"'UNT+3+1'"))
	scanCount.bytes.Store(0)
	scanCount.on.Store(true)
	describeNaive(d, 1)
	scanCount.on.Store(false)
	require.Greater(t, scanCount.bytes.Load(), int64(2000*2000))
}

// TestDescribeFieldsBounded: a segment with more values than maxFields
// lists maxFields and counts the rest.
func TestDescribeFieldsBounded(t *testing.T) {
	d := mustParse(t, []byte("UNH+1+ORDERS:D:96A:UN'FTX"+strings.Repeat("+a:b", 700)+"'UNT+3+1'"))
	info := d.Describe(1)
	require.Len(t, info.Fields, 1000)
	require.Equal(t, 400, info.More)
	require.Equal(t, Field{Element: 500, Component: 2, Position: "5000", Raw: "b", Value: "b"}, info.Fields[999])
}

// describeNaive is Describe's field list the way it used to be built, by
// element, repetition and component index: the reference the one-pass
// walk must match.
func describeNaive(d *Document, i int) []Field {
	s := d.Segment(i)
	if s.IsUNA() { // a bad tag's elements are described too
		return nil
	}
	r := d.resolverFor(i)
	seg, _, known := r.Segment(s.Tag())
	fd := fieldDescriber{r: r, s: s}
	for e := 1; e <= s.ElementCount(); e++ {
		var def *dict.SegmentElement
		if known && e <= len(seg.Elements) {
			def = &seg.Elements[e-1]
		}
		el := s.Element(e)
		for k := 0; k < el.RepetitionCount(); k++ {
			rep := el.Repetition(k)
			n := rep.ComponentCount()
			for c := 1; c <= n; c++ {
				v := rep.Component(c)
				switch {
				case def != nil && def.Composite():
					var comp *dict.Component
					if c <= len(def.Components) {
						comp = &def.Components[c-1]
					}
					fd.value(e, c, k, v, def, comp, true)
				case c > 1 || def == nil:
					fd.value(e, c, k, v, nil, nil, n > 1)
				default:
					fd.value(e, 0, k, v, def, nil, false)
				}
			}
		}
	}
	return fd.out
}

// TestDescribeMatchesNaive: the one-pass walk gives the fields the
// element-by-element reading gives, on the fixtures, the corpus and
// random inputs (separators, escapes, repetitions, line breaks).
func TestDescribeMatchesNaive(t *testing.T) {
	var inputs [][]byte
	for _, name := range testFiles(t, filepath.Join(fixtureDir, "*", "*.edi"), filepath.Join(fixtureDir, "*.edi")) {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		if len(data) < 64<<10 {
			inputs = append(inputs, data)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		inputs = append(inputs, randomEDI(rng, 80))
	}
	checked := 0
	for _, data := range inputs {
		d := mustParse(t, data)
		for i := 0; i < d.Len(); i++ {
			want := describeNaive(d, i)
			got := d.Describe(i).Fields
			if len(want) == 0 {
				require.Empty(t, got, "segment %d of %q", i, data)
				continue
			}
			require.Equal(t, want, got, "segment %d of %q", i, data)
			checked++
		}
	}
	require.Greater(t, checked, 1000)
}
