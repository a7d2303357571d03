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
	got, ok := CharsetFor("UNOX")
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
