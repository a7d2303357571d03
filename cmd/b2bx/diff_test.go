package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	diffOrders = filepath.Join("..", "..", "testdata", "edifact", "orders_d96a.edi")
	diffOrdrsp = filepath.Join("..", "..", "testdata", "edifact", "ordrsp_d96a.edi")
)

// acceptedOrdrsp confirms orders_d96a.edi unchanged.
const acceptedOrdrsp = "UNB+UNOA:3+4098765000003:14+4012345000009:14+250313:0800+RSP0002'" +
	"UNH+R1+ORDRSP:D:96A:UN'BGM+231+RSP-0816+29'DTM+137:20250313:102'RFF+ON:PO-4711'" +
	"LIN+1+5+4000862141404:EN'QTY+21:48'LIN+2+5+4000862141411:EN'QTY+113:12'UNS+S'UNT+10+R1'UNZ+1+RSP0002'"

func writeDiffFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestDiffText(t *testing.T) {
	code, out, errOut := runCmd(t, "", nil, "diff", diffOrders, diffOrdrsp)
	require.Equal(t, exitChanged, code, errOut)
	require.Empty(t, errOut)
	require.Equal(t, "ORDRSP RSP-0815 for order PO-4711 (4 Change): 2 lines: 1 changed, 1 unchanged\n"+
		"  line 2   4000862141411  changed (3 Changed): quantity 12 → 6\n", out)

	code, out, _ = runCmd(t, "", nil, "diff", "--all", diffOrders, diffOrdrsp)
	require.Equal(t, exitChanged, code)
	require.Contains(t, out, "  line 1   4000862141404  unchanged (5 Accepted without amendment)\n")

	same := writeDiffFile(t, "ok.edi", acceptedOrdrsp)
	code, out, errOut = runCmd(t, "", nil, "diff", diffOrders, same)
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "ORDRSP RSP-0816 for order PO-4711 (29 Accepted without amendment): no changes (2 lines)\n", out)

	// Standard input for one side.
	code, out, _ = runCmd(t, acceptedOrdrsp, nil, "diff", diffOrders, "-")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "no changes")
}

func TestDiffJSON(t *testing.T) {
	code, out, errOut := runCmd(t, "", nil, "diff", diffOrders, diffOrdrsp, "--json")
	require.Equal(t, exitChanged, code, errOut)
	var doc struct {
		Orders, Ordrsp string
		Changed        bool
		Diffs          []struct {
			Order, Response, OrderRef string
			Counts                    map[string]int
			Lines                     []struct {
				Line, Item, Kind string
				Action           struct{ Code, Name string }
				Changes          []struct {
					Field             string
					Ordered, Answered struct{ Value string }
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	require.Equal(t, diffOrders, doc.Orders)
	require.Equal(t, diffOrdrsp, doc.Ordrsp)
	require.True(t, doc.Changed)
	require.Len(t, doc.Diffs, 1)
	d := doc.Diffs[0]
	require.Equal(t, "PO-4711", d.Order)
	require.Equal(t, "RSP-0815", d.Response)
	require.Equal(t, map[string]int{"unchanged": 1, "changed": 1, "rejected": 0, "added": 0, "missing": 0}, d.Counts)
	require.Len(t, d.Lines, 2, "JSON lists every line")
	l := d.Lines[1]
	require.Equal(t, "changed", l.Kind)
	require.Equal(t, "3", l.Action.Code)
	require.Len(t, l.Changes, 1)
	require.Equal(t, "quantity", l.Changes[0].Field)
	require.Equal(t, "12", l.Changes[0].Ordered.Value)
	require.Equal(t, "6", l.Changes[0].Answered.Value)

	code, out, _ = runCmd(t, "", nil, "diff", "--json", diffOrders, writeDiffFile(t, "ok.edi", acceptedOrdrsp))
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"changed": false`)
}

func TestDiffUsage(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.edi")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"one file", []string{diffOrders}, "give the ORDERS that was sent and the partner's ORDRSP"},
		{"three files", []string{diffOrders, diffOrdrsp, diffOrdrsp}, "give the ORDERS"},
		{"both from stdin", []string{"-", "-"}, "one of them may be -"},
		{"unreadable", []string{diffOrders, missing}, "cannot read " + missing},
		{"swapped", []string{diffOrdrsp, diffOrders}, diffOrdrsp + `: not an ORDERS message: give the ORDERS that was sent first (the first file holds "ORDRSP")`},
		{"two orders", []string{diffOrders, diffOrders}, diffOrders + `: not an ORDRSP message: give the partner's ORDRSP second (the second file holds "ORDERS")`},
		{"bad flag", []string{"--nope", diffOrders, diffOrdrsp}, "flag provided but not defined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", nil, append([]string{"diff"}, tc.args...)...)
			require.Equal(t, exitUsage, code)
			require.Empty(t, out)
			require.Contains(t, errOut, tc.want)
		})
	}
	code, _, errOut := runCmd(t, "", nil, "diff", "-h")
	require.Equal(t, exitOK, code)
	require.Contains(t, errOut, "usage: b2bx diff [flags] ORDERS ORDRSP")
}

// TestDiffTerminalSafety: payload text cannot drive the terminal.
func TestDiffTerminalSafety(t *testing.T) {
	evil := strings.Replace(acceptedOrdrsp, "LIN+2+5+4000862141411:EN'QTY+113:12", "LIN+2+3+4000862141411\x1b]0;x\x07:EN'QTY+113:6\x9b", 1)
	evil = strings.Replace(evil, "RSP-0816", "RSP-\x1b[2J", 1)
	code, out, _ := runCmd(t, "", nil, "diff", "--all", diffOrders, writeDiffFile(t, "evil.edi", evil))
	require.Equal(t, exitChanged, code)
	require.NotContains(t, out, "\x1b")
	require.NotContains(t, out, "\x07")
	require.NotContains(t, out, "\u009b")
	require.Contains(t, out, "RSP-^[[2J")

	code, out, _ = runCmd(t, "", nil, "diff", "--json", diffOrders, writeDiffFile(t, "evil.edi", evil))
	require.Equal(t, exitChanged, code)
	require.NotContains(t, out, "\x1b")
	require.Contains(t, out, `RSP-\u001b[2J`)
}
