package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	is := doc.Issues[0]
	for k, v := range map[string]any{"severity": "error", "code": "UNT_COUNT_MISMATCH", "segment": 3.0, "offset": 93.0} {
		require.Equal(t, v, is[k], k)
	}
	require.NotEmpty(t, is["message"])
	require.Equal(t, 5, doc.Segments)
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

// TestAppendJSONString agrees with encoding/json on every byte value.
func TestAppendJSONString(t *testing.T) {
	var all []byte
	for c := 0; c < 0x80; c++ {
		all = append(all, byte(c))
	}
	for _, s := range []string{"", "plain", string(all), "Łódź €", "\u009b\u202e"} {
		var want string
		require.NoError(t, json.Unmarshal(appendJSONString(nil, s), &want))
		require.Equal(t, s, want)
		std, err := json.Marshal(s)
		require.NoError(t, err)
		if !strings.ContainsAny(s, "<>&") {
			require.Equal(t, string(std), string(appendJSONString(nil, s)))
		}
	}
}
