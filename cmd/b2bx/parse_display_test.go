package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeEDI writes data to a file in a temporary directory.
func writeEDI(t *testing.T, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.edi")
	require.NoError(t, os.WriteFile(p, []byte(data), 0o600))
	return p
}

// TestParseMissingSyntaxVersion: a UNB without syntax version says
// "missing", in text and JSON, never "UNOB:0" or "version": 0.
func TestParseMissingSyntaxVersion(t *testing.T) {
	p := writeEDI(t, "UNB+UNOB+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+X+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+R'")
	_, out, _ := runCmd(t, "", nil, "parse", p)
	require.Contains(t, out, "UNOB (syntax version missing)")
	require.NotContains(t, out, "UNOB:0")
	_, out, _ = runCmd(t, "", nil, "parse", p, "--json")
	require.Contains(t, out, `"version": null`)
	require.Contains(t, out, `"versionText": "missing"`)
	require.NotContains(t, out, `"version": 0`)

	p = writeEDI(t, "UNB+UNOC:3+A:14+B:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+X+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+R'")
	_, out, _ = runCmd(t, "", nil, "parse", p, "--json")
	require.Contains(t, out, `"version": 3`)
	require.NotContains(t, out, `versionText`)
}

// TestParseDescribeUnknownSegmentOnce: --describe says once that no
// directory describes a segment, instead of labelling every value.
func TestParseDescribeUnknownSegmentOnce(t *testing.T) {
	p := writeEDI(t, "UNB+UNOA:3+A+B+250312:1030+R'ZZZ+1+2:3'UNZ+0+R'")
	_, out, _ := runCmd(t, "", nil, "parse", p, "--describe")
	require.Equal(t, 1, strings.Count(out, "(no directory for this message)"), out)
	require.NotContains(t, out, "not in the directory's segment")

	_, out, _ = runCmd(t, "", nil, "parse", parseFixtures+"names_fallback.edi", "--describe")
	require.Contains(t, out, "Payment terms basis", "PAT named by D.96A in a D.01B message")
	require.Equal(t, 1, strings.Count(out, "(segment not in D.96A or service syntax 3)"), out)
}
