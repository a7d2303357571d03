package edi

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// countCodes counts the listed issues per code.
func countCodes(d *Document) map[Code]int {
	n := map[Code]int{}
	for _, is := range d.Issues() {
		n[is.Code]++
	}
	return n
}

// omittedIssue returns the ISSUES_OMITTED issue for code.
func omittedIssue(t *testing.T, d *Document, code Code) Issue {
	t.Helper()
	for _, is := range d.Issues() {
		if is.Code == CodeIssuesOmitted && strings.Contains(is.Message, " "+string(code)+" ") {
			return is
		}
	}
	t.Fatalf("no ISSUES_OMITTED for %s in %v", code, countCodes(d))
	return Issue{}
}

// TestIssuesCappedPerCode: a fault repeated past maxIssuesPerCode lists
// the first 1000 and counts the rest in one ISSUES_OMITTED issue at the
// first one left out; IssueCounts still counts every one.
func TestIssuesCappedPerCode(t *testing.T) {
	head := "UNB+UNOC:3+S+R+250312:1030+X'"
	d := mustParse(t, []byte(head+strings.Repeat("'", 5000)))
	n := countCodes(d)
	require.Equal(t, 1000, n[CodeSegmentEmpty])
	om := omittedIssue(t, d, CodeSegmentEmpty)
	require.Equal(t, Issue{Severity: SeverityError, Code: CodeIssuesOmitted, Segment: 1001, Offset: len(head) + 1000, Omitted: 4000,
		Message: "4000 more SEGMENT_EMPTY error(s) from offset 1029 on are not listed (b2bx lists the first 1000 of each kind)"}, om)
	errs, warns := d.IssueCounts()
	require.Equal(t, 5000+1, errs, "every empty segment, and UNZ_MISSING")
	require.Equal(t, 1, warns, "INTERCHANGE_EMPTY")
	require.Less(t, len(d.Issues()), 1010)
	for k, is := range d.Issues()[1:] {
		require.LessOrEqual(t, d.Issues()[k].Offset, is.Offset, "still in input order")
	}
}

// TestIssuesCappedAcrossLayers: the cap holds for issues from every
// layer (scanner, structure, envelope, characters on the second
// goroutine, message structure), and the two-goroutine analyse gives the
// one-goroutine result.
func TestIssuesCappedAcrossLayers(t *testing.T) {
	var b strings.Builder
	for k := range 1500 {
		// UNOA has no lower case: CHAR_OUTSIDE_LEVEL once per interchange;
		// the ORDERS lacks BGM, DTM and UNS; UNT is missing.
		fmt.Fprintf(&b, "UNB+UNOA:3+S+R+250312:1030+X%d'UNH+%d+ORDERS:D:96A:UN'FTX+AAA+++lower'UNZ+1+X%d'", k, k, k)
	}
	issues := analyseBoth(t, []byte(b.String()))
	d := &Document{issueLog: issueLog{issues: issues}}
	n := countCodes(d)
	for _, code := range []Code{CodeCharOutsideLevel, CodeUNTMissing, CodeSegmentMissing} {
		require.Equal(t, 1000, n[code], code)
	}
	require.Equal(t, 500, omittedIssue(t, d, CodeCharOutsideLevel).Omitted)
	require.Equal(t, 500, omittedIssue(t, d, CodeUNTMissing).Omitted)
	require.Equal(t, 3*1500-1000, omittedIssue(t, d, CodeSegmentMissing).Omitted, "BGM, DTM and UNS per message")

	full := mustParse(t, []byte(b.String()))
	for _, m := range full.Messages {
		require.Equal(t, 3, m.StructureProblems, "counted per message, listed or not")
	}
	errs, _ := full.IssueCounts()
	require.Equal(t, 1500*(1+3), errs, "UNT_MISSING and three missing segments per message")
}

// TestIssuesCappedSplit: issues over the cap in both halves of a split
// scan give the one-pass result.
func TestIssuesCappedSplit(t *testing.T) {
	data := []byte(strings.Repeat("UNA:+.: 'UNB+UNOC:3+S+R+250312:1030+X'UNZ+0+X'", 3000))
	d := mustParse(t, data)
	require.Equal(t, 1000, countCodes(d)[CodeUNAInvalid])
	require.Equal(t, 2000, omittedIssue(t, d, CodeUNAInvalid).Omitted)
	// Prefixes that end in each segment of an interchange, so that some
	// split guesses hold and the second half's scan is joined.
	require.Positive(t, checkSplits(t, data, []int{splitPrefix, splitPrefix + 10, splitPrefix + 20, splitPrefix + 40}, spread(data, 3)))
}

// TestStructureOmittedCounts: a message with more structure problems than
// are listed counts them all.
func TestStructureOmittedCounts(t *testing.T) {
	d := mustParse(t, []byte("UNH+1+ORDERS:D:96A:UN'BGM+220+1'DTM+137:20250312:102'"+strings.Repeat("BGM+220+1'", 300)+"UNS+S'UNT+305+1'"))
	m := d.Messages[0]
	require.Equal(t, 300, m.StructureProblems)
	var marker Issue
	for _, is := range d.Issues() {
		if is.Code == CodeStructureOmitted {
			marker = is
		}
	}
	require.Equal(t, 200, marker.Omitted)
	errs, _ := d.IssueCounts()
	require.Equal(t, 300, errs)
}

// TestSummaryOnDemand: the Document keeps no summaries; every call reads
// a fresh one from the segments.
func TestSummaryOnDemand(t *testing.T) {
	d := mustParse(t, fixture(t, "orders_d96a.edi"))
	a, b := d.Messages[0].Summary(), d.Interchanges[0].Messages[0].Summary()
	require.NotSame(t, a, b)
	require.Equal(t, a, b)
	require.Equal(t, "PO-4711", a.Orders.Document.Number)
	require.Nil(t, Message{Type: "ORDERS"}.Summary(), "a Message not from Parse has none")
}

// TestSummaryListsBounded: every list of a summary holds at most
// maxListed items, and all of them together at most maxSummaryItems,
// however many segments the message repeats; counts stay exact.
func TestSummaryListsBounded(t *testing.T) {
	orders := "UNH+1+ORDERS:D:96A:UN'BGM+220+1+9'" + strings.Repeat("DTM+137:20250312:102'", 1500) +
		strings.Repeat("NAD+BY+1::9'", 1500) + "LIN+1'UNS+S'" + strings.Repeat("CNT+2:1'", 1500) + "UNT+4505+1'"
	o := mustParse(t, []byte(orders)).Messages[0].Summary().Orders
	require.Len(t, o.Document.Dates, 1000)
	require.Len(t, o.Document.Parties, 1000)
	require.Len(t, o.Controls, 1000)
	require.Equal(t, 1, o.Lines)

	var b strings.Builder
	b.WriteString("UNH+1+ORDRSP:D:96A:UN'BGM+231+R+4'DTM+137:20250312:102'")
	for k := range 3000 {
		fmt.Fprintf(&b, "LIN+%d+%d'QTY+21:1'QTY+21:2'QTY+21:3'QTY+21:4'", k, 100+k) // 3000 action codes, all "changed"
	}
	b.WriteString("UNS+S'UNT+15004+1'")
	r := mustParse(t, []byte(b.String())).Messages[0].Summary().Ordrsp
	require.Equal(t, 3000, r.Lines)
	require.Equal(t, 3000, r.ChangedLines)
	require.Len(t, r.Actions, 1000, "different action codes listed")
	require.Len(t, r.Changed, 1000)
	quantities := 0
	for _, c := range r.Changed {
		quantities += len(c.Quantities)
	}
	require.Equal(t, 4*1000, quantities, "the quantities of the listed changed lines")

	b.Reset()
	b.WriteString("UNH+1+APERAK:D:96A:UN'BGM+313+1'")
	for k := range 1000 {
		fmt.Fprintf(&b, "ERC+%d'%s", k, strings.Repeat("FTX+AAO+++text'", 20))
	}
	b.WriteString("UNT+21003+1'")
	a := mustParse(t, []byte(b.String())).Messages[0].Summary().Aperak
	require.Equal(t, 1000, a.ErrorsTotal)
	listed := len(a.Errors)
	for _, e := range a.Errors {
		listed += len(e.Texts)
	}
	require.Equal(t, maxSummaryItems, listed, "errors and texts together")

	b.Reset()
	b.WriteString("UNH+1+CONTRL:2:2:UN'UCI+1+S+R+4'")
	for k := range 1500 {
		fmt.Fprintf(&b, "UCF+%d+4'UCM+%d+ORDERS:D:96A:UN+4'", k, k)
	}
	b.WriteString("UNT+3003+1'")
	c := mustParse(t, []byte(b.String())).Messages[0].Summary().Contrl
	require.Len(t, c.Groups, 1000)
	require.Empty(t, c.Messages, "the UCMs of groups not listed do not move to the interchange level")
	for _, g := range c.Groups {
		require.Len(t, g.Messages, 1)
	}
}

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestBudgetRefusesBeforeAllocating: an input whose structure needs more
// memory than its budget is refused with a *BudgetError that says what it
// holds, before the records are allocated.
func TestBudgetRefusesBeforeAllocating(t *testing.T) {
	const budget = 4 << 20
	for name, tt := range map[string]struct {
		data        string
		msgs, ics   int
		segsAtLeast int
	}{
		"messages":     {strings.Repeat("UNH+1+ORDERS:D:96A:UN'", 100000), 100000, 0, 100000},
		"interchanges": {strings.Repeat("UNB+UNOC:3+S+R+250312:1030+X'UNZ+0+X'", 50000), 0, 50000, 100000},
		"segments":     {"UNB+UNOC:3+S+R+250312:1030+X'" + strings.Repeat("'", 400000), 0, 0, 400000},
	} {
		t.Run(name, func(t *testing.T) {
			data := []byte(tt.data)
			var err error
			n := allocated(func() { _, err = ParseContext(context.Background(), data, Options{Budget: budget}) })
			require.ErrorIs(t, err, ErrBudget)
			var be *BudgetError
			require.ErrorAs(t, err, &be)
			require.Equal(t, len(data), be.Size)
			require.EqualValues(t, budget, be.Budget)
			require.Greater(t, be.Need, be.Budget)
			require.GreaterOrEqual(t, be.Segments, tt.segsAtLeast)
			require.Equal(t, tt.msgs, be.Messages)
			require.Equal(t, tt.ics, be.Interchanges)
			require.Less(t, n, uint64(budget), "refused before the records were allocated")

			d, err := ParseContext(context.Background(), data, Options{Budget: -1})
			require.NoError(t, err, "no budget")
			require.Equal(t, tt.msgs, len(d.Messages))
		})
	}
}

// TestDefaultBudget: the default is twice the input plus 32 MiB; UNB and
// 1 MiB of segment terminators fit it, 4 MiB of them do not; the 16 MiB
// benchmark interchange needs a fraction.
func TestDefaultBudget(t *testing.T) {
	require.EqualValues(t, 2*1000+32<<20, DefaultBudget(1000))
	head := "UNB+UNOC:3+S+R+250312:1030+X'"
	_, err := Parse([]byte(head + strings.Repeat("'", 1<<20)))
	require.NoError(t, err)
	_, err = Parse([]byte(head + strings.Repeat("'", 4<<20)))
	require.ErrorIs(t, err, ErrBudget)
	require.EqualError(t, err, "edi: the file's structure needs more memory than allowed: 4194333 bytes hold 4194306 segments (1.0 bytes each); indexing them needs 80 MiB or more, over the 40 MiB allowed; this is not a usable interchange")
	d := mustParse(t, benchData())
	require.Less(t, d.cost(0), DefaultBudget(len(benchData()))/4)
}

// cancelAfter is a context whose Err reports cancellation from its n-th
// call on: it stops ParseContext at a known point. Like every context it
// is safe for concurrent use: the two halves of a large scan look at it
// from their own goroutines.
type cancelAfter struct {
	context.Context
	n atomic.Int64
}

func newCancelAfter(n int64) *cancelAfter {
	c := &cancelAfter{Context: context.Background()}
	c.n.Store(n)
	return c
}

func (c *cancelAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestParseContextStops: ParseContext looks at its context between the
// chunks of the scan and between stages, and returns its error.
func TestParseContextStops(t *testing.T) {
	defer func(n int) { scanChunk = n }(scanChunk)
	scanChunk = 4096
	data := generateOrders(2<<20, "\n")
	for _, n := range []int64{0, 1, 10, 100} {
		_, err := ParseContext(newCancelAfter(n), data, Options{})
		require.ErrorIs(t, err, context.Canceled, "after %d looks", n)
	}
	d, err := ParseContext(newCancelAfter(1<<30), data, Options{})
	require.NoError(t, err)
	require.Equal(t, mustParse(t, data).Issues(), d.Issues())
}

// TestNotesShared: messages of one kind without a structure share one
// note string; past maxNotes different kinds the note stops naming the
// kind (the message line does) instead of costing a string each.
func TestNotesShared(t *testing.T) {
	var b strings.Builder
	for k := range maxNotes + 10 {
		fmt.Fprintf(&b, "UNH+1+T%d:D:96A:UN'UNT+2+1'UNH+2+T%d:D:96A:UN'UNT+2+2'", k, k)
	}
	d := mustParse(t, []byte(b.String()))
	first, second := d.Messages[0].DirectoryNote, d.Messages[1].DirectoryNote
	require.Equal(t, "no directory structure for T0 D:96A (b2bx checks every D.96A message, ORDERS, ORDRSP, APERAK in D.24A/D.25A, and CONTRL); envelope checks only", first)
	require.Same(t, unsafe.StringData(first), unsafe.StringData(second))
	require.Equal(t, d.Messages[0].Type, d.Messages[1].Type)
	require.Same(t, unsafe.StringData(d.Messages[0].Type), unsafe.StringData(d.Messages[1].Type), "interned")
	last, beforeLast := d.Messages[len(d.Messages)-1].DirectoryNote, d.Messages[len(d.Messages)-3].DirectoryNote
	require.Equal(t, "no directory structure for this message type (b2bx checks every D.96A message, ORDERS, ORDRSP, APERAK in D.24A/D.25A, and CONTRL); envelope checks only", last)
	require.Same(t, unsafe.StringData(last), unsafe.StringData(beforeLast))
}
