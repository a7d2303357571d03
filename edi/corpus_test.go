package edi

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/internal/testshared"
	"github.com/stretchr/testify/require"
)

// corpusDir holds real interchanges from public projects (see its
// MANIFEST.tsv). It lives outside the repository: tests that need it skip
// without it, or fail with B2BX_REQUIRE_SHARED=1 (see testshared).
var corpusDir = testshared.Dir("corpus")

func corpusFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, name))
	if os.IsNotExist(err) {
		testshared.Missing(t, "the corpus", err)
	}
	require.NoError(t, err)
	return data
}

// corpusGlob returns the corpus files, or none when the corpus is absent
// (a failure with B2BX_REQUIRE_SHARED=1): for tests that also run on the
// repository's fixtures.
func corpusGlob(t testing.TB) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.edi"))
	if len(files) == 0 && testshared.Required() {
		testshared.Missing(t, "the corpus", fmt.Errorf("no *.edi in %s", corpusDir))
	}
	return files
}

// testFiles returns the files matching the fixture patterns followed by
// the corpus files (see corpusGlob).
func testFiles(t testing.TB, patterns ...string) []string {
	t.Helper()
	var files []string
	for _, p := range patterns {
		m, _ := filepath.Glob(p)
		files = append(files, m...)
	}
	return append(files, corpusGlob(t)...)
}

func codes(d *Document) []Code {
	var c []Code
	for _, is := range d.Issues() {
		c = append(c, is.Code)
	}
	return c
}

// TestCorpus asserts, per real-world file, the facts a support engineer
// would expect b2bx to find in the envelopes; TestCorpusStructure covers
// the message structures and summaries.
func TestCorpus(t *testing.T) {
	tests := []struct {
		file  string
		codes []Code
		check func(t *testing.T, data []byte, d *Document)
	}{
		{"berryworks_ordrsp_d01b_unod_latin2.edi", nil, func(t *testing.T, _ []byte, d *Document) {
			ic := d.Interchanges[0]
			require.Equal(t, CharsetLatin2, ic.Charset)
			require.Equal(t, "ORDRSP", ic.Messages[0].Type)
			require.Equal(t, "01B", ic.Messages[0].Release)
			require.Equal(t, 253, ic.Messages[0].Segments())
			imd := findSeg(t, d, "IMD", 0)
			require.True(t, strings.HasPrefix(imd.Text(3, 4), "Lořem ípšum dołoř šít ámet"), imd.Text(3, 4))
		}},
		{"berryworks_tiny_unoe_cyrillic.edi", nil, func(t *testing.T, _ []byte, d *Document) {
			ic := d.Interchanges[0]
			require.Equal(t, "UNOE", ic.SyntaxID)
			require.Equal(t, 1, ic.SyntaxVersion)
			require.Equal(t, "t", ic.TestIndicator)
			require.Equal(t, "Рыба текст", findSeg(t, d, "NAD", 0).Text(4, 1))
			require.Equal(t, "INVOIC", ic.Messages[0].Type)
		}},
		{"bots_aperak_d96a.edi", nil, func(t *testing.T, _ []byte, d *Document) {
			require.Equal(t, "APERAK", d.Messages[0].Type)
			require.Equal(t, "T0000000015", findSeg(t, d, "RFF", 0).Text(1, 2))
		}},
		{"bots_garbage_preamble.edi", []Code{CodeJunk}, func(t *testing.T, data []byte, d *Document) {
			junk := d.Issues()[0]
			require.Equal(t, 0, junk.Offset)
			require.Contains(t, junk.Message, "132 bytes at offset 0")
			require.Equal(t, bytes.Index(data, []byte("UNB")), d.Segment(0).Offset())
			require.Equal(t, "T0000000004-1", d.Interchanges[0].ControlRef)
		}},
		// Its GLNs and GTINs 8712345678901 have a wrong GS1 check digit (6).
		{"bots_orders_d96a_multi_mixed_eol.edi", slices.Repeat([]Code{CodeCheckDigit}, 11), func(t *testing.T, _ []byte, d *Document) {
			require.Contains(t, d.Issues()[1].Message, `"8712345678901" is a GLN (agency 9, GS1) with a wrong check digit: it ends in 1, its GS1 check digit is 6 (8712345678906)`)
			ic := d.Interchanges[0]
			require.Equal(t, 2, ic.SyntaxVersion)
			require.Len(t, ic.Messages, 2)
			require.Equal(t, 2, ic.TrailerCount)
			require.Equal(t, "1-4500094289", findSeg(t, d, "BGM", 0).Text(2, 1))
		}},
		{"bots_orders_hard_wrapped_80col.edi", []Code{CodeLineBreakInSegment}, func(t *testing.T, _ []byte, d *Document) {
			require.Equal(t, "20050819", findSeg(t, d, "DTM", 0).Text(1, 2), "date wrapped across lines")
			require.Equal(t, "ORDT0000000015", findSeg(t, d, "BGM", 0).Text(2, 1))
			require.Equal(t, 9, d.Messages[0].Segments())
		}},
		{"bots_orders_many_interchanges.edi", nil, func(t *testing.T, _ []byte, d *Document) {
			require.Len(t, d.Interchanges, 24)
			for _, ic := range d.Interchanges {
				require.True(t, ic.HasUNZ)
				require.Len(t, ic.Messages, 1)
			}
		}},
		{"bots_two_interchanges.edi", nil, func(t *testing.T, _ []byte, d *Document) {
			require.Len(t, d.Interchanges, 2)
			require.Len(t, d.Interchanges[0].Messages, 2)
			require.Len(t, d.Interchanges[1].Messages, 1)
		}},
		{"edi4r_ung_groups_incl_empty.edi", []Code{CodeEmptyGroup, CodeMessageRefDuplicate}, func(t *testing.T, _ []byte, d *Document) {
			ic := d.Interchanges[0]
			require.Len(t, ic.Groups, 3)
			require.Empty(t, ic.Groups[0].Messages)
			require.Equal(t, "INVOIC", ic.Groups[2].Messages[0].Type)
			require.Equal(t, 3, ic.TrailerCount)
		}},
		// NAD+BY+4012345000008::9: the check digit is 9.
		{"edifactrs_orders_d96a_conforming.edi", []Code{CodeBareMessage, CodeCheckDigit}, func(t *testing.T, _ []byte, d *Document) {
			require.False(t, d.Interchanges[0].HasUNB)
			require.True(t, d.Interchanges[0].HasUNA)
			require.Equal(t, 7, d.Messages[0].Segments())
		}},
		{"edifactrs_orders_d96a_malformed.edi", []Code{CodeOutsideMessage, CodeBareMessage, CodeCheckDigit, CodeUNTCountMismatch}, func(t *testing.T, _ []byte, d *Document) {
			require.Equal(t, 1, d.Issues()[0].Segment, "BGM before UNH")
		}},
		{"jacobemcken_contrl_d3_readme.edi", []Code{CodeUNTRefMismatch, CodeUnterminated}, func(t *testing.T, _ []byte, d *Document) {
			require.Equal(t, "CONTRL", d.Messages[0].Type)
			uci := findSeg(t, d, "UCI", 0)
			require.Equal(t, "NORDEASPECIAL+TEST", uci.Text(3, 1))
			require.Equal(t, "ZZ", uci.Text(3, 2))
			require.Equal(t, "UNZ", d.Segment(d.Len()-1).Tag())
		}},
		{"phpedifact_orders_d01b_unoc_release_error.edi", []Code{CodeLooksUTF8, CodeReleaseInvalid}, func(t *testing.T, _ []byte, d *Document) {
			require.Contains(t, d.Issues()[1].Message, "before \"*\"")
			require.Contains(t, d.Issues()[1].Message, "4 time(s)")
		}},
		{"phpedifact_orders_d01b_unoc_release_ok.edi", []Code{CodeLooksUTF8}, func(t *testing.T, data []byte, d *Document) {
			require.Equal(t, 599, d.Messages[0].Segments())
			require.Equal(t, "2019265563", findSeg(t, d, "BGM", 0).Text(2, 1))
			for i := 0; i < d.Len(); i++ {
				if s := d.Segment(i); s.Tag() == "IMD" && bytes.Contains(s.Raw(), []byte("Sup 1?:10")) {
					require.Contains(t, s.Text(3, 5), "Sup 1:10 und So")
					return
				}
			}
			t.Fatal("IMD with released colon not found")
		}},
		{"phpedifact_release_chars_paores.edi", []Code{CodeUNTCountMismatch}, func(t *testing.T, _ []byte, d *Document) {
			var ift []string
			for i := 0; i < d.Len(); i++ {
				if s := d.Segment(i); s.Tag() == "IFT" {
					ift = append(ift, s.Text(2, 1)+"|"+s.Text(3, 1))
				}
			}
			require.Contains(t, ift, "NO MORE ' FLIGHTS 3|")
			require.Contains(t, ift, "NO MORE ? FLIGHTS 3|")
			require.Contains(t, ift, "NO MORE ?' FLIGHTS 3|")
			require.Contains(t, ift, "FIELD 1?|FIELD 2")
			require.Contains(t, ift, "FIELD 1?+FIELD 2|")
		}},
		{"pydifact_aperak_sv3_rejected.edi", []Code{CodeCharOutsideLevel, CodeUNTCountMismatch}, nil},
		{"pydifact_aperak_sv4.edi", []Code{CodeCharOutsideLevel, CodeUNTCountMismatch}, nil},
		{"pydifact_huge_2mb.edi", []Code{CodeUNZMissing, CodeUNTCountMismatch}, func(t *testing.T, _ []byte, d *Document) {
			require.Equal(t, 109621, d.Len())
			require.Equal(t, byte(','), d.Interchanges[0].Separators.Decimal)
		}},
		{"pydifact_orders_una_comma_sv4_no_unz.edi", []Code{CodeUNZMissing}, func(t *testing.T, _ []byte, d *Document) {
			ic := d.Interchanges[0]
			require.Equal(t, Party{ID: "12345678", Qualifier: "8"}, ic.Sender)
			require.Equal(t, 4, ic.SyntaxVersion)
			require.False(t, ic.Separators.HasRepetition, "UNA position 5 is a space")
			require.Contains(t, issuesWith(d, CodeUNZMissing)[0].Message, "expected UNZ+1+807")
		}},
		{"staedi_orders_ung_une.edi", []Code{CodeGroupMismatch, CodeUNTCountMismatch}, func(t *testing.T, _ []byte, d *Document) {
			require.Equal(t, "1", d.Interchanges[0].TestIndicator)
			require.Equal(t, "96B", d.Messages[0].Release)
		}},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			seen[tt.file] = true
			data := corpusFile(t, tt.file)
			d := mustParse(t, data)
			require.Equal(t, tt.codes, envelopeCodes(d), "issues: %v", d.Issues())
			require.True(t, bytes.Equal(data, reserialise(d)), "re-serialisation")
			if tt.check != nil {
				tt.check(t, data, d)
			}
		})
	}
	for _, f := range corpusGlob(t) {
		require.True(t, seen[filepath.Base(f)], "corpus file %s has no expectations", f)
	}
}
