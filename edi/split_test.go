package edi

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// scanSplit returns a scan for indexWith that splits with the given prefix
// and mid, and records in *joined whether the second half was used.
func scanSplit(prefix, mid int, joined *bool) func(*scanner) error {
	return func(s *scanner) error {
		err := s.indexSplit(prefix, mid)
		*joined = s.joined
		return err
	}
}

// parseWith is Parse with the scan given.
func parseWith(t testing.TB, data []byte, scan func(*scanner) error) *Document {
	t.Helper()
	d, err := indexWith(data, scan)
	require.NoError(t, err)
	require.NoError(t, d.analyse())
	d.finish()
	return d
}

// requireSameDoc compares everything index and analyse produce.
func requireSameDoc(t testing.TB, want, got *Document, msg string) {
	t.Helper()
	require.Equal(t, len(want.segs), len(got.segs), msg)
	for i := range want.segs {
		if want.segs[i] != got.segs[i] {
			require.Failf(t, "records differ", "record %d: want %+v, got %+v; %v", i, want.segs[i], got.segs[i], fmt.Sprint(msg))
		}
	}
	require.Equal(t, want.dialects, got.dialects, msg)
	require.Equal(t, want.shapeCands, got.shapeCands, msg)
	require.Equal(t, want.issues, got.issues, msg)
	require.Equal(t, want.over, got.over, msg)
	require.Equal(t, want.envelopes, got.envelopes, msg)
	require.Equal(t, want.Interchanges, got.Interchanges, msg)
	require.Equal(t, want.Groups, got.Groups, msg)
	require.Equal(t, want.Messages, got.Messages, msg)
}

// checkSplits indexes data in one pass and split at every mid in mids
// after each prefix, and requires identical Documents: records, dialects,
// issues and structure, everything analyse reads (TestIndexSplitCases
// compares whole parses too). It returns how many splits joined the
// second half's scan.
func checkSplits(t testing.TB, data []byte, prefixes, mids []int) (joins int) {
	t.Helper()
	want, err := indexWith(data, (*scanner).run)
	require.NoError(t, err)
	for _, p := range prefixes {
		for _, m := range mids {
			var joined bool
			got, err := indexWith(data, scanSplit(p, m, &joined))
			require.NoError(t, err)
			requireSameDoc(t, want, got, fmt.Sprintf("prefix %d, mid %d, input %q", p, m, preview(data, 200)))
			if joined {
				joins++
			}
		}
	}
	return joins
}

// spread returns every position of data when it is short, else n
// positions spread over it plus the positions around a few terminators.
func spread(data []byte, n int) []int {
	if len(data) <= 2*n {
		out := make([]int, len(data)+1)
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	for k := 0; k <= n; k++ {
		p := k * len(data) / n
		out = append(out, p)
		if j := bytes.IndexByte(data[p:], '\''); j >= 0 {
			out = append(out, p+j-1, p+j, p+j+1)
		}
	}
	return out
}

// TestIndexSplitFiles: every fixture and corpus file gives the same
// Document split anywhere as in one pass.
func TestIndexSplitFiles(t *testing.T) {
	files := testFiles(t, filepath.Join(fixtureDir, "*.edi"), filepath.Join(fixtureDir, "errors", "*.edi"),
		filepath.Join(fixtureDir, "structure", "*.edi"))
	require.NotEmpty(t, files, "the fixtures are in the repository")
	joins := 0
	for _, name := range files {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		if len(data) > 256<<10 { // the 2 MiB corpus file: a few splits are enough
			joins += checkSplits(t, data, []int{splitPrefix}, spread(data, 2))
			continue
		}
		joins += checkSplits(t, data, []int{3, 40, splitPrefix}, spread(data, 40))
	}
	require.Positive(t, joins, "some splits must take the two-halves path")
}

// TestIndexSplitCases: inputs built to put the split where the guess is
// wrong or the halves' issues need renumbering; all give the one-pass
// result, and the ones that can join do.
func TestIndexSplitCases(t *testing.T) {
	head := "UNA:+.? 'UNB+UNOC:3+S+R+250101:1200+X'UNH+1+ORDERS:D:96A:UN'"
	body := strings.Repeat("FTX+AAA+++text'", 20)
	tail := "UNT+43+1'UNZ+1+X'"
	for _, tc := range []struct {
		name string
		data string
		join bool // a join must happen at the middle
	}{
		{"plain", head + body + tail, true},
		{"escaped terminators around the middle", head + strings.Repeat("FTX+AAA+a?'b?'c'", 30) + tail, true},
		{"only escaped terminators after the middle", head + body + strings.Repeat("FTX+a?'?'?'?'?'?'?'?'?'?'?'", 30) + tail, false},
		{"released release before terminator", head + strings.Repeat("FTX+AAA+a??'FTX+b???'c'", 20) + tail, true},
		{"CRLF and hard wraps", head + strings.Repeat("FTX+AAA\r\n+text'\r\n", 30) + tail, true},
		{"second interchange, same dialect", head + body + tail + head + body + tail, true},
		{"second interchange, other dialect", head + body + tail + "UNA*#.! ~UNB#UNOC*3#S#R#250101*1200#Y~" + strings.Repeat("FTX#A!~B~", 40) + "UNZ#0#Y~", false},
		{"another dialect in the first half, back before the split, a third after", head + tail +
			"UNA*#.! ~UNB#UNOC*3#S#R#250101*1200#Y~UNZ#0#Y~" + head + body + body + tail +
			"UNA:+.! 'UNB+UNOC:3+S+R+250101:1200+Z'UNZ+0+Z'", false},
		{"second interchange, syntax 4", head + body + tail + strings.Replace(head, "UNOC:3", "UNOC:4", 1) + body + tail, false},
		{"trailing padding", head + body + tail + strings.Repeat(" ", 100), true},
		{"junk after UNZ", head + tail + strings.Repeat("junk junk ", 30) + head + body + tail, true},
		{"data after UNZ", head + body + tail + body, true},
		{"cut off UNA at the end", head + body + tail + "UNA:+", true},
		{"UNA without UNB after the UNZ", head + tail + "UNA:+.? '" + body + body, false},
		{"UNOB control characters", "UNB\x1dUNOB\x1f3\x1dS\x1dR\x1d250101\x1f1200\x1dX\x1c" + strings.Repeat("FTX\x1dA?'\x1dB\x1c\n", 40) + "UNZ\x1d0\x1dX\x1c", true},
		{"bare messages", strings.Repeat("UNH+1+ORDERS:D:96A:UN'BGM+220+1'UNT+3+1'", 15), true},
		{"no terminator", "UNB+UNOC:3+S+R" + strings.Repeat("+x", 300), false},
		{"byte order mark", "\xef\xbb\xbf" + head + body + tail, true},
		{"indented segments", head + strings.Repeat("\r\n    FTX+AAA+++text'\n\t \t", 30) + tail, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.data)
			joins := checkSplits(t, data, []int{9, 40}, spread(data, 80))
			var joined bool
			got := parseWith(t, data, scanSplit(40, -1, &joined))
			requireSameDoc(t, parseWith(t, data, (*scanner).run), got, "parsed")
			if tc.join {
				require.True(t, joined, "the split at the middle joins")
				require.Positive(t, joins)
			}
		})
	}
}

// TestIndexSplitRenumbersIssues: issues the second half reports about its
// records name the segment in the whole Document.
func TestIndexSplitRenumbersIssues(t *testing.T) {
	data := []byte("UNB+UNOC:3+S+R+250101:1200+X'" + strings.Repeat("UNH+1+ORDERS:D:96A:UN'UNT+2+1'", 30) + "UNZ+30+X'UNA:+")
	var joined bool
	d := parseWith(t, data, scanSplit(40, -1, &joined))
	require.True(t, joined)
	is := d.Issues()
	require.NotEmpty(t, is)
	found := false
	for _, i := range is {
		if i.Code == CodeUNAInvalid {
			require.Equal(t, d.Len()-1, i.Segment)
			require.Equal(t, "UNA", d.Segment(i.Segment).Tag())
			found = true
		}
	}
	require.True(t, found, "%v", is)
}

// randomTokens are the pieces randomEDI strings together: separators of
// several dialects, escapes, line breaks, service segments, junk, padding.
var randomTokens = []string{
	"UNA:+.? '", "UNA*#.! ~", "UNA:+.? *'", "UNB+UNOC:3+S+R+250101:1200+R1'", "UNB+UNOC:4+S+R+250101:1200+R2'",
	"UNB+UNOA:3+S+R'", "UNH+1+ORDERS:D:96A:UN:EAN008'", "UNH+2+APERAK:D:96A:UN'", "BGM+220+1+9'", "LIN+1++4000:EN'",
	"FTX+A+B?'C'", "FTX+??'", "IMD+F++:::a?+b'", "FTX+?A'", "QTY+21:5+'", "?", "'", "+", ":", "*", "~", "#", "!", "\r\n", "\n", "\r",
	"UNT+3+1'", "UNZ+1+R1'", "UNG+ORDERS+S+R+250101:1200+1+UN+D:96A'", "UNE+1+1'", "junk ", "   ", "\x00", "\x1a",
	"UNB\x1dUNOB\x1f3\x1dS\x1dR\x1c", "LIN\x1d1\x1c", "UNZ\x1d1\x1dR\x1c", "\xef\xbb\xbf", "abc", "UN", "UNA", "UNH",
	"FTX#A!~B~", "UNB#UNOC*3#S#R~", "lin+1'", "\xfc\xdf",
}

// randomEDI returns up to n random tokens strung together.
func randomEDI(rng *rand.Rand, n int) []byte {
	var b strings.Builder
	for range 1 + rng.IntN(n) {
		b.WriteString(randomTokens[rng.IntN(len(randomTokens))])
	}
	return []byte(b.String())
}

// TestIndexSplitRandom: random mixtures of separators, escapes, line
// breaks, service segments, junk and padding, split everywhere.
func TestIndexSplitRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	joins := 0
	for range 150 {
		data := randomEDI(rng, 60)
		joins += checkSplits(t, data, []int{9, 1 + rng.IntN(len(data)+1)}, spread(data, 30))
	}
	require.Positive(t, joins)
}

// TestIndexSplitLarge: index takes the split path on the benchmark
// interchange and on a large many-interchange file, with the records
// joined in place and sized exactly.
func TestIndexSplitLarge(t *testing.T) {
	one := generateOrders(2*splitMin, "\r\n")
	var many []byte // 60 interchanges, each with its own control reference
	for i := 0; i < 60; i++ {
		many = append(many, bytes.ReplaceAll(generateOrders(40<<10, "\n"), []byte("BENCH000001"), fmt.Appendf(nil, "BENCH%06d", i))...)
	}
	for _, data := range [][]byte{one, many} {
		want, err := indexWith(data, (*scanner).run)
		require.NoError(t, err)
		var joined bool
		got, err := indexWith(data, scanSplit(splitPrefix, -1, &joined))
		require.NoError(t, err)
		require.True(t, joined)
		requireSameDoc(t, want, got, "large")
		require.LessOrEqual(t, got.IndexBytes(), 16*(got.Len()+2), "the joined index is sized exactly")
		d, err := Parse(data)
		require.NoError(t, err)
		require.Empty(t, d.Issues())
	}
}

// FuzzIndexSplit: for any input, prefix and split position the two-halves
// scan gives the one-pass Document.
func FuzzIndexSplit(f *testing.F) {
	addSeeds(f, uint16(9), uint16(0))
	addSeeds(f, uint16(0), uint16(301))
	f.Fuzz(func(t *testing.T, data []byte, prefix, mid uint16) {
		want := parseWith(t, data, (*scanner).run)
		var joined bool
		got := parseWith(t, data, scanSplit(int(prefix)%(len(data)+1), int(mid)%(len(data)+1), &joined))
		requireSameDoc(t, want, got, fmt.Sprintf("prefix %d, mid %d", prefix, mid))
	})
}
