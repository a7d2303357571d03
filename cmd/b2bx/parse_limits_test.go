package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
