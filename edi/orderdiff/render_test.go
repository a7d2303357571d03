package orderdiff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/stretchr/testify/require"
)

func TestRender(t *testing.T) {
	d := diffOf(t, order(twoLines...), response("4", "H:DTM+2:20250324:102",
		"LIN+1+5+4000862141404:EN", "QTY+113:40", "LIN+3+1+4000862141428:EN", "QTY+113:10"))
	require.Equal(t, "ORDRSP RSP-1 for order PO-1 (4 Change): 3 lines: 1 changed, 1 added, 1 missing; header: 1 change", d.Headline())
	require.Equal(t, []string{
		"header   delivery date 2025-03-20 → 2025-03-24",
		"line 1   4000862141404  changed (5 Accepted without amendment): quantity 48 PCE → 40 (113 Quantity to be delivered)",
		"         note: the action code 5 Accepted without amendment says the line is unchanged, but its values differ",
		"line 2   4000862141411  missing: not in the ORDRSP",
		"line 3   4000862141428  added (1 Added): quantity 10 (113 Quantity to be delivered)",
	}, d.Rows(false))
	require.Equal(t, d.Headline()+"\n"+strings.Join(d.Rows(false), "\n"), d.String())

	same := diffOf(t, order(twoLines...), response("29", accepted...))
	require.Equal(t, "ORDRSP RSP-1 for order PO-1 (29 Accepted without amendment): no changes (2 lines)", same.Headline())
	require.Empty(t, same.Rows(false))
	require.Equal(t, []string{
		"line 1   4000862141404  unchanged (5 Accepted without amendment)",
		"line 2   4000862141411  unchanged (5 Accepted without amendment)",
	}, same.Rows(true))

	byHeader := diffOf(t, order(twoLines...), response("27"))
	require.Equal(t, "line 1   4000862141404  rejected: the ORDRSP lists no lines, its status decides", byHeader.Rows(false)[0])

	byItem := diffOf(t, order(twoLines...), response("4", "LIN+7+7+4000862141411:EN"))
	require.Contains(t, byItem.Rows(false), "line 2   4000862141411  rejected (7 Not accepted) [matched by item]")
}

// TestRenderSanitises: payload text cannot reach the terminal raw, while
// the Diff and its JSON keep the values as written.
func TestRenderSanitises(t *testing.T) {
	evil := "\x1b]0;pwned\x07"
	ord := interchange("ORDERS", "96A", "BGM+220+PO-\x1b[2J+9", "DTM+137:20250312:102", "LIN+1++A"+evil+":EN", "QTY+21:5\x9b", "UNS+S")
	rsp := interchange("ORDRSP", "96A", "BGM+231+R\u202e+4", "DTM+137:20250313:102", "RFF+ON:X", "LIN+1+3+A"+evil+":EN", "QTY+113:4\x1b", "UNS+S")
	d, err := Compare(parse(t, ord, false), 0, parse(t, rsp, false), 0)
	require.NoError(t, err)
	require.NotEmpty(t, d.Warnings)
	for _, row := range append([]string{d.Headline()}, d.Rows(true)...) {
		require.True(t, termsafe.IsSafe(row), "%q", row)
	}
	for _, row := range strings.Split(d.String(), "\n") {
		require.True(t, termsafe.IsSafe(row), "%q", row)
	}
	require.Equal(t, "A"+evil, d.Lines[0].Item, "the data keeps the value")
}

// TestCompareLargeResponse diffs an ORDRSP of thousands of lines against
// the ORDERS it answers (the shape the simulator's 16 MiB demo has).
func TestCompareLargeResponse(t *testing.T) {
	const n = 5000
	var ordLines, rspLines []string
	for i := 1; i <= n; i++ {
		num := strconv.Itoa(i)
		ordLines = append(ordLines, "LIN+"+num+"++G"+num+":EN", "QTY+21:10")
		action, qty := "5", "10"
		if i%1000 == 0 {
			action, qty = "3", "9"
		}
		rspLines = append(rspLines, "LIN+"+num+"+"+action+"+G"+num+":EN", "QTY+113:"+qty)
	}
	d := diffOf(t, order(ordLines...), response("4", rspLines...))
	require.Equal(t, Counts{Unchanged: n - 5, Changed: 5}, d.Counts)
}

func FuzzDocuments(f *testing.F) {
	for _, name := range []string{"orders_d96a.edi", "ordrsp_d96a.edi", "ordrsp_d25a.edi", "utf8_orders_d25a.edi"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", name))
		require.NoError(f, err)
		f.Add(b, b)
	}
	f.Add(order(twoLines...), response("4", "LIN+1+3+4000862141404:EN", "QTY+113:4", "PRI+AAA:x", "DTM+2:2025:102"))
	f.Add(order("LIN", "QTY", "PRI", "DTM", "PIA"), response("29", "LIN+++", "QTY+:", "PIA+1+:+:"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		oa, err := edi.Parse(a)
		if err != nil {
			return
		}
		ob, err := edi.Parse(b)
		if err != nil {
			return
		}
		ds, err := Documents(oa, ob)
		if err != nil {
			return
		}
		for _, d := range ds {
			for _, row := range append([]string{d.Headline()}, d.Rows(true)...) {
				if !termsafe.IsSafe(row) {
					t.Fatalf("unsafe row %q", row)
				}
			}
			if _, err := json.Marshal(d); err != nil {
				t.Fatal(err)
			}
			c := d.Counts
			if c.Unchanged+c.Changed+c.Rejected+c.Added+c.Missing != len(d.Lines) {
				t.Fatalf("counts %+v for %d lines", c, len(d.Lines))
			}
		}
	})
}
