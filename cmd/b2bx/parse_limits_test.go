package main

import (
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
