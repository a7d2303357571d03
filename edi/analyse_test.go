package edi

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// analyseBoth parses data with analyse on two goroutines (the character
// check next to the message layer) and on one, and requires the same
// Document.
func analyseBoth(t *testing.T, data []byte) []Issue {
	t.Helper()
	defer func(n int) { parallelMin = n }(parallelMin)
	parallelMin = 1
	par := parseWith(t, data, (*scanner).run)
	parallelMin = int(^uint(0) >> 1)
	seq := parseWith(t, data, (*scanner).run)
	requireSameDoc(t, seq, par, string(preview(data, 200)))
	return par.Issues()
}

// TestAnalyseParallel: analyse on two goroutines gives the single pass's
// issues in the same order, with shape problems counted per interchange
// (line breaks, releases, trailing separators) anywhere in the input, on
// the fixtures, the corpus and random inputs.
func TestAnalyseParallel(t *testing.T) {
	head := "UNA:+.? '\nUNB+UNOC:4+S+R+250101:1200+X'\nUNH+1+ORDERS:D:96A:UN'\n"
	clean := strings.Repeat("FTX+AAA+++text'\n", 20)
	tail := "UNT+42+1'\nUNZ+1+X'\n"
	cases := map[string]string{
		"problems in both halves":              head + "FTX+A?B'\nQTY+1:+'\nFTX+A\n+B'\n" + clean + clean + "FTX+C?D'\nQTY+2:+'\nFTX+C\r\n+D'\n''\n" + tail,
		"problems only after the middle":       head + clean + clean + "FTX+C?D'\nQTY+2:+'\nFTX+C\n+D'\nlin+1'\n" + tail,
		"three interchanges across the middle": head + clean + "FTX+A?B'\n" + tail + head + clean + "QTY+2:+'" + tail + head + "FTX+A\n+B'" + tail,
		"unterminated at the end":              head + clean + clean + "FTX+?",
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			issues := analyseBoth(t, []byte(data))
			require.NotEmpty(t, issues)
		})
	}
	codes := codes(&Document{issueLog: issueLog{issues: analyseBoth(t, []byte(cases["problems in both halves"]))}})
	require.Contains(t, codes, CodeReleaseInvalid)
	require.Contains(t, codes, CodeTrailingSeparator)
	require.Contains(t, codes, CodeLineBreakInSegment)
	require.Contains(t, codes, CodeSegmentEmpty)

	for _, name := range testFiles(t, filepath.Join(fixtureDir, "*", "*.edi"), filepath.Join(fixtureDir, "*.edi")) {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		analyseBoth(t, data)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		analyseBoth(t, randomEDI(rng, 80))
	}
}

// TestElemWorkAnyTaker: the element checks cut into chunks give the
// issues of one pass over all segments, whatever the number of chunks
// and whichever goroutine takes which chunk in which order, also when a
// code has more issues than are listed (the counts of the omitted and
// the first of them carried across chunks).
func TestElemWorkAnyTaker(t *testing.T) {
	var b strings.Builder
	b.WriteString("UNA:+.? 'UNB+UNOC:3+S:14+R:14+250101:1200+X'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'")
	for i := range 2*maxIssuesPerCode + 700 {
		if i%3 == 0 {
			b.WriteString("QTY+21:1x2:PCE'") // not numeric
		} else {
			b.WriteString("QTY+21:12:PCE'")
		}
		if i%5 == 0 {
			b.WriteString("FTX+AAI+++" + strings.Repeat("A", 600) + "'") // longer than an..512
		}
	}
	b.WriteString("UNS+S'UNT+3+1'UNZ+1+X'")
	d, err := Parse([]byte(b.String()))
	require.NoError(t, err)
	finished := func(logs ...*issueLog) []Issue {
		var l issueLog
		for _, x := range logs {
			if x != nil {
				l.merge(x)
			}
		}
		l.finish()
		return l.issues
	}
	want := finished(d.elementIssues(0, len(d.segs)))
	require.Greater(t, len(want), maxIssuesPerCode, "the input has more issues of one code than are listed")
	var omitted int
	for _, is := range want {
		omitted += is.Omitted
	}
	require.Positive(t, omitted)
	for _, chunks := range []int{1, 2, 3, 7, elemChunks, 1000} {
		for _, order := range []string{"front", "back", "both at once"} {
			w := newElemWork(len(d.segs), chunks)
			switch order {
			case "front":
				w.run(d, false)
			case "back":
				w.run(d, true)
			default:
				done := make(chan struct{})
				go func() { defer close(done); w.run(d, true) }()
				w.run(d, false)
				<-done
			}
			for c, l := range w.logs {
				require.NotNil(t, l, "chunk %d of %d not checked (%s)", c, chunks, order)
			}
			require.Equal(t, want, finished(w.logs...), "%d chunks, %s", chunks, order)
		}
	}
}
