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
