package edi

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestCharsetFor(t *testing.T) {
	tests := map[string]Charset{
		"UNOA": CharsetASCII, "UNOB": CharsetASCII, "IATA": CharsetASCII, "IATB": CharsetASCII,
		"UNOC": CharsetLatin1, "UNOD": CharsetLatin2, "UNOE": CharsetCyrillic, "UNOF": CharsetGreek,
		"UNOW": CharsetUTF8, "UNOY": CharsetUTF8,
	}
	for id, want := range tests {
		got, ok := CharsetFor(id)
		require.True(t, ok, id)
		require.Equal(t, want, got, id)
	}
	got, ok := CharsetFor("UNOZ")
	require.False(t, ok)
	require.Equal(t, CharsetUnknown, got)
}

// TestCharsetTables spot-checks the tables against the published ISO 8859
// code charts.
func TestCharsetTables(t *testing.T) {
	tests := []struct {
		cs   Charset
		in   []byte
		want string
	}{
		{CharsetLatin1, []byte{0xC4, 0xD6, 0xDC, 0xDF, 0xE9, 0xFF}, "ÄÖÜßéÿ"},
		{CharsetLatin2, []byte{0xA1, 0xB1, 0xA3, 0xB3, 0xC8, 0xE8, 0xD8, 0xF8, 0xA9, 0xB9, 0xAE, 0xBE, 0xD5, 0xFB}, "ĄąŁłČčŘřŠšŽžŐű"},
		{CharsetCyrillic, []byte{0xB0, 0xCF, 0xD0, 0xEF, 0xA1, 0xF1, 0xF0}, "АЯаяЁё№"},
		{CharsetGreek, []byte{0xC1, 0xD9, 0xE1, 0xF9, 0xA4, 0xB6}, "ΑΩαω€Ά"},
		{CharsetUTF8, []byte("Łódź \xff"), "Łódź \uFFFD"},
		{CharsetASCII, []byte("A\xc4B"), "A\uFFFDB"},
		{CharsetUnknown, []byte("Łódź"), "Łódź"},
		{CharsetUnknown, []byte("K\xf6ln"), "Köln"},
		{CharsetLatin2, []byte("plain"), "plain"},
		{CharsetLatin1, []byte{0x85}, "\u0085"},
	}
	for _, tt := range tests {
		got := tt.cs.Decode(tt.in)
		require.Equal(t, tt.want, got, tt.cs.String())
		require.True(t, utf8.ValidString(got))
	}
	// Every byte decodes to valid UTF-8 in every charset.
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for cs := CharsetUnknown; cs <= CharsetUTF8; cs++ {
		require.True(t, utf8.ValidString(cs.Decode(all)), cs.String())
	}
	require.Equal(t, "ISO-8859-2", CharsetLatin2.String())
	require.Equal(t, "unknown", Charset(99).String())
}

func TestSWARHelpers(t *testing.T) {
	for c := 0; c < 256; c++ {
		for _, n := range []byte{0x20, 0x5A, 0x7E} {
			x := ones*uint64(n)&^0xFF | uint64(c) // other bytes equal n: neither less nor more
			require.Equal(t, byte(c) < n, hasLess(x, n), "hasLess %#x %#x", c, n)
			require.Equal(t, byte(c) > n, hasMore(x, n), "hasMore %#x %#x", c, n)
		}
		x := uint64(c)<<56 | uint64('A')
		require.Equal(t, byte(c) == '#', hasByte(x, '#'))
	}
}

// TestClassifyMatchesByteTable: the 8-byte fast path never skips a byte
// the per-byte table would flag.
func TestClassifyMatchesByteTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, id := range []string{"UNOA", "UNOB", "UNOC", "UNOY"} {
		cs, _ := CharsetFor(id)
		dia := newDialect(DefaultSeparators(3), cs, 3)
		table := classTable(id, cs, &dia)
		for n := 0; n < 2000; n++ {
			data := make([]byte, rng.IntN(40))
			for i := range data {
				if rng.IntN(4) == 0 {
					data[i] = byte(rng.IntN(256))
				} else {
					data[i] = "AZ09 +:'?.abc#$@"[rng.IntN(16)]
				}
			}
			got := classify(data, 0, table, id == "UNOA")
			var want [numClasses]tally
			for j, c := range data {
				if k := table[c]; k != chOK {
					want[k].add(-1, j, c)
				}
			}
			require.Equal(t, want, got, "%s %q", id, data)
		}
	}
}

// TestSyntax4Levels: UNOG-UNOL and UNOX are syntax 4 levels, decoded as
// their ISO 8859 part; under syntax 3 they get one warning that says so,
// and an identifier no version lists is still unknown.
func TestSyntax4Levels(t *testing.T) {
	for _, tt := range []struct {
		id, want string
		in       []byte
		cs       Charset
	}{
		{"UNOG", "ĦĝŻ", []byte{0xA1, 0xF8, 0xAF}, CharsetLatin3},
		{"UNOH", "ĀĒą", []byte{0xC0, 0xAA, 0xB1}, CharsetLatin4},
		{"UNOI", "ابي", []byte{0xC7, 0xC8, 0xEA}, CharsetArabic},
		{"UNOJ", "אבת", []byte{0xE0, 0xE1, 0xFA}, CharsetHebrew},
		{"UNOK", "ĞŞİ", []byte{0xD0, 0xDE, 0xDD}, CharsetLatin5},
		{"UNOL", "€ŠŒ", []byte{0xA4, 0xA6, 0xBC}, CharsetLatin9},
	} {
		cs, ok := CharsetFor(tt.id)
		require.True(t, ok, tt.id)
		require.Equal(t, tt.cs, cs)
		require.Equal(t, tt.want, cs.Decode(tt.in), tt.id)
		require.Equal(t, 4, SyntaxIDVersion(tt.id))
		d := mustParse(t, []byte("UNB+"+tt.id+":4+A:14+B:14+20250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+"+string(tt.in)+"+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+R'"))
		require.Empty(t, d.Issues(), tt.id)
		require.Equal(t, cs.String(), d.Interchanges[0].Charset.String())
		require.NotEqual(t, "unknown", d.Interchanges[0].Charset.String())
	}
	cs, ok := CharsetFor("UNOX")
	require.True(t, ok)
	require.Equal(t, "ISO-2022", cs.String())

	d := mustParse(t, []byte("UNB+UNOL:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+X+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+R'"))
	require.Len(t, d.Issues(), 1)
	require.Equal(t, CodeSyntaxIDVersion, d.Issues()[0].Code)
	require.Contains(t, d.Issues()[0].Message, "UNOL belongs to syntax version 4, but UNB declares version 3")

	d = mustParse(t, []byte("UNB+UNOZ:4+A:14+B:14+20250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+X+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+R'"))
	require.Len(t, d.Issues(), 1)
	require.Equal(t, CodeSyntaxUnknown, d.Issues()[0].Code)
	require.Contains(t, d.Issues()[0].Message, "not in the list of syntax version 4")
}

// TestUTF8InUNOAShownAsUTF8: UTF-8 bytes in a 7-bit interchange are
// shown as the UTF-8 the sender meant (and the issue says UNOY).
func TestUTF8InUNOAShownAsUTF8(t *testing.T) {
	d := mustParse(t, []byte("UNB+UNOA:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+B\xc3\x9cTTNER+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+R'"))
	require.Equal(t, "BÜTTNER", findSeg(t, d, "BGM", 0).Text(2, 1))
	require.Equal(t, CodeEightBitInSevenBit, d.Issues()[0].Code)
	require.Contains(t, d.Issues()[0].Message, "the sender probably meant UNOY")
}
