package edi

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// characterOrElement are the codes only the character and element checks
// give (the codes charcheck.go, elemcheck.go, elemvalue.go and gs1.go
// name).
var characterOrElement = []Code{CodeCharOutsideLevel, CodeControlChar, CodeEightBitInSevenBit, CodeInvalidUTF8, CodeLooksUTF8, CodeC1Control,
	CodeServiceElementFormat, CodeServiceCodeNotInList, CodeElementFormat, CodeCodeNotInList, CodeCheckDigit}

// A structure-only parse has every message, path and summary of the full
// parse and its issues less the character and element findings, in the
// same order: over the fixtures, the corpus and a generated 16 MiB-class
// interchange (both goroutines of the full parse at work).
func TestStructureOnlyIsTheFullParseWithoutValueChecks(t *testing.T) {
	files := testFiles(t, filepath.Join("..", "testdata", "edifact", "*.edi"), filepath.Join("testdata", "*.edi"))
	require.NotEmpty(t, files)
	inputs := map[string][]byte{"generated": generateOrders(4<<20, "\n")}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		inputs[filepath.Base(f)] = b
	}
	for name, data := range inputs {
		full, err := Parse(data)
		require.NoError(t, err, name)
		st, err := ParseContext(context.Background(), data, Options{StructureOnly: true})
		require.NoError(t, err, name)
		require.Equal(t, len(full.Messages), len(st.Messages), name)
		for k := range full.Messages {
			fm, sm := &full.Messages[k], &st.Messages[k]
			require.Equal(t, fm.Type, sm.Type, name)
			require.Equal(t, fm.Summary(), sm.Summary(), "%s message %d", name, k)
			for i := fm.First; i <= fm.Last; i++ {
				require.Equal(t, full.Segment(i).Path(), st.Segment(i).Path(), "%s segment %d", name, i)
			}
		}
		var want []Code
		for _, c := range codes(full) {
			if !slices.Contains(characterOrElement, c) {
				want = append(want, c)
			}
		}
		require.Equal(t, want, codes(st), name)
	}
}

// It does skip them: a file with a bad character and a bad element value
// has both findings in the full parse and neither structure-only.
func TestStructureOnlySkipsCharacterAndElementChecks(t *testing.T) {
	data := []byte("UNB+UNOA:3+SENDER:14+RECEIVER:14+260312:1200+REF1'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1\x01+9'DTM+137:2026031X:102'" +
		"UNS+S'UNT+5+1'UNZ+1+REF1'")
	full, err := Parse(data)
	require.NoError(t, err)
	require.Contains(t, codes(full), CodeControlChar)
	st, err := ParseContext(context.Background(), data, Options{StructureOnly: true})
	require.NoError(t, err)
	for _, c := range characterOrElement {
		require.NotContains(t, codes(st), c)
	}
	require.Equal(t, full.Messages[0].Summary(), st.Messages[0].Summary())
}
