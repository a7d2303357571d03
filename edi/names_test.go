package edi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNameFallbacks: D.96A names what the message's directory cannot,
// and Describe says which directory named a segment.
func TestNameFallbacks(t *testing.T) {
	d := mustParse(t, fixture(t, "names_fallback.edi"))
	// INVOIC D.01B: BGM from D.24A, PAT (dropped from D.24A) from D.96A.
	bgm := d.Describe(2)
	require.Equal(t, "BGM", bgm.Tag)
	require.Equal(t, "D.24A", bgm.Directory)
	pat := d.Describe(3)
	require.Equal(t, "PAT", pat.Tag)
	require.Equal(t, "Payment terms basis", pat.Name)
	require.Equal(t, "D.96A", pat.Directory)
	require.Empty(t, pat.Unknown)
	require.Contains(t, d.Messages[0].DirectoryNote, "segment names from D.24A (D.96A for segments D.24A no longer has)")

	// ORDERS S:93A: the UN standard directory, named by D.96A.
	require.Equal(t, "Beginning of message", d.Segment(6).Name())
	require.Equal(t, "D.96A", d.Describe(6).Directory)
	require.Contains(t, d.Messages[1].DirectoryNote, "segment names from D.96A (S is the UN standard directory")

	// A type no directory has (IATA PNRGOV): service segments and UN tags named, with a note.
	require.Equal(t, "Message header", d.Segment(8).Name())
	nad := d.Describe(10)
	require.Equal(t, "Name and address", nad.Name)
	require.Equal(t, "D.96A", nad.Directory)
	tvl := d.Describe(9)
	require.Equal(t, "TVL", tvl.Tag)
	require.Empty(t, tvl.Directory)
	require.Equal(t, "segment not in D.96A or service syntax 3", tvl.Unknown)
	require.Contains(t, d.Messages[2].DirectoryNote, "UN segments by D.96A (the message type is in no directory b2bx has)")
}

// TestDescribeNoDirectoryOnce: values of a segment no directory knows are
// not each labelled; the segment says it once.
func TestDescribeNoDirectoryOnce(t *testing.T) {
	d := mustParse(t, []byte("UNB+UNOA:3+A+B+250312:1030+R'ZZZ+1+2:3'UNZ+0+R'"))
	info := d.Describe(1)
	require.Equal(t, "no directory for this message", info.Unknown)
	require.Len(t, info.Fields, 3)
	for _, f := range info.Fields {
		require.Empty(t, f.Name)
	}
}
