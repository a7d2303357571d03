package edi

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkSegmentsEvery is the segment-shape check over every segment of the
// interchange, without the scanner's candidate list: the reference that
// checkSegments must match.
func (d *Document) checkSegmentsEvery(ic *Interchange) {
	all := make([]uint32, 0, ic.Last-ic.First+1)
	for i := ic.First; i <= ic.Last; i++ {
		all = append(all, uint32(i))
	}
	cands := d.shapeCands
	d.shapeCands = all
	defer func() { d.shapeCands = cands }()
	d.checkSegments(ic)
}

// requireSameShapes: the shape issues from the candidates are those of
// the check over every segment.
func requireSameShapes(t testing.TB, d *Document) {
	t.Helper()
	view := *d
	for k := range d.Interchanges {
		view.issues = nil
		view.checkSegments(&d.Interchanges[k])
		got := view.issues
		view.issues = nil
		view.checkSegmentsEvery(&d.Interchanges[k])
		require.Equal(t, view.issues, got, "interchange %d of %q", k, preview(d.data, 300))
	}
}

// TestShapeCandidates: on the fixtures, the corpus, crafted edge cases and
// random inputs, checking only the scanner's candidates finds exactly what
// checking every segment finds; and a clean file has next to none.
func TestShapeCandidates(t *testing.T) {
	var inputs [][]byte
	for _, name := range testFiles(t, filepath.Join(fixtureDir, "*", "*.edi"), filepath.Join(fixtureDir, "*.edi")) {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		inputs = append(inputs, data)
	}
	for _, s := range []string{
		"UNB+UNOC:4+S+R+250101:1200+X*'UNH+1+ORDERS:D:96A:UN'FTX+A*'FTX+A+'FTX+A:'FTX+A?*'FTX+A??*'UNT+6+1'UNZ+1+X'",
		"UNA:+.? *'UNB+UNOC:3+S+R+1+X*'FTX+A*'FTX+A?\n+B'FTX+?\nA'FTX+A\n:'UNZ+0+X'",
		"UNA:+.? *'UNB+UNOC:4+S+R+1+X'FTX+A*'FTX+?*'FTX+?A??B'''UNZ+0+X'",
		"UNB\x1dUNOB\x1f4\x1dS\x1dR\x1d1\x1dX\x1e\x1cFTX\x1dA\x1f\x1cFTX\x1dA\x1e\x1cUNZ\x1d0\x1dX\x1c",
		"FTX+A+'FTX+A ' FTX+?",
		"UNA:+.? 'UNB+UNOC:3+S+R+1+X+'FTX+A+B?",
	} {
		inputs = append(inputs, []byte(s))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 400 {
		inputs = append(inputs, randomEDI(rng, 80))
	}
	for _, data := range inputs {
		d, err := indexWith(data, (*scanner).run)
		require.NoError(t, err)
		requireSameShapes(t, d)
	}

	d, err := index(generateOrders(2*splitMin, "\r\n"))
	require.NoError(t, err)
	require.Less(t, len(d.shapeCands), 4, "a clean file leaves the shape checks next to nothing: %v", d.shapeCands)
	requireSameShapes(t, d)
}

// TestShapeCandidatesFindProblems: the candidates cover each kind of
// shape problem, so the issues still appear.
func TestShapeCandidatesFindProblems(t *testing.T) {
	data := "UNB+UNOC:3+S+R+250101:1200+X'\nUNH+1+ORDERS:D:96A:UN'\nFTX+A?B'\nQTY+1:+'\nFTX+A\n+B'\n''\nlin+1'\nUNT+7+1'\nUNZ+1+X'\nFTX+?"
	d := mustParse(t, []byte(data))
	got := codes(d)
	for _, c := range []Code{CodeReleaseInvalid, CodeTrailingSeparator, CodeLineBreakInSegment, CodeSegmentEmpty, CodeTagInvalid, CodeDanglingRelease} {
		require.Contains(t, got, c, strings.Join(func() (s []string) {
			for _, is := range d.Issues() {
				s = append(s, string(is.Code))
			}
			return s
		}(), ","))
	}
}
