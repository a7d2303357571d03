package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/jsonout"
)

// TestParseDescribeBounded: --describe lists at most 1000 values of one
// segment and says how many more there are, in both forms.
func TestParseDescribeBounded(t *testing.T) {
	payload := "UNH+1+ORDERS:D:96A:UN'FTX" + strings.Repeat("+a", 1500) + "'UNT+3+1'"
	_, out, _ := runCmd(t, payload, nil, "parse", "-", "--describe")
	fields := 0
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, strings.Repeat(" ", 27)); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			fields++ // a position: "010" .. "10000"
		}
	}
	require.Equal(t, 5+1000+2, fields, "values listed: UNH 5, FTX 1000, UNT 2")
	require.Contains(t, out, "… 500 more value(s) not listed (the first 1000 are)\n")
	_, out, _ = runCmd(t, payload, nil, "parse", "-", "--json", "--describe")
	require.Contains(t, out, `"moreFields":500}`)
}

// TestParseIssuesCapped: a fault repeated many times lists the first
// 1000 and counts the rest, so the output does not grow with the input;
// the header and JSON counts still count every one.
func TestParseIssuesCapped(t *testing.T) {
	head := "UNB+UNOC:3+SENDER:14+RECV:14+250312:1030+ICR1'"
	small, large := head+strings.Repeat("'", 5000), head+strings.Repeat("'", 50000)
	code, out, _ := runCmd(t, small, nil, "parse", "-")
	require.Equal(t, exitFileError, code)
	require.True(t, strings.HasPrefix(out, "(stdin): 5046 bytes, 5001 segments, 1 interchange(s), 0 message(s), 5001 error(s), 1 warning(s)\n"), "header counts every issue")
	require.Equal(t, 1000, strings.Count(out, "SEGMENT_EMPTY segment"))
	require.True(t, strings.Contains(out, "  error   ISSUES_OMITTED segment 1001 @1046: 4000 more SEGMENT_EMPTY error(s) from offset 1046 on are not listed (b2bx lists the first 1000 of each kind)\n"),
		"the omitted count, at the first one left out")
	_, outLarge, _ := runCmd(t, large, nil, "parse", "-")
	require.InDelta(t, len(out), len(outLarge), 10, "only the counts' digits differ")

	_, js, _ := runCmd(t, small, nil, "parse", "-", "--json")
	var doc struct {
		Errors, Warnings int
		Issues           []struct {
			Code    string
			Omitted int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(js), &doc))
	require.Equal(t, 5001, doc.Errors)
	require.Equal(t, 1, doc.Warnings)
	require.Len(t, doc.Issues, 1000+3, "1000 empty segments, ISSUES_OMITTED, UNZ_MISSING, INTERCHANGE_EMPTY")
	var omitted int
	for _, is := range doc.Issues {
		if is.Code == "ISSUES_OMITTED" {
			omitted = is.Omitted
		}
	}
	require.Equal(t, 4000, omitted)
	_, jsLarge, _ := runCmd(t, large, nil, "parse", "-", "--json")
	require.InDelta(t, len(js), len(jsLarge), 10, "only the counts' digits differ")
}

// TestParseJSONIsJSONOut: b2bx parse --json prints what edi/jsonout
// writes, byte for byte, with and without the segment list (the writer's
// own tests, in edi/jsonout, check it against marshalling the whole
// document).
func TestParseJSONIsJSONOut(t *testing.T) {
	inputs := map[string][]byte{
		"empty":       nil,
		"two groups":  []byte("UNB+UNOC:3+S+R+250312:1030+X'UNG+ORDERS+S+R+250312:1030+1+UN+D:96A'UNH+1+ORDERS:D:96A:UN'UNT+2+1'UNE+1+1'UNG+ORDERS+S+R+250312:1030+2+UN+D:96A'UNE+0+2'UNZ+2+X'"),
		"no envelope": []byte("garbage<&>\u202e'"),
	}
	fixtures, err := filepath.Glob(filepath.Join(parseFixtures, "*.edi"))
	require.NoError(t, err)
	require.NotEmpty(t, fixtures)
	for _, path := range fixtures[:min(len(fixtures), 5)] {
		inputs[path], err = os.ReadFile(path)
		require.NoError(t, err)
	}
	for name, data := range inputs {
		doc, err := edi.Parse(data)
		require.NoError(t, err, name)
		for _, o := range []jsonout.Options{{}, {Segments: true}, {Segments: true, Describe: true}} {
			args := []string{"parse", "-", "--json"}
			if o.Segments {
				args = append(args, "--segments")
			}
			if o.Describe {
				args = append(args, "--describe")
			}
			var b bytes.Buffer
			w := bufio.NewWriter(&b)
			require.NoError(t, jsonout.Write(context.Background(), w, "(stdin)", doc, o), name)
			require.NoError(t, w.Flush())
			_, out, _ := runCmd(t, string(data), nil, args...)
			require.Equal(t, b.String(), out, "%s %v", name, args)
		}
	}
}

// memProbe is an output that, every 256 KiB written, reads the Go memory
// the process holds (what debug.SetMemoryLimit counts) without forcing a
// collection, and keeps the most it saw.
type memProbe struct {
	n, since, most uint64
}

func goMemory() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

func (p *memProbe) Write(b []byte) (int, error) {
	p.n += uint64(len(b))
	p.since += uint64(len(b))
	if p.since >= 256<<10 {
		p.since = 0
		p.most = max(p.most, goMemory())
	}
	return len(b), nil
}

// TestParseMemoryBounded: while parse prints a hostile input, the Go
// memory the process holds stays below what it held before, plus the
// Document's budget (twice the input plus 32 MiB) and the output's slack:
// the JSON is streamed, not built in memory (100,000 empty messages took
// 1 GB RSS), and the collector runs once garbage reaches that (it was off
// for the whole command: 195 MB for the text). The input is a mapped
// file, which the Go memory does not include.
func TestParseMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 100,000 messages")
	}
	// The text makes ~1.5 KB of garbage a message: 100,000 of them pass
	// the bound when nothing collects. Built in memory, the JSON of
	// 40,000 held twice the bound (and marshalling is slow under the race
	// detector: fewer would not do).
	for _, tc := range []struct {
		messages int
		args     []string
	}{{40000, []string{"--json"}}, {100000, nil}} {
		t.Run(strings.Join(append([]string{"parse"}, tc.args...), " "), func(t *testing.T) {
			data := []byte(strings.Repeat("UNH+1+ORDERS:D:96A:UN'", tc.messages))
			name := filepath.Join(t.TempDir(), "unh.edi")
			require.NoError(t, os.WriteFile(name, data, 0o600))
			runtime.GC()
			debug.FreeOSMemory()
			held := goMemory()
			p := &memProbe{}
			var errb bytes.Buffer
			code := run(context.Background(), &env{stdin: strings.NewReader(""), stdout: p, stderr: &errb, getenv: func(string) string { return "" }},
				append([]string{"parse", name}, tc.args...))
			require.Equal(t, exitFileError, code, errb.String())
			require.Greater(t, p.n, uint64(8<<20), "the output is large")
			bound := held + uint64(edi.DefaultBudget(len(data))) + outputSlack + 8<<20
			t.Logf("Go memory held while printing: %d MiB, bound %d MiB, held before %d MiB, output %d MiB", p.most>>20, bound>>20, held>>20, p.n>>20)
			require.LessOrEqual(t, p.most, bound, "Go memory held while printing %d MB: at most %d MB (held before %d MB)", p.most>>20, bound>>20, held>>20)
		})
	}
}

// TestParseMaxInput: parse reads at most --max-input bytes (default
// 1 GiB): a larger regular file is refused before it is read, a larger
// stream once that much came, each saying how to read more.
func TestParseMaxInput(t *testing.T) {
	code, _, errOut := runCmd(t, strings.Repeat("'", 2000), nil, "parse", "-", "--max-input", "1KiB")
	require.Equal(t, exitUsage, code)
	require.Equal(t, "b2bx parse: standard input holds more than 1 KiB, the most that is read for parsing: give --max-input with a larger size to read more (at most 4GiB), or split the input\n", errOut)
	code, _, errOut = runCmd(t, strings.Repeat("'", 1024), nil, "parse", "-", "--max-input", "1KiB")
	require.Equal(t, exitFileError, code, errOut)

	name := filepath.Join(t.TempDir(), "big.edi")
	require.NoError(t, os.WriteFile(name, ediPayload(300<<10), 0o600))
	code, out, errOut := runCmd(t, "", nil, "parse", name, "--max-input", "256KiB")
	require.Equal(t, exitUsage, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "big.edi is 300 KiB, more than 256 KiB, the most that is read for parsing: give --max-input")
	code, _, errOut = runCmd(t, "", nil, "parse", name, "--max-input", "1M")
	require.Equal(t, exitFileError, code, errOut)

	for _, bad := range []string{"0", "-1", "abc", "1.5GiB", "5GiB", "KiB"} {
		code, _, errOut = runCmd(t, "", nil, "parse", name, "--max-input", bad)
		require.Equal(t, exitUsage, code, bad)
		require.Contains(t, errOut, "invalid value", bad)
	}
	_, _, errOut = runCmd(t, "", nil, "parse", "-h")
	require.Contains(t, errOut, "(default 1GiB)")
}

func TestByteSizeFlag(t *testing.T) {
	for in, want := range map[string]int64{
		"1": 1, "1024": 1024, "1KiB": 1 << 10, "16MiB": 16 << 20, "16MB": 16 << 20, "2G": 2 << 30, "3GiB": 3 << 30,
		"4GiB": edi.MaxInput, "4294967295": edi.MaxInput, "512B": 512,
	} {
		var b byteSizeFlag
		require.NoError(t, b.Set(in), in)
		require.EqualValues(t, want, b, in)
	}
	for in, want := range map[int64]string{1 << 30: "1GiB", 3 << 20: "3MiB", 1536: "1536", 2048: "2KiB", edi.MaxInput: "4294967295"} {
		b := byteSizeFlag(in)
		require.Equal(t, want, b.String())
	}
	var b byteSizeFlag
	require.EqualError(t, b.Set("4294967297"), "at most 4GiB: larger inputs cannot be parsed")
	require.EqualError(t, b.Set("x"), "want a positive size such as 16MiB, 2GiB or a number of bytes")
}
