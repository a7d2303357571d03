package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/stretchr/testify/require"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of b2bx parse")

const parseFixtures = "../../testdata/edifact/"

// TestParseGolden compares b2bx parse output (human, JSON, segments) with
// golden files in testdata/parse; run with -update to rewrite them.
func TestParseGolden(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
		code   int
	}{
		{"orders_d96a.txt", []string{"orders_d96a.edi"}, exitOK},
		{"orders_d96a.json", []string{"orders_d96a.edi", "--json"}, exitOK},
		{"utf8_orders_d25a.txt", []string{"utf8_orders_d25a.edi"}, exitOK},
		{"groups_segments.txt", []string{"groups_ung_une.edi", "--segments"}, exitOK},
		{"groups.json", []string{"--json", "groups_ung_une.edi"}, exitOK},
		{"junk_before_unb.txt", []string{"junk_before_unb.edi"}, exitFileError},
		{"unob_control_segments.txt", []string{"unob_control.edi", "--segments"}, exitOK},
		{"unob_control.json", []string{"unob_control.edi", "--json"}, exitOK},
		{"hard_wrapped.txt", []string{"hard_wrapped.edi", "--segments"}, exitOK},
		{"bare_message.txt", []string{"bare_message.edi"}, exitOK},
		{"unt_count.txt", []string{"errors/unt_count.edi"}, exitFileError},
		{"unt_count.json", []string{"errors/unt_count.edi", "--json"}, exitFileError},
		{"control_char_segments.txt", []string{"errors/control_char.edi", "--segments"}, exitFileError},
		{"release_chains_segments.json", []string{"release_chains.edi", "--json", "--segments"}, exitOK},
		{"missing_unz.txt", []string{"missing_unz.edi"}, exitFileError},
		// Summaries, D.25A notes, CONTRL versions.
		{"utf8_orders_d25a.json", []string{"utf8_orders_d25a.edi", "--json"}, exitOK},
		{"ordrsp_d96a.txt", []string{"ordrsp_d96a.edi"}, exitOK},
		{"ordrsp_d25a.txt", []string{"ordrsp_d25a.edi"}, exitOK},
		{"ordrsp_d25a.json", []string{"ordrsp_d25a.edi", "--json"}, exitOK},
		{"aperak_d96a.txt", []string{"aperak_d96a.edi"}, exitOK},
		{"aperak_d25a.txt", []string{"aperak_d25a.edi"}, exitOK},
		{"aperak_d25a.json", []string{"aperak_d25a.edi", "--json"}, exitOK},
		{"contrl_22.txt", []string{"contrl_22.edi"}, exitOK},
		{"contrl_22_rejected.txt", []string{"contrl_22_rejected.edi"}, exitOK},
		{"contrl_22_rejected.json", []string{"contrl_22_rejected.edi", "--json"}, exitOK},
		{"contrl_d3.txt", []string{"contrl_d3.edi"}, exitOK},
		{"contrl_41.txt", []string{"contrl_41.edi"}, exitOK},
		{"contrl_41_accepted.json", []string{"contrl_41_accepted.edi", "--json"}, exitOK},
		// Message structure problems.
		{"structure_unexpected.txt", []string{"structure/unexpected_segment.edi"}, exitFileError},
		{"structure_unexpected.json", []string{"structure/unexpected_segment.edi", "--json"}, exitFileError},
		{"structure_missing.txt", []string{"structure/missing_segment.edi"}, exitFileError},
		{"structure_segment_repeats.txt", []string{"structure/segment_repeats.edi"}, exitFileError},
		{"structure_group_repeats.txt", []string{"structure/group_repeats.edi"}, exitFileError},
		{"contrl_version_mismatch.txt", []string{"structure/contrl_version_mismatch.edi"}, exitFileError},
		{"contrl_version_unknown.txt", []string{"structure/contrl_version_unknown.edi"}, exitOK},
		// Names, paths and the element breakdown.
		{"orders_d96a_describe.txt", []string{"orders_d96a.edi", "--describe"}, exitOK},
		{"contrl_41_describe.json", []string{"contrl_41.edi", "--json", "--describe"}, exitOK},
		{"utf8_orders_d25a_segments.txt", []string{"utf8_orders_d25a.edi", "--segments"}, exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			args := []string{"parse"}
			for _, a := range tt.args {
				if strings.HasSuffix(a, ".edi") {
					a = parseFixtures + a
				}
				args = append(args, a)
			}
			code, out, errOut := runCmd(t, "", nil, args...)
			require.Equal(t, tt.code, code, errOut)
			require.Empty(t, errOut)
			if strings.HasSuffix(tt.golden, ".json") {
				require.True(t, json.Valid([]byte(out)), out)
			}
			path := filepath.Join("testdata", "parse", tt.golden)
			if *updateGolden {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./cmd/b2bx -run TestParseGolden -update")
			require.Equal(t, string(want), out)
		})
	}
}

// TestParseJSONShape checks the field names issue 2 promises.
func TestParseJSONShape(t *testing.T) {
	code, out, _ := runCmd(t, "", nil, "parse", parseFixtures+"errors/unt_count.edi", "--json")
	require.Equal(t, exitFileError, code)
	var doc struct {
		Interchanges []struct {
			Syntax struct {
				Identifier string `json:"identifier"`
				Version    int    `json:"version"`
			} `json:"syntax"`
			Separators map[string]any    `json:"separators"`
			Sender     map[string]string `json:"sender"`
			Recipient  map[string]string `json:"recipient"`
			ControlRef string            `json:"controlRef"`
			PreparedAt string            `json:"preparedAt"`
			Groups     int               `json:"groups"`
			Messages   []map[string]any  `json:"messages"`
		} `json:"interchanges"`
		Issues   []map[string]any `json:"issues"`
		Segments int              `json:"segments"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	ic := doc.Interchanges[0]
	require.Equal(t, "UNOA", ic.Syntax.Identifier)
	require.Equal(t, 3, ic.Syntax.Version)
	require.Equal(t, "+", ic.Separators["element"])
	require.Equal(t, map[string]string{"id": "SENDER", "qualifier": "14"}, ic.Sender)
	require.Equal(t, "RECEIVER", ic.Recipient["id"])
	require.Equal(t, "REF1", ic.ControlRef)
	require.Equal(t, "2025-03-12T10:30:00", ic.PreparedAt)
	require.Equal(t, 0, ic.Groups)
	m := ic.Messages[0]
	for k, v := range map[string]any{"ref": "1", "type": "ORDERS", "version": "D", "release": "96A", "agency": "UN", "association": "", "segments": 3.0} {
		require.Equal(t, v, m[k], k)
	}
	require.Contains(t, m, "summary")
	require.Equal(t, "D96A", m["directory"])
	require.Equal(t, "ORDERS D.96A", m["structure"])
	require.Equal(t, 2.0, m["structureIssues"], "the minimal message lacks DTM and UNS")
	var is map[string]any
	for _, x := range doc.Issues {
		if x["code"] == "UNT_COUNT_MISMATCH" {
			is = x
		}
	}
	for k, v := range map[string]any{"severity": "error", "code": "UNT_COUNT_MISMATCH", "segment": 3.0, "offset": 93.0} {
		require.Equal(t, v, is[k], k)
	}
	require.NotEmpty(t, is["message"])
	require.Equal(t, 5, doc.Segments)
}

// TestParseJSONMessageFields checks the message fields of the structure
// layer: the D.25A note and the summary of each summarised type.
func TestParseJSONMessageFields(t *testing.T) {
	type message struct {
		Type          string         `json:"type"`
		Structure     string         `json:"structure"`
		Directory     string         `json:"directory"`
		DirectoryNote string         `json:"directoryNote"`
		Summary       map[string]any `json:"summary"`
	}
	tests := []struct {
		file, directory, note, summaryKey string
	}{
		{"utf8_orders_d25a.edi", "D24A", "D.25A checked with the D.24A structure", "orders"},
		{"ordrsp_d25a.edi", "D24A", "D.25A checked with the D.24A structure", "ordrsp"},
		{"aperak_d96a.edi", "D96A", "", "aperak"},
		{"contrl_22.edi", "SYNTAX3", "", "contrl"},
		{"contrl_41.edi", "SYNTAX4", "", "contrl"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", nil, "parse", parseFixtures+tt.file, "--json")
			require.Equal(t, exitOK, code, errOut)
			var doc struct {
				Interchanges []struct {
					Messages []message `json:"messages"`
				} `json:"interchanges"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &doc))
			m := doc.Interchanges[0].Messages[0]
			require.Equal(t, tt.directory, m.Directory)
			require.Equal(t, tt.note, m.DirectoryNote)
			require.NotEmpty(t, m.Structure)
			require.Len(t, m.Summary, 1)
			require.Contains(t, m.Summary, tt.summaryKey)
		})
	}
	code, out, _ := runCmd(t, "", nil, "parse", parseFixtures+"groups_ung_une.edi", "--json")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"structure": "INVOIC D.96A"`, "every D.96A message has its structure")
	require.Contains(t, out, `"summary": null`)
	code, out, _ = runCmd(t, "", nil, "parse", parseFixtures+"names_fallback.edi", "--json")
	require.NotEqual(t, exitUsage, code)
	require.Contains(t, out, `"directoryNote": "no directory structure for`)
}

// TestParseSegmentsNamesAndPaths: the segment list carries names and
// group paths in both forms.
func TestParseSegmentsNamesAndPaths(t *testing.T) {
	_, out, _ := runCmd(t, "", nil, "parse", parseFixtures+"orders_d96a.edi", "--json", "--segments")
	require.Contains(t, out, `{"index":6,"offset":179,"number":5,"tag":"NAD","name":"Name and address","path":"SG2/NAD","fullPath":"SG2/NAD","data":`)
	require.Contains(t, out, `"tag":"PRI","name":"Price details","path":"SG28/PRI","fullPath":"SG25/SG28/PRI"`)
	require.NotContains(t, out, `"fields"`, "--describe adds the fields")
	_, out, _ = runCmd(t, "", nil, "parse", parseFixtures+"orders_d96a.edi", "--segments")
	require.Contains(t, out, "NAD  SG2/NAD         Name and address                  NAD+BY+")
	_, out, _ = runCmd(t, "", nil, "parse", parseFixtures+"orders_d96a.edi", "--describe")
	require.Contains(t, out, "010      3035       Party qualifier                            BY = Buyer\n")
	require.Contains(t, out, "010:3    C507.2379  Date/time/period format qualifier          102 = CCYYMMDD\n")
}

func TestParseStdinAndUsage(t *testing.T) {
	data, err := os.ReadFile(parseFixtures + "orders_d96a.edi")
	require.NoError(t, err)
	code, out, _ := runCmd(t, string(data), nil, "parse", "-")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "(stdin): 438 bytes, 18 segments")

	code, _, errOut := runCmd(t, "", nil, "parse")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "give exactly one FILE")

	code, _, errOut = runCmd(t, "", nil, "parse", "a.edi", "b.edi")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "give exactly one FILE")

	code, _, errOut = runCmd(t, "", nil, "parse", "does-not-exist.edi")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "cannot read does-not-exist.edi: no such file or directory")

	code, _, _ = runCmd(t, "", nil, "parse", "--bogus", "x.edi")
	require.Equal(t, exitUsage, code)
	code, _, _ = runCmd(t, "", nil, "parse", "-h")
	require.Equal(t, exitOK, code)

	code, out, _ = runCmd(t, "", nil, "parse", "-", "--json")
	require.Equal(t, exitFileError, code)
	require.Contains(t, out, `"code": "EMPTY_INPUT"`)
}

// TestParseTerminalSafety: hostile bytes in the payload and the file name
// never reach the terminal raw, in human or JSON output.
func TestParseTerminalSafety(t *testing.T) {
	payload := "UNB+UNOY:4+S+R+20250312:1030+X'UNH+1+ORDERS:D:96A:UN'" +
		"FTX+AAI+++\x1b]52;c;cHduZWQ=\x07 \x1b[2J \r\b \u009b31m \u202etxt.exe\x7f \xff'UNT+3+1'UNZ+1+X'"
	dir := t.TempDir()
	name := filepath.Join(dir, "evil\x1b[31mname.edi")
	require.NoError(t, os.WriteFile(name, []byte(payload), 0o600))
	for _, args := range [][]string{
		{"parse", name, "--segments"},
		{"parse", name, "--json", "--segments"},
		{"parse", "-", "--segments"},
	} {
		_, out, errOut := runCmd(t, payload, nil, args...)
		for _, s := range []string{out, errOut} {
			for _, bad := range []string{"\x1b", "\x07", "\r", "\b", "\x7f", "\u009b", "\u202e", "\xff"} {
				require.NotContains(t, s, bad, "args %v", args)
			}
		}
		require.Contains(t, out, "txt.exe")
	}
	_, out, _ := runCmd(t, payload, nil, "parse", "-", "--segments")
	require.Contains(t, out, "^[]52;c;cHduZWQ=^G ^[[2J ^M^H <U+009B>31m <U+202E>txt.exe^? \uFFFD")
	_, out, _ = runCmd(t, payload, nil, "parse", "-", "--json", "--segments")
	require.Contains(t, out, `\u001b]52;c;cHduZWQ=\u0007 \u001b[2J \r\b \u009b31m \u202etxt.exe\u007f `+"\uFFFD")
}

// TestParseLargeFile: a file large enough to be memory-mapped and indexed
// in two halves prints exactly what the same bytes give from standard
// input (read, not mapped), with and without the segment list.
func TestParseLargeFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("UNA:+.? '\nUNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+BIG1'\nUNH+1+ORDERS:D:96A:UN:EAN008'\nBGM+220+PO-BIG+9'\nDTM+137:20250312:102'\n")
	lines := 16000
	for i := 1; i <= lines; i++ {
		gtin := fmt.Sprintf("%012d", 400000000000+i)
		d, _ := edi.GS1CheckDigit(gtin)
		fmt.Fprintf(&b, "LIN+%d++%s%c:EN'\nQTY+21:%d'\nFTX+AAA+++Line ?'%d?' text'\n", i, gtin, d, i%40+1, i)
	}
	fmt.Fprintf(&b, "UNS+S'\nCNT+2:%d'\nUNT+%d+1'\nUNZ+1+BIG1'\n", lines, 3*lines+6)
	data := b.String()
	require.Greater(t, len(data), 1<<20, "above the mapping and split thresholds")
	name := filepath.Join(t.TempDir(), "big.edi")
	require.NoError(t, os.WriteFile(name, []byte(data), 0o600))
	for _, args := range [][]string{{"--json"}, {"--json", "--segments"}, {}} {
		code, fromFile, errOut := runCmd(t, "", nil, append([]string{"parse", name}, args...)...)
		require.Equal(t, exitOK, code, errOut)
		code, fromStdin, errOut := runCmd(t, data, nil, append([]string{"parse", "-"}, args...)...)
		require.Equal(t, exitOK, code, errOut)
		require.Equal(t, strings.ReplaceAll(fromStdin, "(stdin)", name), fromFile, "args %v", args)
	}
}
