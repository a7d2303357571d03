package orderdiff

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/stretchr/testify/require"
)

// interchange wraps message segments (without UNH/UNT) into a valid
// interchange of one message.
func interchange(typ, release string, segs ...string) []byte {
	return fmt.Appendf(nil, "UNA:+.? 'UNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+IC1'UNH+M1+%s:D:%s:UN'%s'UNT+%d+M1'UNZ+1+IC1'",
		typ, release, strings.Join(segs, "'"), len(segs)+2)
}

// order is an ORDERS PO-1 with a requested delivery date and lines.
func order(lines ...string) []byte {
	segs := append([]string{"BGM+220+PO-1+9", "DTM+137:20250312:102", "DTM+2:20250320:102", "NAD+BY+4012345000009::9"}, lines...)
	return interchange("ORDERS", "96A", append(segs, "UNS+S")...)
}

// response is an ORDRSP RSP-1 to PO-1 with status 4 and lines; header
// segments may be given first with a "H:" prefix.
func response(status string, segs ...string) []byte {
	head := []string{"BGM+231+RSP-1+" + status, "DTM+137:20250313:102"}
	var lines []string
	for _, s := range segs {
		if h, ok := strings.CutPrefix(s, "H:"); ok {
			head = append(head, h)
		} else {
			lines = append(lines, s)
		}
	}
	head = append(head, "RFF+ON:PO-1", "NAD+BY+4012345000009::9")
	return interchange("ORDRSP", "96A", append(append(head, lines...), "UNS+S")...)
}

func parse(t testing.TB, b []byte, clean bool) *edi.Document {
	t.Helper()
	doc, err := edi.Parse(b)
	require.NoError(t, err)
	if clean {
		for _, is := range doc.Issues() {
			require.NotEqual(t, edi.SeverityError, is.Severity, "test data: %s\n%s", is, b)
		}
	}
	return doc
}

func diffOf(t *testing.T, ord, rsp []byte) *Diff {
	t.Helper()
	d, err := Compare(parse(t, ord, true), 0, parse(t, rsp, true), 0)
	require.NoError(t, err)
	return d
}

var (
	twoLines = []string{"LIN+1++4000862141404:EN", "QTY+21:48:PCE", "PRI+AAA:1.25", "LIN+2++4000862141411:EN", "QTY+21:12"}
	accepted = []string{"LIN+1+5+4000862141404:EN", "QTY+21:48:PCE", "LIN+2+5+4000862141411:EN", "QTY+21:12"}
)

func TestCompareLines(t *testing.T) {
	for _, tc := range []struct {
		name    string
		order   []string
		rsp     []string
		status  string
		kinds   []Kind   // per line of the diff
		changes []string // Change.String of every change, in line order
		notes   []string
		header  []string
	}{
		{name: "unchanged", order: twoLines, rsp: accepted, status: "29", kinds: []Kind{Unchanged, Unchanged}},
		{name: "numbers compare by value", order: twoLines,
			rsp:   []string{"LIN+1+5+4000862141404:EN", "QTY+113:48.000:PCE", "PRI+AAA:1,250", "LIN+2+5+4000862141411:EN", "QTY+21:012"},
			kinds: []Kind{Unchanged, Unchanged}},
		{name: "quantity short-shipped", order: twoLines,
			rsp:     []string{"LIN+1+5+4000862141404:EN", "QTY+21:48", "LIN+2+3+4000862141411:EN", "QTY+21:12", "QTY+113:6"},
			kinds:   []Kind{Unchanged, Changed},
			changes: []string{"quantity 12 → 6 (113 Quantity to be delivered)"}},
		{name: "only the ordered quantity restated", order: twoLines,
			rsp:     []string{"LIN+1+5+4000862141404:EN", "LIN+2+3+4000862141411:EN", "QTY+21:6"},
			kinds:   []Kind{Unchanged, Changed},
			changes: []string{"quantity 12 → 6"}},
		{name: "restated ordered quantity differs too", order: twoLines,
			rsp:     []string{"LIN+1+3+4000862141404:EN", "QTY+21:40:PCE", "QTY+113:30:PCE", "LIN+2+5+4000862141411:EN"},
			kinds:   []Kind{Changed, Unchanged},
			changes: []string{"quantity 48 PCE → 30 PCE (113 Quantity to be delivered)", "quantity 48 PCE → 40 PCE"}},
		{name: "unit differs", order: twoLines,
			rsp:     []string{"LIN+1+3+4000862141404:EN", "QTY+113:48:KGM", "LIN+2+5+4000862141411:EN"},
			kinds:   []Kind{Changed, Unchanged},
			changes: []string{"quantity 48 PCE → 48 KGM (113 Quantity to be delivered)"}},
		{name: "price changed", order: twoLines,
			rsp:     []string{"LIN+1+3+4000862141404:EN", "PRI+AAA:1.35", "LIN+2+5+4000862141411:EN"},
			kinds:   []Kind{Changed, Unchanged},
			changes: []string{"price 1.25 → 1.35"}},
		{name: "price quoted where the order had none", order: twoLines,
			rsp:     []string{"LIN+1+5+4000862141404:EN", "LIN+2+3+4000862141411:EN", "PRI+AAB:2.10"},
			kinds:   []Kind{Unchanged, Changed},
			changes: []string{"price (none) → 2.10 (AAB Calculation gross)"}},
		{name: "line date against the inherited header date", order: twoLines,
			rsp:     []string{"LIN+1+3+4000862141404:EN", "DTM+2:20250327:102", "LIN+2+5+4000862141411:EN", "DTM+2:202503200000:203"},
			kinds:   []Kind{Changed, Unchanged},
			changes: []string{"delivery date 2025-03-20 → 2025-03-27"}},
		{name: "promised date against the requested one", order: twoLines,
			rsp:     []string{"LIN+1+3+4000862141404:EN", "DTM+69:20250322:102", "LIN+2+5+4000862141411:EN", "DTM+69:20250320:102"},
			kinds:   []Kind{Changed, Unchanged},
			changes: []string{"delivery date 2025-03-20 → 2025-03-22 (69 Delivery date/time, promised for)"}},
		{name: "line's own date wins over the header's",
			order: []string{"LIN+1++4000862141404:EN", "QTY+21:1", "DTM+2:20250401:102"},
			rsp:   []string{"LIN+1+5+4000862141404:EN", "DTM+2:20250401:102"},
			kinds: []Kind{Unchanged}},
		{name: "rejected", order: twoLines,
			rsp:   []string{"LIN+1+5+4000862141404:EN", "LIN+2+7+4000862141411:EN", "QTY+21:12"},
			kinds: []Kind{Unchanged, Rejected}},
		{name: "deleted and not found are rejections", order: twoLines,
			rsp:   []string{"LIN+1+2+4000862141404:EN", "LIN+2+10+4000862141411:EN"},
			kinds: []Kind{Rejected, Rejected}},
		{name: "added", order: twoLines,
			rsp:     append(append([]string{}, accepted...), "LIN+3+1+4000862141428:EN", "QTY+113:10", "PRI+AAA:3"),
			kinds:   []Kind{Unchanged, Unchanged, Added},
			changes: []string{"quantity (none) → 10 (113 Quantity to be delivered)", "price (none) → 3"}},
		{name: "missing", order: twoLines,
			rsp:   []string{"LIN+1+5+4000862141404:EN"},
			kinds: []Kind{Unchanged, Missing}},
		{name: "matched by item when the numbering differs", order: twoLines,
			rsp:   []string{"LIN+20+5+4000862141411:EN", "LIN+10+7+4000862141404:EN"},
			kinds: []Kind{Rejected, Unchanged}},
		{name: "matched by PIA id", order: []string{"LIN+1", "PIA+5+ART-1:SA", "QTY+21:5"},
			rsp:     []string{"LIN+9+3", "PIA+5+ART-1:SA", "QTY+113:4"},
			kinds:   []Kind{Changed},
			changes: []string{"quantity 5 → 4 (113 Quantity to be delivered)"}},
		{name: "substitution: same number, other item", order: twoLines,
			rsp:     []string{"LIN+1+5+4000862141404:EN", "LIN+2+3+4000862141435:EN", "QTY+113:12"},
			kinds:   []Kind{Unchanged, Changed},
			changes: []string{"item 4000862141411 → 4000862141435"}},
		{name: "marked changed without a visible difference", order: twoLines,
			rsp:   []string{"LIN+1+3+4000862141404:EN", "QTY+21:48", "LIN+2+5+4000862141411:EN"},
			kinds: []Kind{Changed, Unchanged},
			notes: []string{"marked 3 Changed, but no quantity, price, date or item differs"}},
		{name: "accepted without amendment, yet the quantity differs", order: twoLines,
			rsp:     []string{"LIN+1+5+4000862141404:EN", "QTY+113:40", "LIN+2+5+4000862141411:EN"},
			kinds:   []Kind{Changed, Unchanged},
			changes: []string{"quantity 48 PCE → 40 (113 Quantity to be delivered)"},
			notes:   []string{"the action code 5 Accepted without amendment says the line is unchanged, but its values differ"}},
		{name: "schedule quantities below the line are not compared", order: twoLines,
			rsp:   []string{"LIN+1+5+4000862141404:EN", "QTY+21:48", "SCC+1", "QTY+113:10", "LIN+2+5+4000862141411:EN"},
			kinds: []Kind{Unchanged, Unchanged}},
		{name: "header delivery date", order: twoLines,
			rsp:    append([]string{"H:DTM+2:20250324:102"}, accepted...),
			kinds:  []Kind{Unchanged, Unchanged},
			header: []string{"delivery date 2025-03-20 → 2025-03-24"}},
		{name: "no lines, accepted", order: twoLines, status: "29", kinds: []Kind{Unchanged, Unchanged}},
		{name: "no lines, not accepted", order: twoLines, status: "27", kinds: []Kind{Rejected, Rejected}},
		{name: "no lines, change", order: twoLines, kinds: []Kind{Missing, Missing}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := tc.status
			if status == "" {
				status = "4"
			}
			d := diffOf(t, order(tc.order...), response(status, tc.rsp...))
			var kinds []Kind
			var changes, notes, header []string
			for _, l := range d.Lines {
				kinds = append(kinds, l.Kind)
				for _, c := range l.Changes {
					changes = append(changes, c.String())
				}
				notes = append(notes, l.Notes...)
			}
			for _, c := range d.Header {
				header = append(header, c.String())
			}
			require.Equal(t, tc.kinds, kinds)
			require.Equal(t, tc.changes, changes)
			require.Equal(t, tc.notes, notes)
			require.Equal(t, tc.header, header)
			require.Empty(t, d.Warnings)
			want := len(tc.header) > 0 || status == "27"
			for _, k := range tc.kinds {
				want = want || k != Unchanged
			}
			require.Equal(t, want, d.HasChanges())
		})
	}
}

func TestCompareDetails(t *testing.T) {
	d := diffOf(t, order(twoLines...), response("4", "LIN+1+5+4000862141404:EN", "LIN+2+3+4000862141411:EN", "QTY+113:6", "LIN+3+1+4000862141428:SRV"))
	require.Equal(t, "PO-1", d.Order)
	require.Equal(t, "RSP-1", d.Response)
	require.Equal(t, "PO-1", d.OrderRef)
	require.Equal(t, edi.Coded{Code: "4", Name: "Change"}, d.Status)
	require.Equal(t, Counts{Unchanged: 1, Changed: 1, Added: 1}, d.Counts)
	l := d.Lines[1]
	require.Equal(t, "2", l.Line)
	require.Equal(t, "4000862141411", l.Item)
	require.Equal(t, "EN", l.ItemType)
	require.Equal(t, edi.Coded{Code: "3", Name: "Changed"}, l.Action)
	require.Equal(t, "line number", l.MatchedBy)
	require.Equal(t, 10, l.OrderSegment, "LIN+2 of the ORDERS (UNA is segment 0)")
	require.Equal(t, 8, l.ResponseSegment, "LIN+2 of the ORDRSP")
	require.Equal(t, []Change{{Field: FieldQuantity,
		Ordered:  &Value{Qualifier: edi.Coded{Code: "21", Name: "Ordered quantity"}, Value: "12", Segment: 11},
		Answered: &Value{Qualifier: edi.Coded{Code: "113", Name: "Quantity to be delivered"}, Value: "6", Segment: 9}}}, l.Changes)
	added := d.Lines[2]
	require.Equal(t, Added, added.Kind)
	require.Equal(t, -1, added.OrderSegment)
	require.Equal(t, "", added.MatchedBy)

	b, err := json.Marshal(d)
	require.NoError(t, err)
	require.Contains(t, string(b), `"kind":"changed"`)
	require.Contains(t, string(b), `"answered":{"qualifier":{"code":"113","name":"Quantity to be delivered"},"value":"6","segment":9}`)
}

func TestCompareWithoutStructure(t *testing.T) {
	// D:01B has no directory structure in b2bx: lines are read in order.
	ord := interchange("ORDERS", "01B", "BGM+220+PO-1+9", "LIN+1++A:EN", "QTY+21:5", "PRI+AAA:2", "UNS+S")
	rsp := interchange("ORDRSP", "01B", "BGM+231+R+4", "RFF+ON:PO-1", "LIN+1+3+A:EN", "QTY+113:4", "PRI+AAA:2.5", "UNS+S")
	d, err := Compare(parse(t, ord, false), 0, parse(t, rsp, false), 0)
	require.NoError(t, err)
	require.Len(t, d.Lines, 1)
	require.Equal(t, Changed, d.Lines[0].Kind)
	require.Len(t, d.Lines[0].Changes, 2)
}

func TestCompareWarnings(t *testing.T) {
	other := interchange("ORDRSP", "96A", "BGM+231+RSP-1+29", "DTM+137:20250313:102", "RFF+ON:PO-9", "UNS+S")
	d := diffOf(t, order(twoLines...), other)
	require.Equal(t, []string{"the ORDRSP answers order PO-9, not PO-1; compared anyway"}, d.Warnings)
	none := interchange("ORDRSP", "96A", "BGM+231+RSP-1+29", "DTM+137:20250313:102", "UNS+S")
	d = diffOf(t, order(twoLines...), none)
	require.Equal(t, []string{"the ORDRSP names no order (no RFF+ON); compared anyway"}, d.Warnings)

	broken := []byte(strings.Replace(string(response("4", accepted...)), "UNT+", "UNT+9", 1))
	d, err := Compare(parse(t, order(twoLines...), true), 0, parse(t, broken, false), 0)
	require.NoError(t, err)
	require.Equal(t, []string{"the ORDRSP message M1 has 1 error (b2bx parse shows them); lines may be read wrongly"}, d.Warnings)
}

func TestCompareWrongMessages(t *testing.T) {
	ord, rsp := parse(t, order(twoLines...), true), parse(t, response("4"), true)
	_, err := Compare(rsp, 0, rsp, 0)
	require.ErrorIs(t, err, ErrNotOrders)
	_, err = Compare(ord, 0, ord, 0)
	require.ErrorIs(t, err, ErrNotOrdrsp)
	_, err = Compare(ord, 1, rsp, 0)
	require.ErrorIs(t, err, ErrNotOrders)
	_, err = Compare(ord, 0, rsp, -1)
	require.ErrorIs(t, err, ErrNotOrdrsp)
}

func TestDocumentsPairsByOrderNumber(t *testing.T) {
	two := "UNA:+.? 'UNB+UNOC:3+S:14+R:14+250312:1030+IC1'" +
		"UNH+1+ORDERS:D:96A:UN'BGM+220+PO-A+9'DTM+137:20250312:102'LIN+1++A:EN'QTY+21:1'UNS+S'UNT+7+1'" +
		"UNH+2+ORDERS:D:96A:UN'BGM+220+PO-B+9'DTM+137:20250312:102'LIN+1++B:EN'QTY+21:2'UNS+S'UNT+7+2'UNZ+2+IC1'"
	rsps := "UNA:+.? 'UNB+UNOC:3+R:14+S:14+250313:1030+IC2'" +
		"UNH+1+ORDRSP:D:96A:UN'BGM+231+R-B+4'DTM+137:20250313:102'RFF+ON:PO-B'LIN+1+3+B:EN'QTY+113:1'UNS+S'UNT+8+1'" +
		"UNH+2+ORDRSP:D:96A:UN'BGM+231+R-A+29'DTM+137:20250313:102'RFF+ON:PO-A'LIN+1+5+A:EN'UNS+S'UNT+7+2'UNZ+2+IC2'"
	ds, err := Documents(parse(t, []byte(two), true), parse(t, []byte(rsps), true))
	require.NoError(t, err)
	require.Len(t, ds, 2)
	require.Equal(t, "PO-B", ds[0].Order)
	require.Equal(t, 1, ds[0].OrderMessage)
	require.True(t, ds[0].HasChanges())
	require.Equal(t, "PO-A", ds[1].Order)
	require.False(t, ds[1].HasChanges())

	stray := parse(t, response("4"), true) // answers PO-1: not in the file
	_, err = Documents(parse(t, []byte(two), true), stray)
	require.ErrorIs(t, err, ErrNoOrder)
	require.ErrorContains(t, err, `answers order "PO-1"; the ORDERS file holds "PO-A", "PO-B"`)

	// One of each: compared even though the numbers differ.
	ds, err = Documents(parse(t, order(twoLines...), true), parse(t, []byte(strings.Replace(string(response("4")), "PO-1", "PO-2", 1)), true))
	require.NoError(t, err)
	require.Len(t, ds[0].Warnings, 1)

	_, err = Documents(stray, stray)
	require.ErrorIs(t, err, ErrNotOrders)
	require.ErrorContains(t, err, `the first file holds "ORDRSP"`)
	ord := parse(t, order(), true)
	_, err = Documents(ord, ord)
	require.ErrorIs(t, err, ErrNotOrdrsp)
	require.True(t, errors.Is(err, ErrNotOrdrsp))
}

func TestFixturePair(t *testing.T) {
	read := func(name string) *edi.Document {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", name))
		require.NoError(t, err)
		return parse(t, b, true)
	}
	ds, err := Documents(read("orders_d96a.edi"), read("ordrsp_d96a.edi"))
	require.NoError(t, err)
	require.Equal(t, "ORDRSP RSP-0815 for order PO-4711 (4 Change): 2 lines: 1 changed, 1 unchanged\n"+
		"line 2   4000862141411  changed (3 Changed): quantity 12 → 6", ds[0].String())
}
